/**
 * Keys of any length providers use are taken end to end (up to MAX_API_KEY_LENGTH, the worker's
 * own limit too), and what cannot be sent is refused at input in words that never repeat the key.
 */
import { describe, expect, it } from 'vitest';
import { RemoteBackends } from '../../src/agents/remote';
import { checkApiKey, MAX_API_KEY_LENGTH } from '../../src/agents/remote-input';
import { RemoteConfigSchema, ToWorkerSchema } from '../../src/worker/messages';
import { move } from '../support/chat-server';
import { live, serverPerTest } from './backends/helpers';

const serve = serverPerTest();
/** A key as long as a gateway's JWT: well past the 1,000 characters the worker used to take. */
const LONG_KEY = `eyJ${'aB3-_x9Z'.repeat(187)}`.slice(0, 1500);

describe('checkApiKey', () => {
  it('takes keys up to the limit, trimmed as a header is', () => {
    expect(checkApiKey(LONG_KEY)).toEqual({ ok: true, value: LONG_KEY });
    expect(checkApiKey(` ${'k'.repeat(MAX_API_KEY_LENGTH)}\n`)).toEqual({ ok: true, value: 'k'.repeat(MAX_API_KEY_LENGTH) });
    expect(checkApiKey('')).toEqual({ ok: true, value: '' });
  });

  it('refuses a longer key, or one with a space or a character no header carries, without repeating it', () => {
    const tooLong = 'sk-'.padEnd(MAX_API_KEY_LENGTH + 1, 'z');
    expect(checkApiKey(tooLong)).toEqual({ ok: false, error: 'the key is 8,193 characters long; Parley takes keys of up to 8,192' });
    for (const key of ['Bearer sk-abcdef123456', 'sk-abc\ndef', 'sk-abc\u00e9def', 'sk-\u200babc']) {
      const checked = checkApiKey(key);
      expect(checked.ok, JSON.stringify(key)).toBe(false);
      if (!checked.ok) expect(checked.error).not.toContain('abc');
    }
  });

  it('is the limit of the worker’s messages, so a key the page takes is never dropped there', () => {
    const config = (apiKey: string) => ({ providers: { openai: { apiKey } } });
    expect(RemoteConfigSchema.safeParse(config('k'.repeat(MAX_API_KEY_LENGTH))).success).toBe(true);
    expect(RemoteConfigSchema.safeParse(config('k'.repeat(MAX_API_KEY_LENGTH + 1))).success).toBe(false);
    const start = { type: 'run.resume', runId: 'r', remote: config(LONG_KEY) };
    expect(ToWorkerSchema.safeParse(start).success).toBe(true);
  });
});

describe('a long key end to end', () => {
  it('reaches the provider whole, in each dialect’s header', async () => {
    const s = await serve(() => move({ action: { type: 'accept' } }));
    const backends = new RemoteBackends({ apiKey: () => LONG_KEY, baseUrls: { openai: `${s.url}/v1`, anthropic: s.url, gemini: s.url }, timeoutMs: 5000 });
    for (const provider of ['openai', 'anthropic', 'gemini'] as const)
      await backends.get({ provider, model: 'm' }).complete({ messages: [{ role: 'user', content: 'hi' }] }, live());
    expect(s.requests.map((r) => r.headers.authorization ?? r.headers['x-api-key'] ?? r.headers['x-goog-api-key'])).toEqual([
      `Bearer ${LONG_KEY}`,
      LONG_KEY,
      LONG_KEY,
    ]);
  });
});
