/**
 * An update never loses stored runs: the built app opens a database that the previous schema
 * version (3: one row per negotiation) wrote, with a finished tournament and an Arena game in it,
 * migrates it once, and shows both whole. test/storage/db.browser.test.ts checks the migration
 * itself, run by run and field by field; this is the same step as a user meets it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { openApp, screenshot, storedRows, storedRuns } from './pages';
import { standingsOf, TOURNAMENT, TOURNAMENT_CONFIG, tournamentRows } from '../storage/helpers';
import type { NegotiationRow, RunRow } from '../../src/storage/schema';

interface V3Run {
  run: RunRow;
  rows: NegotiationRow[];
}

async function previousVersionRuns(): Promise<V3Run[]> {
  const rows = await tournamentRows('old-tournament');
  const game = { ...rows[3]!, id: 'old-game:0', runId: 'old-game', jobId: '0', index: 0 };
  const run = (id: string, name: string, config: RunRow['config'], own: NegotiationRow[], createdAt: number): V3Run => ({
    run: { id, name, createdAt, updatedAt: createdAt, status: 'done', config, planned: own.length, done: own.length, standings: standingsOf(own, TOURNAMENT.seed), message: null },
    rows: own,
  });
  return [
    run('old-tournament', 'a tournament from the previous version', TOURNAMENT_CONFIG, rows, 1_000),
    run('old-game', 'an Arena game from the previous version', { kind: 'arena', buyer: game.buyer, seller: game.seller, scenario: game.scenario }, [game], 2_000),
  ];
}

/** Writes the database as version 3 of the app left it, with the raw IndexedDB API (Dexie stores version n as n × 10). */
function writeVersion3(page: Page, runs: V3Run[]): Promise<number> {
  return page.evaluate(async (stored) => {
    const open = indexedDB.open('parley', 30);
    open.onupgradeneeded = () => {
      const db = open.result;
      db.createObjectStore('runs', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
      db.createObjectStore('negotiations', { keyPath: 'id' }).createIndex('[runId+index]', ['runId', 'index']);
      db.createObjectStore('settings', { keyPath: 'key' });
      db.createObjectStore('digests', { keyPath: 'id' }).createIndex('[runId+first]', ['runId', 'first']);
      db.createObjectStore('keys', { keyPath: 'provider' });
      const tx = open.transaction!;
      for (const { run, rows } of stored) {
        tx.objectStore('runs').put(run);
        for (const row of rows) tx.objectStore('negotiations').put(row);
      }
    };
    const db: IDBDatabase = await new Promise((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const version = db.version;
    db.close();
    return version;
  }, runs);
}

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

  it('opens the previous version’s database, migrates it, and shows every run whole', async () => {
    const runs = await previousVersionRuns();
    // A file of the app's origin that is not the app, so nothing opens the database first.
    await page.goto(`${url}favicon.svg`);
    expect(await writeVersion3(page, runs)).toBe(30);

    await page.goto(`${url}#/runs`);
    for (const { run } of runs) await page.locator(`tr[data-run-id="${run.id}"]`).waitFor();
    expect(await page.locator('tr[data-run-id="old-tournament"]').textContent()).toContain('36 / 36');
    await screenshot(page, 'upgraded-runs');

    // Every negotiation moved into batch records, once, with the runs unchanged.
    const stored = await storedRuns(page);
    expect(stored.toSorted((a, b) => a.id.localeCompare(b.id))).toEqual(
      runs
        .map(({ run, rows }) => ({ id: run.id, status: 'done', done: rows.length, negotiations: rows.length, standings: run.standings }))
        .toSorted((a, b) => a.id.localeCompare(b.id)),
    );
    const batches = await storedRows<{ runId: string; negotiations: string[] }>(page, 'batches');
    const jobs = batches.flatMap((b) => b.negotiations.map((json) => `${b.runId}/${(JSON.parse(json) as { jobId: string }).jobId}`));
    expect(jobs.toSorted()).toEqual(runs.flatMap(({ run, rows }) => rows.map((r) => `${run.id}/${r.jobId}`)).toSorted());

    // The run opens from storage, and so does one of its negotiations.
    const last = runs[0]!.rows.at(-1)!;
    await page.goto(`${url}#/runs/old-tournament/${last.jobId}`);
    await page.getByRole('group', { name: 'Step through the events' }).waitFor();
    expect(errors).toEqual([]);
  });
});
