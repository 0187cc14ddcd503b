import { describe, expect, test } from 'vitest';
import { getKeys } from '../../src/storage/keys';
import { KeyRing } from '../../src/ui/state/keys.svelte';
import { freshDb } from '../storage/helpers';

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
