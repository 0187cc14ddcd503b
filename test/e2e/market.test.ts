/**
 * The built app's Market page: a market played live and a market tournament, both kept after a
 * reload (as runs of the market game) and reopened from the Runs page with the same results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { openApp, screenshot, storedRows } from './pages';

describe('Market page', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];
  let standings = '';

  beforeAll(async () => {
    ({ browser, page, url, errors } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('plays a market and a market tournament from the Market page', async () => {
    await page.goto(`${url}#/market`);
    await page.getByRole('link', { name: 'Market' }).waitFor();
    expect(await page.getByRole('link', { name: 'Market' }).getAttribute('aria-current')).toBe('page');
    await page.getByLabel('Speed').selectOption('Fast');
    await page.getByLabel('Seed', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Play this market' }).click();
    await page.locator('.controls [role="status"]', { hasText: 'Finished' }).waitFor({ timeout: 30_000 });
    await page.locator('.market-metrics').waitFor();
    expect(await page.locator('.market-metrics > div').count()).toBe(9);
    await page.getByLabel('Markets per configuration').fill('3');
    await page.getByRole('button', { name: 'Start the tournament' }).click();
    await page.getByRole('link', { name: 'Open this run in Runs' }).waitFor({ timeout: 60_000 });
    standings = (await page.locator('.market-standings').textContent()) ?? '';
    expect(standings).toContain('held-out-7x5-segmented (held out)');
    await screenshot(page, 'market');
  });

  it('keeps both after a reload, listed as market runs, and reopens the tournament with the same standings', async () => {
    await page.reload();
    await page.goto(`${url}#/runs`);
    const rows = page.locator('section[aria-labelledby="market-runs-title"] tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    const tournament = rows.filter({ hasText: 'market tournament' });
    expect(await tournament.textContent()).toContain('done');
    expect(await rows.filter({ hasText: 'market game' }).count()).toBe(1);
    // Both stored in the one store, as runs of the market game.
    const stored = await storedRows<{ game: string; done: number }>(page, 'runs');
    expect(stored.map((r) => [r.game, r.done]).toSorted()).toEqual([
      ['market', 1],
      ['market', 27],
    ]);
    await tournament.getByRole('link').click();
    await page.locator('.market-standings').waitFor();
    expect(await page.locator('.market-standings').textContent()).toBe(standings);
    await expect.poll(() => page.locator('table.markets tbody tr').count()).toBe(27);
    expect(errors).toEqual([]);
  });
});
