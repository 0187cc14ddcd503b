/**
 * Market runs in IndexedDB: schema version 5 opens a version-4 database with its bilateral runs
 * untouched; a market tournament stored as it plays exports (JSON and parley-market-jsonl) and
 * imports back with the same markets and standings; a bad file writes nothing.
 */
import Dexie from 'dexie';
import { describe, expect, test } from 'vitest';
import { makeMarketAgent } from '../../src/agents/market';
import { ALL_MARKET_CONFIGS } from '../../src/core/market/scenario';
import { openDb, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, type ParleyDb } from '../../src/storage/db';
import { exportMarketJson, exportMarketJsonl, importMarketRun, marketStandings } from '../../src/storage/market-file';
import { createMarketRun, getMarketRun, listMarketRuns, loadMarkets, marketLine, MarketWriter, updateMarketRun } from '../../src/storage/market-runs';
import { tournamentOf, type MarketRunConfig } from '../../src/storage/market-schema';
import { listRuns, loadNegotiations } from '../../src/storage/runs';
import { exportRunJsonl, importRun } from '../../src/storage/transfer';
import { freshDb, storedTournament } from './helpers';
import { runTournament } from '../../src/core/engine/tournament';
import { marketGame } from '../../src/core/market/game';

const CONFIG: MarketRunConfig = {
  sellers: ['catalog', 'explore'],
  buyer: 'margin',
  configs: ALL_MARKET_CONFIGS.filter((c) => c.name === 'small' || c.name === 'held-out-4x9-lognormal').map((c) => ({ ...c })),
  marketsPerConfig: 3,
  seed: 11,
  samples: 200,
};

/** CONFIG played by the core and stored as the worker stores it: in plan order, through the writer. */
async function storedMarketRun(db: ParleyDb, id = 'market-run'): Promise<string> {
  await createMarketRun(db, { id, name: 'two sellers', config: CONFIG, planned: 12, createdAt: 5_000 });
  const writer = new MarketWriter(db, id, 0, () => 0);
  await runTournament(marketGame, tournamentOf(CONFIG), makeMarketAgent, { onResult: (r) => writer.add(marketLine(r)) });
  await writer.flush();
  await updateMarketRun(db, id, { status: 'done', standings: marketStandings(CONFIG, await loadMarkets(db, id)) });
  return id;
}

describe('market runs in storage', () => {
  test('version 5 opens a version-4 database with bilateral runs in it, and leaves them as they were', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    const v4 = new Dexie(name);
    v4.version(1).stores(SCHEMA_V1);
    v4.version(2).stores(SCHEMA_V2);
    v4.version(3).stores(SCHEMA_V3);
    v4.version(4).stores(SCHEMA_V4);
    const old = v4 as unknown as ParleyDb;
    const finished = await storedTournament(old, { id: 'bilateral', createdAt: 1_000 });
    const cut = await storedTournament(old, { id: 'cut-short', createdAt: 2_000, rows: 10 });
    const before = { runs: await listRuns(old), jsonl: [await exportRunJsonl(old, 'bilateral'), await exportRunJsonl(old, 'cut-short')] };
    v4.close();

    const db = openDb(name);
    try {
      await db.open();
      expect(db.verno).toBe(5);
      expect(await listRuns(db)).toEqual(before.runs);
      expect(await loadNegotiations(db, 'bilateral')).toEqual({ rows: finished.rows, total: 36 });
      expect(await loadNegotiations(db, 'cut-short')).toEqual({ rows: cut.rows, total: 10 });
      expect([await exportRunJsonl(db, 'bilateral'), await exportRunJsonl(db, 'cut-short')]).toEqual(before.jsonl);
      expect(await db.marketRuns.count()).toBe(0);
      // Market runs go in beside them, and touch none of them.
      await storedMarketRun(db);
      expect(await listMarketRuns(db)).toHaveLength(1);
      expect(await listRuns(db)).toEqual(before.runs);
    } finally {
      db.close();
      // Let the last auto-committing transaction finish, or the delete waits on it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await Dexie.delete(name);
    }
  });

  test.each(['json', 'jsonl'] as const)('a stored market tournament exported as %s imports back with the same markets and standings', async (format) => {
    const db = freshDb();
    const id = await storedMarketRun(db);
    const run = await getMarketRun(db, id);
    expect(run?.done).toBe(12);
    expect(run?.standings?.some((r) => r.heldOut && r.scope === 'config')).toBe(true);
    const text = format === 'json' ? await exportMarketJson(db, id) : await exportMarketJsonl(db, id);

    const other = freshDb();
    const imported = await importMarketRun(other, text, { now: 9_000 });
    if (!imported.ok) throw new Error(imported.error.message);
    expect(imported.value.id).toBe(id);
    expect(imported.value.standings).toEqual(run?.standings);
    expect(await loadMarkets(other, id)).toEqual(await loadMarkets(db, id));
    // Into the database it came from: a copy under a new id, named as one.
    const copy = await importMarketRun(db, text, { now: 9_000, newId: () => 'copy' });
    if (!copy.ok) throw new Error(copy.error.message);
    expect([copy.value.id, copy.value.name]).toEqual(['copy', 'two sellers (imported)']);
    expect(await loadMarkets(db, 'copy')).toEqual(await loadMarkets(db, id));
  });

  test('bilateral and market runs share one address space: an import whose id the other kind holds is stored under a new id', async () => {
    const db = freshDb();
    const marketId = await storedMarketRun(db, 'shared-id');
    await storedTournament(db, { id: 'bilateral' });
    const bilateralFile = (await exportRunJsonl(db, 'bilateral')).replace(/"id":"bilateral"/, `"id":"${marketId}"`);
    const bilateral = await importRun(db, bilateralFile, { now: 9_000, newId: () => 'fresh-bilateral' });
    expect(bilateral.ok && bilateral.value.id).toBe('fresh-bilateral');
    const marketFile = (await exportMarketJsonl(db, marketId)).replace(`"id":"${marketId}"`, '"id":"bilateral"');
    const market = await importMarketRun(db, marketFile, { now: 9_000, newId: () => 'fresh-market' });
    if (!market.ok) throw new Error(market.error.message);
    expect(market.value.id).toBe('fresh-market');
    expect((await listRuns(db)).map((r) => r.id).sort()).toEqual(['bilateral', 'fresh-bilateral']);
    expect((await listMarketRuns(db)).map((r) => r.id).sort()).toEqual(['fresh-market', 'shared-id']);
  });

  test('a file with one changed event is refused, naming it, and nothing is written', async () => {
    const db = freshDb();
    const text = await exportMarketJsonl(db, await storedMarketRun(db));
    const lines = text.split('\n');
    const market = JSON.parse(lines[5] as string);
    market.events[0].move.buyer = 'b99';
    lines[5] = JSON.stringify(market);
    const target = freshDb();
    const refused = await importMarketRun(target, lines.join('\n'), { now: 1 });
    expect(refused.ok ? null : refused.error.message).toMatch(/^line 6 \(market "small-2-0"\): events\[0\] \(move at turn 0\): an illegal move: unknown buyer "b99"/);
    expect(await target.marketRuns.count()).toBe(0);
    expect(await target.marketBatches.count()).toBe(0);
  });
});
