/**
 * WebLLM seats through the whole app: the picker, the worker's engine pool, loading progress,
 * a lost GPU pausing a run and a resume finishing it. The e2e build loads the fake engine of
 * test/support/e2e-engine.ts (WebLLM's interface) in place of WebLLM, which cannot download
 * weights here; which behaviour a model has is chosen by its size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedNegotiations, storedRuns } from './pages';
import type { BilateralEvent } from '../../src/games/bilateral/events';

const SMALL = 'webllm:Qwen3-0.6B-q4f32_1-MLC';
const LOSES_GPU = 'webllm:Qwen3-4B-q4f32_1-MLC';
const SLOW = 'webllm:Qwen3-8B-q4f32_1-MLC';
const NO_WEIGHTS = 'webllm:Qwen3-1.7B-q4f32_1-MLC';

/** The model calls stored for one run: backend and model of every event that has a call. */
async function storedCalls(page: Page, runId: string): Promise<{ backend: string; model: string; actor: string }[]> {
  const rows = await storedNegotiations<{ events: BilateralEvent[] }>(page);
  return rows
    .filter((r) => r.runId === runId)
    .flatMap((r) =>
      r.events.flatMap((e) =>
        (e.type === 'move' || e.type === 'invalid') && e.call ? [{ backend: e.call.backend, model: e.call.model, actor: e.actor }] : [],
      ),
    );
}

