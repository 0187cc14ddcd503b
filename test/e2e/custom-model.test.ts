/**
 * The user's own WebLLM model through the whole app: added on the Models page (each bad field
 * named, nothing typed lost), kept in settings across a reload, downloaded (loaded in the worker),
 * offered as a seat beside the Qwen3 builds, played in the Arena (the e2e build's fake engine stands in for WebLLM), and removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { openApp, storedNegotiations, storedRows, storedRuns } from './pages';
import type { BilateralEvent } from '../../src/games/bilateral/events';

const NAME = 'Qwen3-parley-ft-q4f32_1-MLC';
const SPEC = `webllm:${NAME}`;

describe('a custom WebLLM model (fake engine)', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];

  beforeAll(async () => {
    ({ browser, page, url, errors } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('is added with its fields checked, kept, offered for a seat, plays, and is removed', async () => {
    await page.goto(`${url}#/models`);
    const form = page.getByRole('form', { name: 'Add your own model' });
    await form.getByLabel('Name (its model id)').fill(NAME);
    await form.getByLabel('MLC weights URL').fill('http://example.org/weights/');
    await form.getByLabel('Context window (tokens)').fill('100');
    await form.getByRole('button', { name: 'Add model' }).click();
    const problems = async () =>
      Object.fromEntries(await form.locator('[data-problem]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-problem'), e.textContent?.trim()])));
    expect(await problems()).toEqual({
      weightsUrl: 'The URL of the MLC weights must start with https:// or be a path on this site starting with /.',
      libraryUrl: 'Give the URL of the model library.',
      contextWindow: 'The context window is at least 1,024 tokens.',
    });
    // Nothing typed is lost to a failed check.
    expect(await form.getByLabel('Name (its model id)').inputValue()).toBe(NAME);
    await form.getByLabel('MLC weights URL').fill('https://example.org/weights/');
    await form.getByLabel('Model library URL').fill('/libs/parley-ft-webgpu.wasm');
    await form.getByLabel('Context window (tokens)').fill('8192');
    await form.getByRole('button', { name: 'Add model' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Added ${NAME}` })
      .waitFor();
    expect(await problems()).toEqual({});
    // The window's memory is said as it is typed (WebLLM sizes the attention cache for all of it at load).
    const windowNote = form.getByLabel('Context window (tokens)');
    expect(await windowNote.getAttribute('aria-describedby')).toBeTruthy();
    const note = page.locator(`[id="${await windowNote.getAttribute('aria-describedby')}"]`);
    await expect.poll(() => note.textContent()).toContain('at 4,096 tokens about 0.4 GB for a Qwen3 0.6B or 1.7B, 0.6 GB for a 4B or 8B');
    await windowNote.fill('131072');
    await expect.poll(() => note.textContent()).toContain('at 131,072 tokens about 14 GB for a Qwen3 0.6B or 1.7B, 18 GB for a 4B or 8B');
    await windowNote.fill('4096');

    // Kept in settings: still listed after a reload.
    await page.reload();
    const row = page.locator(`tr[data-custom-model="${NAME}"]`);
    await row.waitFor();
    // Not in WebLLM's cache yet (asked with its record); Download loads it in the worker (the fake engine here).
    await expect
      .poll(async () => (await row.locator('td').allTextContents()).slice(0, 4))
      .toEqual(['https://example.org/weights/', '/libs/parley-ft-webgpu.wasm', '8,192', 'no']);
    await row.getByRole('button', { name: `Download ${NAME}` }).click();
    await row.getByRole('button', { name: `Delete ${NAME} from the cache` }).waitFor({ timeout: 20_000 });
    expect(await row.locator('td').nth(3).textContent()).toBe('yes');
    const settings = await storedRows<{ key: string; value: unknown }>(page, 'settings');
    expect(settings.find((s) => s.key === 'webllm:custom-models')?.value).toEqual([
      { name: NAME, weightsUrl: 'https://example.org/weights/', libraryUrl: '/libs/parley-ft-webgpu.wasm', contextWindow: 8192 },
    ]);

    // Offered beside the Qwen3 builds, and played.
    await page.getByRole('navigation').getByRole('link', { name: 'Arena' }).click();
    const buyer = page.getByRole('group', { name: 'Buyer' });
    const picker = buyer.getByLabel('Agent', { exact: true });
    const local = picker.locator('optgroup[label="On this GPU (WebLLM)"] option');
    await expect.poll(() => local.count(), { timeout: 20_000 }).toBe(5);
    expect(await local.last().getAttribute('value')).toBe(SPEC);
    await picker.selectOption(SPEC);
    await buyer.getByText(`Spec: ${SPEC}`).waitFor();
    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(1);
    const rows = await storedNegotiations<{ events: BilateralEvent[] }>(page);
    const calls = rows.flatMap((r) => r.events.flatMap((e) => (e.type === 'move' && e.call ? [e.call] : [])));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.backend === 'webllm' && c.model === NAME)).toBe(true);

    // Removed: no longer listed, stored or offered.
    await page.getByRole('navigation').getByRole('link', { name: 'Models' }).click();
    await page.getByRole('button', { name: `Remove ${NAME}` }).click();
    await row.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await storedRows<{ key: string; value: unknown }>(page, 'settings')).find((s) => s.key === 'webllm:custom-models')?.value)
      .toEqual([]);
    await page.getByRole('navigation').getByRole('link', { name: 'Arena' }).click();
    await expect
      .poll(() =>
        page.getByRole('group', { name: 'Seller' }).getByLabel('Agent', { exact: true }).locator('optgroup[label="On this GPU (WebLLM)"] option').count(),
      )
      .toBe(4);
    expect(errors).toEqual([]);
  });
});
