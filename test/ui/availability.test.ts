import { describe, expect, test } from 'vitest';
import { PROVIDERS, type RemoteProvider } from '../../src/agents/remote-spec';
import { isOnThisMachine, needsNetwork, offlineProblem } from '../../src/ui/state/availability';
import { Connectivity } from '../../src/ui/state/connectivity.svelte';

const QWEN = 'Qwen3-0.6B-q4f32_1-MLC';
const OTHER_QWEN = 'Qwen3-1.7B-q4f32_1-MLC';

describe('what needs the network', () => {
  test('scripted agents never do', () => {
    expect(needsNetwork(['boulware', 'conceder:beta=4', 'hardliner'])).toEqual([]);
    expect(offlineProblem(['boulware', 'linear'])).toBeNull();
  });

  test('a remote model does, unless its server is on this machine', () => {
    expect(needsNetwork(['boulware', 'openai:gpt-4o-mini', 'ollama:qwen3:8b', 'anthropic:claude-x+think'])).toEqual([
      'openai:gpt-4o-mini',
      'anthropic:claude-x+think',
    ]);
    // The user's base URL decides: a vLLM server elsewhere needs the network, OpenAI's API through a local proxy does not.
    const addressOf = (p: RemoteProvider) => (p === 'vllm' ? 'https://gpu.example.org/v1' : p === 'openai' ? 'http://127.0.0.1:8080/v1' : PROVIDERS[p].baseUrl);
    expect(needsNetwork(['vllm:qwen', 'openai:gpt-4o-mini'], { addressOf })).toEqual(['vllm:qwen']);
  });

  test('a WebLLM model does when it is not in the cache, and only when the cache could be asked', () => {
    const specs = [`webllm:${QWEN}`, `webllm:${OTHER_QWEN}+think`];
    expect(needsNetwork(specs, { cachedModels: new Set([QWEN]) })).toEqual([`webllm:${OTHER_QWEN}+think`]);
    expect(needsNetwork(specs, { cachedModels: new Set([QWEN, OTHER_QWEN]) })).toEqual([]);
    expect(needsNetwork(specs)).toEqual([]);
  });

  test('names each agent once, in one sentence', () => {
    expect(offlineProblem(['openai:gpt-4o-mini', 'boulware', 'openai:gpt-4o-mini'])).toBe(
      'You are offline, and openai:gpt-4o-mini needs the network: choose scripted agents or downloaded WebLLM models, or reconnect.',
    );
    expect(offlineProblem(['groq:llama', 'openai:gpt-4o-mini'])).toMatch(/^You are offline, and groq:llama, openai:gpt-4o-mini need the network/);
  });

  test('knows a loopback address', () => {
    for (const address of ['http://localhost:11434/v1', 'http://127.0.0.1:1234', 'http://[::1]:8000/v1', 'http://ollama.localhost/v1'])
      expect(isOnThisMachine(address)).toBe(true);
    for (const address of ['https://api.openai.com/v1', 'http://192.168.1.20:8000/v1', 'http://localhost.example.com', 'not a url'])
      expect(isOnThisMachine(address)).toBe(false);
  });
});

describe('Connectivity', () => {
  /** A window stand-in: its navigator's onLine and the events a browser fires. */
  const fakeWindow = (onLine: boolean) => Object.assign(new EventTarget(), { navigator: { onLine } }) as unknown as Window;

  test('starts from the browser’s answer and follows its online and offline events', () => {
    const target = fakeWindow(false);
    const connectivity = new Connectivity();
    connectivity.start({ target });
    expect(connectivity.online).toBe(false);
    expect(connectivity.available('boulware')).toBe(true);
    expect(connectivity.available('openai:gpt-4o-mini')).toBe(false);
    expect(connectivity.available('ollama:qwen3')).toBe(true);
    target.dispatchEvent(new Event('online'));
    expect(connectivity.online).toBe(true);
    expect(connectivity.available('openai:gpt-4o-mini')).toBe(true);
    target.dispatchEvent(new Event('offline'));
    expect(connectivity.online).toBe(false);
  });
});
