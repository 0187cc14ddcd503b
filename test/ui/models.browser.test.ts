import { afterEach, describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import ModelsPage from '../../src/ui/pages/ModelsPage.svelte';
import { getKeys } from '../../src/storage/keys';
import { KeyRing } from '../../src/ui/state/keys.svelte';
import { cleanup, must, render, text } from './helpers.svelte';
import { freshDb } from '../storage/helpers';

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
