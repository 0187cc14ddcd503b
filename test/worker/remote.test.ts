import { describe, expect, test } from 'vitest';
import { ToWorkerSchema } from '../../src/worker/messages';
import { remoteSettings } from '../../src/worker/remote-settings';

const config = {
  agents: ['boulware', 'vllm:test-model'],
  scenariosPerPair: 1,
  preset: 'standard',
  seed: 1,
  selfPlay: false,
  deadline: { kind: 'fixed', turns: 20 },
  firstMover: 'seller',
} as const;

describe('remote settings in worker messages', () => {
  test('run.start, run.resume and arena.start take an optional remote field', () => {
    const remote = { providers: { openai: { apiKey: 'sk-1' }, vllm: { baseUrl: 'http://127.0.0.1:8000/v1' } } };
    expect(ToWorkerSchema.safeParse({ type: 'run.start', runId: 'r', name: 'n', config, remote }).success).toBe(true);
    expect(ToWorkerSchema.safeParse({ type: 'run.start', runId: 'r', name: 'n', config }).success).toBe(true);
    expect(ToWorkerSchema.safeParse({ type: 'run.resume', runId: 'r', remote }).success).toBe(true);
    const bad = ToWorkerSchema.safeParse({ type: 'run.resume', runId: 'r', remote: { providers: { nowhere: {} } } });
    expect(bad.success).toBe(false);
  });

  test('become per-provider keys and base URLs for the registry', () => {
    const settings = remoteSettings({
      providers: { openai: { apiKey: 'sk-1' }, vllm: { baseUrl: 'http://127.0.0.1:8000/v1' } },
    });
    expect(settings.apiKey?.('openai')).toBe('sk-1');
    expect(settings.apiKey?.('vllm')).toBeUndefined();
    expect(settings.baseUrls).toEqual({ vllm: 'http://127.0.0.1:8000/v1' });
    expect(remoteSettings(undefined)).toEqual({});
  });

  test('engine messages name a WebLLM model a spec may name, and nothing else', () => {
    expect(ToWorkerSchema.safeParse({ type: 'engines.load', modelId: 'Qwen3-0.6B-q4f32_1-MLC' }).success).toBe(true);
    expect(ToWorkerSchema.safeParse({ type: 'engines.load', modelId: 'Llama-3-8B' }).success).toBe(false);
    expect(ToWorkerSchema.safeParse({ type: 'engines.cancel', modelId: 'Qwen3-0.6B-q4f32_1-MLC' }).success).toBe(true);
    expect(ToWorkerSchema.safeParse({ type: 'engines.unload' }).success).toBe(true);
  });
});
