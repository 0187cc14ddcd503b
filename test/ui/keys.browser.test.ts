import { afterEach, describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { getKeys } from '../../src/storage/keys';
import ProviderForm from '../../src/ui/components/ProviderForm.svelte';
import { KeyRing, problemSentence } from '../../src/ui/state/keys.svelte';
import { freshDb } from '../storage/helpers';
import { cleanup, must, render, text } from './helpers.svelte';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const KEY = 'sk-ring-3b1d';

describe('KeyRing', () => {
  test('keeps keys in memory only, unless "remember" is ticked', async () => {
    const db = freshDb();
    const ring = new KeyRing(() => db);
    await ring.set('openai', { apiKey: KEY });
    expect(ring.entries.openai.apiKey).toBe(KEY);
    expect(await getKeys(db)).toEqual([]);
    // A fresh ring (a reload) has forgotten it.
    const reloaded = new KeyRing(() => db);
    await reloaded.load();
    expect(reloaded.entries.openai.apiKey).toBe('');
  });

  test('remembers a ticked provider across reloads, and forgets it when unticked', async () => {
    const db = freshDb();
    const ring = new KeyRing(() => db);
    await ring.set('anthropic', { apiKey: KEY, remember: true });
    await ring.set('anthropic', { baseUrl: 'http://127.0.0.1:4000' });
    expect(await getKeys(db)).toEqual([{ provider: 'anthropic', apiKey: KEY, baseUrl: 'http://127.0.0.1:4000' }]);
    const reloaded = new KeyRing(() => db);
    await reloaded.load();
    expect(reloaded.entries.anthropic).toEqual({ apiKey: KEY, baseUrl: 'http://127.0.0.1:4000', remember: true });
    await reloaded.set('anthropic', { remember: false });
    expect(await getKeys(db)).toEqual([]);
    expect(reloaded.entries.anthropic.apiKey).toBe(KEY);
  });

  test('settings for the worker name only configured providers, as plain data', async () => {
    const db = freshDb();
    const ring = new KeyRing(() => db);
    expect(ring.remote()).toBeUndefined();
    await ring.set('vllm', { baseUrl: ' http://127.0.0.1:8000/v1 ' });
    await ring.set('openai', { apiKey: KEY });
    const remote = ring.remote();
    expect(remote).toEqual({ providers: { openai: { apiKey: KEY }, vllm: { baseUrl: 'http://127.0.0.1:8000/v1' } } });
    // It must survive structured cloning to the worker.
    expect(structuredClone(remote)).toEqual(remote);
    expect(ring.configured).toEqual(['openai', 'vllm']);
  });
});

describe('KeyRing: what cannot be sent is refused at input', () => {
  const PASSWORD = 'hunter2-ring-secret';

  test('a base URL with a password says why, is neither stored nor sent to the worker, and leaves the provider unconfigured', async () => {
    const db = freshDb();
    const ring = new KeyRing(() => db);
    await ring.set('vllm', { baseUrl: 'http://127.0.0.1:8000/v1', remember: true });
    await ring.set('vllm', { baseUrl: `http://me:${PASSWORD}@127.0.0.1:8000/v1` });
    expect(ring.problems('vllm').baseUrl?.code).toBe('base-url-has-credentials');
    expect(JSON.stringify(ring.problems('vllm'))).not.toContain(PASSWORD);
    expect(ring.configured).toEqual([]);
    expect(ring.remote()).toBeUndefined();
    // The last good address stays stored; the one with a password never is.
    expect(await getKeys(db)).toEqual([{ provider: 'vllm', apiKey: '', baseUrl: 'http://127.0.0.1:8000/v1' }]);
    await ring.set('vllm', { baseUrl: 'http://127.0.0.1:9000/v1' });
    expect(ring.problems('vllm')).toEqual({});
    expect(ring.remote()).toEqual({ providers: { vllm: { baseUrl: 'http://127.0.0.1:9000/v1' } } });
  });

  test('a key of 1,500 characters is taken and sent; one over 8,192 is refused with its length, never shown', async () => {
    const ring = new KeyRing(freshDb);
    const long = 'k'.repeat(1500);
    await ring.set('openai', { apiKey: ` ${long}\n` });
    expect(ring.problems('openai')).toEqual({});
    expect(ring.remote()).toEqual({ providers: { openai: { apiKey: long } } });
    await ring.set('openai', { apiKey: 'k'.repeat(9000) });
    expect(ring.problems('openai').apiKey).toMatchObject({ code: 'key-too-long', data: { length: 9000, max: 8192 } });
    const refused = ring.problems('openai').apiKey;
    expect(refused && problemSentence(refused)).toBe('The key is 9,000 characters long; Parley takes keys of up to 8,192.');
    expect(ring.remote()).toBeUndefined();
  });

  test('the form shows each problem beside its field, and the connection test sends nothing', async () => {
    const requests: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      requests.push(url);
      return new Response('{}');
    });
    const ring = new KeyRing(freshDb);
    const target = render(ProviderForm, {
      provider: 'vllm',
      label: 'vLLM',
      defaultBaseUrl: 'http://localhost:8000/v1',
      needsKey: false,
      keys: ring,
      testModel: 'Qwen/Qwen3-0.6B',
    });
    const url = must(target.querySelector<HTMLInputElement>('input[type="url"]'));
    await userEvent.fill(url, `http://me:${PASSWORD}@127.0.0.1:8000/v1`);
    const alert = await vi.waitFor(() => must(target.querySelector(`#${url.getAttribute('aria-describedby') ?? 'none'}`)));
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(text(alert)).toMatch(/^The base URL holds a user name or password .* It is not used or stored until it is mended\.$/);
    expect(text(target)).not.toContain(PASSWORD.slice(7));
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Test vLLM connection')));
    await vi.waitFor(() => expect(text(target.querySelector('[role="status"]'))).toMatch(/^The base URL holds a user name or password/));
    expect(requests).toEqual([]);
  });
});
