import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedRuns } from './pages';

const AGENTS = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator'];
const SCENARIOS = 200; // 30 ordered pairs × 200 = 6,000 negotiations

async function startRun(page: Page, url: string): Promise<void> {
  await page.goto(`${url}#/tournament`);
  await configureTournament(page, AGENTS, SCENARIOS, 9);
  await page.getByRole('button', { name: 'Run 6,000 negotiations' }).click();
}

describe('an interrupted run', () => {
  let browser: Browser;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    ({ browser, page, url } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('is shown as interrupted after a reload and resumes to the same results as an uninterrupted run', async () => {
    await startRun(page, url);
    // Reload (which ends the worker) as soon as some negotiations are stored, well before the end.
    await expect.poll(async () => (await storedRuns(page))[0]?.done ?? 0, { timeout: 60_000, interval: 50 }).toBeGreaterThan(0);
    await page.reload();
    const [interrupted] = await storedRuns(page);
    expect(interrupted!.negotiations).toBeLessThan(6000);
    expect(interrupted!.negotiations).toBe(interrupted!.done);

    await page.goto(`${url}#/runs`);
    const row = page.locator(`tr[data-run-id="${interrupted!.id}"]`);
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('interrupted');
    await screenshot(page, 'runs-interrupted');
    await row.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 120_000 });

    await startRun(page, url);
    await page.getByText('Finished.').waitFor({ timeout: 120_000 });
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run).toMatchObject({ status: 'done', done: 6000, negotiations: 6000 });
    expect(runs[0]!.standings).toEqual(runs[1]!.standings);
  });
});
