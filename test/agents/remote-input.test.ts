/**
 * Keys of any length providers use are taken end to end (up to MAX_API_KEY_LENGTH, the worker's
 * own limit too), and what cannot be sent is refused at input in words that never repeat the key.
 */
import { describe, expect, it } from 'vitest';
import { RemoteBackends } from '../../src/agents/remote';
import { checkApiKey, checkBaseUrl, MAX_API_KEY_LENGTH, MAX_BASE_URL_LENGTH, REMOTE_INPUT_PROBLEMS } from '../../src/agents/remote-input';
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
    expect(checkApiKey(tooLong)).toMatchObject({ ok: false, error: { code: 'key-too-long', data: { length: 8193, max: MAX_API_KEY_LENGTH } } });
    for (const key of ['Bearer sk-abcdef123456', 'sk-abc\ndef', 'sk-abc\u00e9def', 'sk-\u200babc']) {
      const checked = checkApiKey(key);
      expect(checked.ok ? null : checked.error.code, JSON.stringify(key)).toBe('key-not-header-text');
      if (!checked.ok) expect(JSON.stringify(checked.error)).not.toContain('abc');
    }
  });

  it('words each refusal from its table, with the numbers grouped', () => {
    const checked = checkApiKey('k'.repeat(MAX_API_KEY_LENGTH + 1));
    expect(checked.ok ? null : checked.error.message).toBe('the key is 8,193 characters long; Parley takes keys of up to 8,192');
    expect(REMOTE_INPUT_PROBLEMS['base-url-too-long']({ length: 2001, max: 2000 })).toBe('the base URL is longer than 2,000 characters');
    expect(REMOTE_INPUT_PROBLEMS['base-url-not-http']()).toBe('the base URL must start with http:// or https://');
  });

  it('is the limit of the worker’s messages, so a key the page takes is never dropped there', () => {
    const config = (apiKey: string) => ({ providers: { openai: { apiKey } } });
    expect(RemoteConfigSchema.safeParse(config('k'.repeat(MAX_API_KEY_LENGTH))).success).toBe(true);
    expect(RemoteConfigSchema.safeParse(config('k'.repeat(MAX_API_KEY_LENGTH + 1))).success).toBe(false);
    const start = { type: 'run.resume', runId: 'r', remote: config(LONG_KEY) };
    expect(ToWorkerSchema.safeParse(start).success).toBe(true);
  });
});

describe('checkBaseUrl', () => {
  it('takes an http(s) address, trimmed', () => {
    expect(checkBaseUrl(' https://api.example.com/v1 ')).toEqual({ ok: true, value: 'https://api.example.com/v1' });
  });

  it('refuses one too long, no URL, another scheme, or one holding a user name or password, with a code and no part of it', () => {
    const refusal = (url: string) => {
      const checked = checkBaseUrl(url);
      return checked.ok ? null : { code: checked.error.code, data: checked.error.data };
    };
    const long = `https://example.com/${'secret'.repeat(400)}`;
    expect(refusal(long)).toEqual({ code: 'base-url-too-long', data: { length: long.length, max: MAX_BASE_URL_LENGTH } });
    expect(refusal('secret-host/v1')).toEqual({ code: 'base-url-not-url', data: {} });
    expect(refusal('ftp://secret-host/')).toEqual({ code: 'base-url-not-http', data: {} });
    expect(refusal('https://me:secret@host/v1')).toEqual({ code: 'base-url-has-credentials', data: {} });
    for (const url of [long, 'secret-host/v1', 'ftp://secret-host/', 'https://me:secret@host/v1'])
      expect(JSON.stringify(checkBaseUrl(url))).not.toContain('secret');
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
