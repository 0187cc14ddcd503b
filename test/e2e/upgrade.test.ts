/**
 * An update never loses stored runs: the built app opens a database that the previous schema
 * version (5: market runs in tables of their own) wrote, with runs of both games in it
 * (test/fixtures/runs-v5: a bilateral tournament, an Arena game, a market tournament and a market
 * game), migrates it once, and shows every run whole. test/storage/one-store.browser.test.ts checks
 * the migration itself, run by run against each run's old export; this is the same step as a user meets it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { openApp, screenshot, storedRows, storedRuns } from './pages';
import database from '../fixtures/runs-v5/database.json';
import { writeRawV5, type Rows } from '../storage/raw-v5';

describe('an update with stored runs', () => {
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

  it('opens the previous version’s database, migrates it, and shows every run of both games whole', async () => {
    // A file of the app's origin that is not the app, so nothing opens the database first.
    await page.goto(`${url}favicon.svg`);
    expect(await page.evaluate(writeRawV5, { name: 'parley', rows: database as unknown as Rows })).toBe(50);

    await page.goto(`${url}#/runs`);
    for (const { id } of [...database.runs, ...database.marketRuns]) await page.locator(`tr[data-run-id="${id}"]`).waitFor();
    expect(await page.locator('tr[data-run-id="v5-tournament"]').textContent()).toContain('4 / 4');
    const markets = page.locator('section[aria-labelledby="market-runs-title"]');
    expect(await markets.locator('tr[data-run-id="v5-market-tournament"]').textContent()).toContain('4 / 4');
    expect(await markets.locator('tr[data-run-id="v5-market-game"]').textContent()).toContain('market game');
    await screenshot(page, 'upgraded-runs');

    // One store: every run in `runs`, marked with its game, and every line in batch records.
    const stored = await storedRuns(page);
    const expected = [
      ...database.runs.map((r) => ({ id: r.id, status: r.status, done: r.done, negotiations: r.done, standings: r.standings })),
      ...database.marketRuns.map((r) => ({ id: r.id, status: r.status, done: r.done, negotiations: r.done, standings: r.standings })),
    ];
    expect(stored.toSorted((a, b) => a.id.localeCompare(b.id))).toEqual(expected.toSorted((a, b) => a.id.localeCompare(b.id)));
    const games = Object.fromEntries((await storedRows<{ id: string; game: string }>(page, 'runs')).map((r) => [r.id, r.game]));
    expect(games).toEqual({ 'v5-tournament': 'bilateral', 'v5-arena': 'bilateral', 'v5-market-tournament': 'market', 'v5-market-game': 'market' });

    // A market run opens from storage with its standings and markets, and a bilateral one with a negotiation.
    await page.goto(`${url}#/runs/v5-market-tournament`);
    await page.locator('.market-standings').waitFor();
    await expect.poll(() => page.locator('table.markets tbody tr').count()).toBe(4);
    const jobId = (JSON.parse(database.batches.find((b) => b.runId === 'v5-tournament')!.negotiations.at(-1)!) as { jobId: string }).jobId;
    await page.goto(`${url}#/runs/v5-tournament/${jobId}`);
    await page.getByRole('group', { name: 'Step through the events' }).waitFor();
    expect(errors).toEqual([]);
  });
});
