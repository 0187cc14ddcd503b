/**
 * Offline in the page, in Chromium: the pickers mark remote models that need the network (a server
 * on this machine stays available), and the first stored run asks once for persistent storage.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import AgentChoice from '../../src/ui/components/AgentChoice.svelte';
import { connectivity } from '../../src/ui/state/connectivity.svelte';
import { askPersistenceOnce } from '../../src/storage/persist';
import { freshDb } from '../storage/helpers';
import { bound, cleanup, control, render } from './helpers.svelte';

afterEach(() => {
  cleanup();
  connectivity.online = true;
});

const remoteOptions = (target: HTMLElement) =>
  [...target.querySelectorAll<HTMLOptionElement>('optgroup[label="Remote models"] option')].map((o) => ({
    value: o.value,
    label: o.textContent,
    disabled: o.disabled,
  }));

describe('offline', () => {
  test('the picker marks remote models unavailable, except a server on this machine, and unmarks them online', async () => {
    const { props } = bound('spec', 'boulware', { label: 'Buyer', remoteModels: ['openai:gpt-4o-mini', 'ollama:qwen3'] });
    const target = render(AgentChoice, props);
    connectivity.online = false;
    flushSync();
    expect(remoteOptions(target).slice(0, 2)).toEqual([
      { value: 'openai:gpt-4o-mini', label: 'openai:gpt-4o-mini (unavailable offline)', disabled: true },
      { value: 'ollama:qwen3', label: 'ollama:qwen3', disabled: false },
    ]);
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Agent'), 'remote model…');
    await userEvent.type(control<HTMLInputElement>(target, 'Remote model'), 'groq:llama-3');
    expect(target.querySelector('[data-testid="unavailable-offline"]')?.textContent).toContain('Unavailable offline');
    connectivity.online = true;
    flushSync();
    expect(target.querySelector('[data-testid="unavailable-offline"]')).toBeNull();
    expect(remoteOptions(target)[0]).toEqual({ value: 'openai:gpt-4o-mini', label: 'openai:gpt-4o-mini', disabled: false });
  });

  test('the dev server that serves these tests registers no service worker and links no manifest', async () => {
    const { AppUpdate } = await import('../../src/ui/state/app-update.svelte');
    const update = new AppUpdate();
    update.start();
    await update.apply();
    expect(await navigator.serviceWorker.getRegistrations()).toEqual([]);
    expect(document.querySelector('link[rel="manifest"]')).toBeNull();
    expect(update.error).toBeNull();
  });

  test('persistent storage is asked for once, ever, and not where it is already granted', async () => {
    const db = freshDb();
    let asked = 0;
    let persisted = false;
    const storage = {
      persisted: async () => persisted,
      persist: async () => {
        asked++;
        return false;
      },
    } as unknown as StorageManager;
    expect(await askPersistenceOnce(db, storage)).toBe(false);
    expect(await askPersistenceOnce(db, storage)).toBeNull();
    expect(asked).toBe(1);

    const other = freshDb();
    persisted = true;
    expect(await askPersistenceOnce(other, storage)).toBeNull();
    expect(asked).toBe(1);
  });
});