describe('WebLLM agents in the app (fake engine)', () => {
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

  it('offers this GPU’s Qwen3 builds for a seat and plays an Arena game with one', async () => {
    await page.goto(`${url}#/arena`);
    const buyer = page.getByRole('group', { name: 'Buyer' });
    const picker = buyer.getByLabel('Agent', { exact: true });
    // Headless Chromium's SwiftShader adapter has no shader-f16, so the q4f32 builds are offered.
    await expect.poll(() => picker.locator('optgroup[label="On this GPU (WebLLM)"] option').count(), { timeout: 20_000 }).toBe(4);
    await picker.selectOption(SMALL);
    await buyer.getByText(`Spec: ${SMALL}`).waitFor();
    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('ol.transcript li.bubble').count()).toBeGreaterThanOrEqual(2);
    await buyer.getByText('Loaded on the GPU.').waitFor();
    await screenshot(page, 'arena-webllm');
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(1);
    const calls = await storedCalls(page, runs[0]?.id as string);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.backend === 'webllm' && c.model === 'Qwen3-0.6B-q4f32_1-MLC' && c.actor === 'buyer')).toBe(true);

    // The Models page says the model stays loaded for play, and frees the GPU when asked.
    await page.getByRole('navigation').getByRole('link', { name: 'Models' }).click();
    const row = page.locator('tr', { has: page.locator('code', { hasText: 'Qwen3-0.6B-q4f32_1-MLC' }) });
    await expect.poll(() => row.locator('td').nth(4).textContent(), { timeout: 20_000 }).toBe('yes');
    await page.getByRole('button', { name: 'Unload models from the GPU' }).click();
    await expect.poll(() => row.locator('td').nth(4).textContent()).toBe('no');
    await page.getByRole('navigation').getByRole('link', { name: 'Arena' }).click();
  });

  it('pauses a tournament when the GPU is lost, with nothing lost, and finishes it on resume', async () => {
    await page.goto(`${url}#/tournament`);
    const before = new Set((await storedRuns(page)).map((r) => r.id));
    await configureTournament(page, ['boulware'], 2);
    await page.getByLabel('Agent', { exact: true }).selectOption(LOSES_GPU);
    await page.getByRole('button', { name: `Add ${LOSES_GPU}` }).click();
    await page.getByRole('button', { name: 'Run 4 negotiations' }).click();
    await page.getByText('Paused.').waitFor({ timeout: 30_000 });
    const alert = page.getByRole('alert').filter({ hasText: 'The GPU stopped working' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('nothing saved was lost');
    const newRun = async () => (await storedRuns(page)).find((r) => !before.has(r.id));
    const paused = await newRun();
    expect(paused).toMatchObject({ status: 'paused' });
    expect(paused?.negotiations).toBeGreaterThan(0);
    expect(paused?.negotiations).toBeLessThan(4);
    await screenshot(page, 'tournament-webllm-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 30_000 });
    const done = await newRun();
    expect(done).toMatchObject({ status: 'done', done: 4, negotiations: 4 });
    const calls = await storedCalls(page, done?.id as string);
    expect(new Set(calls.map((c) => c.model))).toEqual(new Set(['Qwen3-4B-q4f32_1-MLC']));
  });

  it('shows a model’s loading progress and stops the load when the run is cancelled', async () => {
    await page.goto(`${url}#/tournament`);
    const before = new Set((await storedRuns(page)).map((r) => r.id));
    await configureTournament(page, ['boulware'], 1);
    await page.getByLabel('Agent', { exact: true }).selectOption(SLOW);
    await page.getByRole('button', { name: `Add ${SLOW}` }).click();
    await page.getByRole('button', { name: 'Run 2 negotiations' }).click();
    const loading = page.getByRole('progressbar', { name: 'Loading Qwen3-8B-q4f32_1-MLC' });
    await loading.waitFor({ timeout: 20_000 });
    await expect.poll(async () => Number(await loading.getAttribute('value')), { timeout: 20_000 }).toBeGreaterThan(0);
    await screenshot(page, 'tournament-webllm-loading');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Cancelled.').waitFor({ timeout: 20_000 });
    const cancelled = (await storedRuns(page)).find((r) => !before.has(r.id));
    expect(cancelled).toMatchObject({ status: 'cancelled', negotiations: 0 });
    expect(errors).toEqual([]);
  });

  it('runs the real WebLLM in a worker of the simulation worker: a model it cannot download pauses the run with the reason', async () => {
    await page.goto(`${url}#/tournament`);
    const before = new Set((await storedRuns(page)).map((r) => r.id));
    await configureTournament(page, ['boulware'], 1);
    await page.getByLabel('Agent', { exact: true }).selectOption(NO_WEIGHTS);
    await page.getByRole('button', { name: `Add ${NO_WEIGHTS}` }).click();
    await page.getByRole('button', { name: 'Run 2 negotiations' }).click();
    await page.getByText('Paused.').waitFor({ timeout: 60_000 });
    const alert = page.getByRole('alert').filter({ hasText: 'Qwen3-1.7B-q4f32_1-MLC' }).first();
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).toMatch(/^The download of Qwen3-1\.7B-q4f32_1-MLC failed \(.+\)\. Check the connection and try again; finished parts are kept\. /);
    expect(text).toContain('The run was paused after 1 negotiation; nothing saved was lost.');
    const run = (await storedRuns(page)).find((r) => !before.has(r.id));
    expect(run).toMatchObject({ status: 'paused', negotiations: 1 });
    await screenshot(page, 'tournament-webllm-download-failed');
  });

  it('downloads from the Models page through the simulator, with progress; a cancel or a failure can be retried', async () => {
    await page.goto(`${url}#/models`);
    const row = (id: string) => page.locator('tr', { has: page.locator('code', { hasText: id }) });
    const slow = row('Qwen3-8B-q4f32_1-MLC');
    await slow.getByRole('button', { name: 'Download Qwen3 8B (q4f32)' }).click({ timeout: 30_000 });
    const bar = slow.getByRole('progressbar', { name: 'Downloading Qwen3 8B (q4f32)' });
    await expect.poll(async () => Number(await bar.getAttribute('value')), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await slow.textContent()).toContain('Fetching param cache');
    await slow.getByRole('button', { name: 'Cancel' }).click();
    await slow.getByText('The download was cancelled; download again to continue.').waitFor();
    expect(await slow.getByRole('button', { name: 'Download Qwen3 8B (q4f32)' }).isEnabled()).toBe(true);

    // The real WebLLM, offline: a clear message, and the button to try again.
    const offline = row('Qwen3-1.7B-q4f32_1-MLC');
    await offline.getByRole('button', { name: 'Download Qwen3 1.7B (q4f32)' }).click();
    const failure = offline.getByRole('alert');
    await failure.waitFor({ timeout: 60_000 });
    expect(await failure.textContent()).toMatch(
      /^The download of Qwen3-1\.7B-q4f32_1-MLC failed \(.+\)\. Check the connection and try again; finished parts are kept\.$/,
    );
    expect(await offline.getByRole('button', { name: 'Download Qwen3 1.7B (q4f32)' }).isEnabled()).toBe(true);
    expect(await offline.locator('td').nth(3).textContent()).toBe('no');

    const small = row('Qwen3-0.6B-q4f32_1-MLC');
    await small.getByRole('button', { name: 'Download Qwen3 0.6B (q4f32)' }).click();
    await expect.poll(() => small.locator('td').nth(3).textContent(), { timeout: 20_000 }).toBe('yes');
    expect(await small.locator('td').nth(4).textContent()).toBe('yes');
    await screenshot(page, 'models-download');
    expect(errors).toEqual([]);
  });
});
