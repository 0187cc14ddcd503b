import { afterEach, describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import ModelsPage from '../../src/ui/pages/ModelsPage.svelte';
import { getKeys } from '../../src/storage/keys';
import { KeyRing } from '../../src/ui/state/keys.svelte';
import { cleanup, must, render, text } from './helpers.svelte';
import { freshDb } from '../storage/helpers';
import { sim } from '../../src/ui/state/sim';
import { localEngines } from '../../src/ui/state/engines.svelte';
import { LocalModels } from '../../src/ui/state/models.svelte';
import { SimClient } from '../../src/worker/client';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const KEY = 'sk-page-91c2e';

const labelled = <T extends HTMLElement>(target: HTMLElement, name: string): T => {
  for (const label of target.querySelectorAll('label')) if (text(label) === name && label.control) return label.control as T;
  throw new Error(`no control labelled ${name}`);
};

describe('Models page', () => {
  test('shows the real WebGPU report: a software adapter, no shader-f16, the q4f32 builds, none cached', async () => {
    const target = render(ModelsPage, { keys: new KeyRing(freshDb) });
    await vi.waitFor(() => must(target.querySelector('[data-testid="gpu-summary"]')), { timeout: 15_000 });
    expect(text(target.querySelector('[data-testid="gpu-summary"]'))).toContain('no shader-f16, so the q4f32 builds are used');
    const rows = [...target.querySelectorAll('section[aria-labelledby="webgpu-heading"] tbody tr')];
    expect(rows.map((r) => text(r.querySelector('code')))).toEqual([
      'Qwen3-0.6B-q4f32_1-MLC',
      'Qwen3-1.7B-q4f32_1-MLC',
      'Qwen3-4B-q4f32_1-MLC',
      'Qwen3-8B-q4f32_1-MLC',
    ]);
    // Each row says its download size and memory need, and (once the cache answers) that it is not cached.
    for (const row of rows) expect(text(row)).toMatch(/\d+ MB|\d\.\d GB/);
    await vi.waitFor(() => expect(rows.every((r) => text(r.children[4]) === 'no')).toBe(true), { timeout: 10_000 });
    expect(target.querySelectorAll('section[aria-labelledby="webgpu-heading"] tbody button').length).toBe(4);
    // Nothing is loaded for play yet, so there is nothing to unload.
    expect(rows.every((r) => text(r.children[5]) === 'no')).toBe(true);
    const unload = [...target.querySelectorAll('button')].find((b) => text(b) === 'Unload models from the GPU');
    expect(unload?.disabled).toBe(true);
  });

  test('leaving the page undoes every subscription it made to the worker', async () => {
    localEngines.start(); // the pickers' view of the engines, made once for the whole app
    const client = sim();
    const subscribe = client.subscribe.bind(client);
    let open = 0;
    const spy = vi.spyOn(client, 'subscribe').mockImplementation((listener) => {
      open++;
      const undo = subscribe(listener);
      return () => {
        open--;
        undo();
      };
    });
    try {
      const target = render(ModelsPage, { keys: new KeyRing(freshDb) });
      await vi.waitFor(() => must(target.querySelector('[data-testid="gpu-summary"]')), { timeout: 15_000 });
      expect(open).toBe(1);
      cleanup();
      expect(open).toBe(0);
      // A second visit subscribes once again, and leaves nothing behind either.
      render(ModelsPage, { keys: new KeyRing(freshDb) });
      await vi.waitFor(() => expect(open).toBe(1));
      cleanup();
      expect(open).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });

  test('a simulation worker that dies while the page asks for the model list: the page says why', async () => {
    const url = URL.createObjectURL(new Blob(['throw new Error("no worker today");'], { type: 'text/javascript' }));
    const client = new SimClient(() => new Worker(url, { type: 'module' }));
    const models = new LocalModels(() => client);
    try {
      await models.check();
      expect(models.checkError).toMatch(/^WebLLM's model list could not be read: The simulation worker stopped: .*no worker today/);
      expect(models.report).toBeNull();
    } finally {
      models.dispose();
      client.terminate();
    }
  });

  test('a provider form: password key field, base URL, remember on this device', async () => {
    const db = freshDb();
    const keys = new KeyRing(() => db);
    const target = render(ModelsPage, { keys });
    const key = labelled<HTMLInputElement>(target, 'OpenAI API key');
    expect(key.type).toBe('password');
    expect(labelled<HTMLInputElement>(target, 'Anthropic API key').type).toBe('password');
    expect(labelled<HTMLInputElement>(target, 'Gemini base URL').placeholder).toContain('generativelanguage.googleapis.com');
    expect(labelled<HTMLInputElement>(target, 'Ollama API key (optional)').type).toBe('password');
    await userEvent.fill(key, KEY);
    expect(keys.entries.openai.apiKey).toBe(KEY);
    expect(await getKeys(db)).toEqual([]);
    await userEvent.click(labelled(target, 'Remember OpenAI on this device'));
    await vi.waitFor(async () => expect(await getKeys(db)).toEqual([{ provider: 'openai', apiKey: KEY, baseUrl: '' }]));
    await userEvent.click(labelled(target, 'Remember OpenAI on this device'));
    await vi.waitFor(async () => expect(await getKeys(db)).toEqual([]));
  });

  test('test connection shows the provider’s message, never the key', async () => {
    const requests: { url: string; auth: string | null }[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      requests.push({ url, auth: new Headers(init.headers).get('authorization') });
      return new Response(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}.` } }), {
        status: 401,
        headers: { 'content-type': 'application/json' },
      });
    });
    const keys = new KeyRing(freshDb);
    const target = render(ModelsPage, { keys });
    await userEvent.fill(labelled(target, 'OpenAI API key'), KEY);
    await userEvent.fill(labelled(target, 'OpenAI base URL'), 'https://llm.example.test/v1');
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Test OpenAI connection')));
    const status = () => text(labelled<HTMLInputElement>(target, 'OpenAI model to test').closest('fieldset')?.querySelector('[role="status"]'));
    await vi.waitFor(() => expect(status()).toContain('Incorrect API key provided'), { timeout: 10_000 });
    expect(status()).not.toContain(KEY);
    expect(requests).toEqual([{ url: 'https://llm.example.test/v1/chat/completions', auth: `Bearer ${KEY}` }]);
  });
});
