import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedRuns } from './pages';

describe('a full disk', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let cdp: CDPSession;

  beforeAll(async () => {
    ({ browser, page, url } = await openApp());
    cdp = await browser.context.newCDPSession(page);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('pauses the run with a clear message, keeps what was written, and resumes once there is room', async () => {
    await page.goto(`${url}#/tournament`);
    const origin = new URL(url).origin;
    const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
    // A real quota from Chromium itself: about three megabytes more than is used now.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 3_000_000 });
    await configureTournament(page, ['boulware', 'linear', 'conceder', 'hardliner'], 400, 2);
    await page.getByRole('button', { name: 'Run 4,800 negotiations' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 120_000 });
    expect(await alert.textContent()).toMatch(/Storage is full.*paused after \d+ negotiations.*nothing already saved was lost/);
    await screenshot(page, 'storage-full');
    const [paused] = await storedRuns(page);
    // What was stored is all there and counted; the status itself is written when it fits (on a
    // disk this full it may not, and the run then shows as interrupted: not running, resumable).
    expect(paused!.negotiations).toBeGreaterThan(0);
    expect(paused!.negotiations).toBeLessThan(4800);
    expect(paused!.done).toBe(paused!.negotiations);
    await page.goto(`${url}#/runs`);
    const row = page.locator(`tr[data-run-id="${paused!.id}"]`);
    await expect.poll(() => row.textContent()).toMatch(/paused|interrupted/);
    expect(await row.getByRole('button', { name: 'Resume' }).count()).toBe(1);
    await page.goto(`${url}#/tournament`);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 120_000 });
    const [done] = await storedRuns(page);
    expect(done).toMatchObject({ status: 'done', done: 4800, negotiations: 4800 });
  });
});
