import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedRuns } from './pages';
import { startPacedModel, type PacedModel } from '../support/paced-model';

// The disk fills with a few dozen negotiations, not thousands: a remote model (test/support/
// paced-model.ts) whose every answer, once some negotiations are stored, carries 16,000 characters
// of thinking, kept on its move. It answers one call per 5 ms, so the run lasts seconds on any
// machine: the test sees the first negotiations stored before the answers grow.
const PACED = 'vllm:verbose';
const PLANNED = 6 * 40; // boulware, hardliner and the model: 6 ordered pairs × 40 scenarios

describe('a full disk', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let cdp: CDPSession;
  let model: PacedModel;

  beforeAll(async () => {
    model = await startPacedModel({ everyMs: 5 });
    ({ browser, page, url } = await openApp());
    cdp = await browser.context.newCDPSession(page);
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });

  it('pauses the run with a clear message, keeps what was written, and resumes once there is room', async () => {
    await page.goto(`${url}#/models`);
    await page.getByLabel('vLLM base URL').fill(model.baseUrl);
    await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
    const origin = new URL(url).origin;
    const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
    // A real quota from Chromium itself: about three megabytes more than is used now.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 3_000_000 });
    await configureTournament(page, ['boulware', 'hardliner'], 40, 2);
    await page.getByLabel('Agent', { exact: true }).selectOption('remote model…');
    await page.getByLabel('Remote model', { exact: true }).fill(PACED);
    await page.getByRole('button', { name: `Add ${PACED}` }).click();
    await page.getByRole('button', { name: `Run ${PLANNED} negotiations` }).click();
    await expect.poll(async () => (await storedRuns(page))[0]?.done ?? 0, { timeout: 60_000, interval: 50 }).toBeGreaterThan(0);
    model.think(16_000);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 120_000 });
    expect(await alert.textContent()).toMatch(/Storage is full.*paused after \d+ negotiations.*nothing already saved was lost/);
    await screenshot(page, 'storage-full');
    const [paused] = await storedRuns(page);
    // What was stored is all there and counted; the status itself is written when it fits (on a
    // disk this full it may not, and the run then shows as interrupted: not running, resumable).
    expect(paused!.negotiations).toBeGreaterThan(0);
    expect(paused!.negotiations).toBeLessThan(PLANNED);
    expect(paused!.done).toBe(paused!.negotiations);
    await page.goto(`${url}#/runs`);
    const row = page.locator(`tr[data-run-id="${paused!.id}"]`);
    await expect.poll(() => row.textContent()).toMatch(/paused|interrupted/);
    expect(await row.getByRole('button', { name: 'Resume' }).count()).toBe(1);
    await page.goto(`${url}#/tournament`);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    model.allow();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 120_000 });
    const [done] = await storedRuns(page);
    expect(done).toMatchObject({ status: 'done', done: PLANNED, negotiations: PLANNED });
  });
});

describe('a disk already full', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];
  let cdp: CDPSession;
  let origin: string;

  beforeAll(async () => {
    ({ browser, page, url, errors } = await openApp());
    cdp = await browser.context.newCDPSession(page);
    origin = new URL(url).origin;
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** No room for one more record: Chromium's own quota, set to what the origin uses now. */
  async function fill(): Promise<void> {
    const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage });
  }

  it('an Arena game says in words that it was played but not saved, and what to do', async () => {
    await page.goto(`${url}#/arena`);
    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await fill();
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Storage is full' });
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toMatch(
      /Storage is full, so this game was played but could not be saved\. Delete or export old runs on the Runs page to free space/,
    );
    expect(await page.getByText('QuotaExceededError').count()).toBe(0);
    // The game itself is on the page, and nothing half-stored is left behind.
    await page.getByRole('region', { name: 'Transcript' }).waitFor();
    expect(await storedRuns(page)).toEqual([]);
    await screenshot(page, 'storage-full-game');
    expect(errors).toEqual([]);
  });

  it('a market tournament that could not create its run says why and links to nothing', async () => {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await page.goto(`${url}#/market`);
    await page.getByLabel('Markets per configuration').fill('2');
    await fill();
    await page.getByRole('button', { name: 'Start the tournament' }).click();
    const notStored = page.getByTestId('run-not-stored');
    await notStored.waitFor({ timeout: 30_000 });
    expect(await notStored.textContent()).toContain('The run was never created, so there is nothing to open in Runs.');
    expect(await page.locator('.run-status').textContent()).toMatch(/failed: Storage is full, so the run could not be created and nothing of it was stored/);
    expect(await page.getByRole('link', { name: 'Open this run in Runs' }).count()).toBe(0);
    expect(await page.getByText('QuotaExceededError').count()).toBe(0);
    await screenshot(page, 'storage-full-market');
    expect(errors).toEqual([]);
  });
});
