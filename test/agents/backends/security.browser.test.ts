/**
 * The key, transport and spec rules in Chromium, where the app runs them: fetch is stubbed to
 * record where each request went and with which key, and to answer as a flaky or echoing server.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchJson } from '../../../src/agents/backends/http';
import { redactSecrets } from '../../../src/agents/backends/types';
import { RemoteBackends, type RemoteProvider } from '../../../src/agents/remote';
import { parseAgentSpec } from '../../../src/games/bilateral/specs';

const KEYS: Partial<Record<RemoteProvider, string>> = { openai: 'sk-openai-browser-1111111111', anthropic: 'sk-ant-browser-22222222222' };
const FORM_KEY = 'form-key-for-my-server-333333';

type Sent = { url: string; headers: Record<string, string> };

/** Stubs fetch: records each request, and answers with `answer(n)` for the n-th (from 0). */
function stubFetch(answer: (n: number, sent: Sent) => Response): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    const request: Sent = { url, headers: Object.fromEntries(new Headers(init.headers).entries()) };
    sent.push(request);
    return answer(sent.length - 1, request);
  });
  return sent;
}

const completion = (content: string) =>
  new Response(JSON.stringify({ choices: [{ message: { content } }], usage: { prompt_tokens: 1, completion_tokens: 1 } }), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('keys in the browser', () => {
  it('a custom address in a provider’s form gets the key in that form, and no other provider’s', async () => {
    const sent = stubFetch(() => completion('{"action":{"type":"accept"}}'));
    const backends = new RemoteBackends({
      apiKey: (provider) => (provider === 'vllm' ? FORM_KEY : KEYS[provider]),
      baseUrls: { vllm: 'http://127.0.0.1:9/v1' },
      timeoutMs: 2000,
    });
    await backends.get({ provider: 'vllm', model: 'm' }).complete({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${FORM_KEY}`);
    expect(JSON.stringify(sent)).not.toContain(KEYS.openai);
  });

  it('a key echoed back upper-cased or base64’d is blanked out of the answer', async () => {
    const key = KEYS.openai as string;
    stubFetch(() => completion(`echo ${key.toUpperCase()} ${btoa(key)} ${encodeURIComponent(key)}`));
    const backend = new RemoteBackends({ apiKey: (p) => KEYS[p], baseUrls: { openai: 'http://127.0.0.1:9/v1' }, timeoutMs: 2000 }).get({
      provider: 'openai',
      model: 'm',
    });
    const answer = await backend.complete({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal);
    expect(answer.text).toBe('echo [redacted] [redacted] [redacted]');
    expect(redactSecrets(`x${btoa(`Bearer ${key}`)}x`, [key])).not.toContain(btoa(key).slice(4, 20));
  });
});

describe('transport in the browser', () => {
  it('retries a 200 that is not JSON, then plays the answer', async () => {
    const sent = stubFetch((n) => (n === 0 ? new Response('<html>proxy</html>', { status: 200 }) : new Response('{"ok":true}', { status: 200 })));
    const waits: number[] = [];
    const answer = await fetchJson(
      'http://127.0.0.1:9/v1/chat/completions',
      { method: 'POST', body: '{}' },
      {
        provider: 'testai',
        sleep: async (ms) => void waits.push(ms),
        random: () => 0.5,
        baseDelayMs: 100,
      },
    );
    expect(answer).toEqual({ ok: true });
    expect(sent).toHaveLength(2);
    expect(waits).toEqual([50]);
  });
});

describe('specs in the browser', () => {
  it('refuses inherited parameter names and hex, as on the command line', () => {
    expect(parseAgentSpec('boulware:__proto__=1')).toMatchObject({ ok: false, error: { code: 'unknown-parameter', data: { key: '__proto__' } } });
    expect(parseAgentSpec('boulware:beta=0x1')).toMatchObject({ ok: false, error: { code: 'parameter-not-decimal', data: { key: 'beta', value: '0x1' } } });
  });
});
