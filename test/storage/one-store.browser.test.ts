/**
 * Version 6 keeps both games in one store. A version-5 database as that version's code wrote it
 * (test/fixtures/runs-v5: a bilateral tournament, an Arena game, a market tournament and a market
 * game), built with the raw IndexedDB API and opened with ParleyDb, reads every run as it was and
 * exports each one as the same run and lines as that code's own export of it (the files beside
 * the database); a market run whose record is damaged stays damaged, and its salvage reads what it can.
 */
import { describe, expect, onTestFinished, test } from 'vitest';
import { openDb } from '../../src/storage/db';
import type { Game } from '../../src/storage/games';
import { readRunFile } from '../../src/storage/run-file';
import { getRun, loadLines, loadNegotiations, readRun, readRuns, salvageRun, storedJobIds } from '../../src/storage/runs';
import { exportRunJson, exportRunJsonl } from '../../src/storage/transfer';
import { RunWriter } from '../../src/storage/writer';
import database from '../fixtures/runs-v5/database.json';
import { writeRawV5, type Rows } from './raw-v5';

const files = import.meta.glob<string>('../fixtures/runs-v5/*.json*', { query: '?raw', import: 'default', eager: true });
const file = (name: string): string => files[`../fixtures/runs-v5/${name}`] as string;

const request = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

/** Each run of the fixture: its game, and the two files that code exported it as. */
const RUNS: [string, Game, string][] = [
  ['v5-tournament', 'bilateral', 'bilateral-tournament'],
  ['v5-arena', 'bilateral', 'arena-game'],
  ['v5-market-tournament', 'market', 'market-tournament'],
  ['v5-market-game', 'market', 'market-game'],
];

/** A market run as version 5 could hold one damaged: a record without a config, a market that is not JSON. */
const marketGameBatch = (database.marketBatches as { markets: string[] }[]).find((b) => b.markets.length === 1)!;
const damaged: Rows = {
  marketRuns: [
    {
      id: 'v5-market-broken',
      name: 'a market run with no config',
      createdAt: 7_000,
      updatedAt: 7_000,
      status: 'done',
      config: null,
      planned: 2,
      done: 2,
      message: null,
      standings: null,
    },
  ],
  marketBatches: [{ id: 'v5-market-broken:0', runId: 'v5-market-broken', first: 0, markets: [marketGameBatch.markets[0], '{ not json'] }],
};

describe('version 6: one store for both games', () => {
  test('opens a version-5 database with runs of both games; every run reads as it did and exports as that version exported it', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    onTestFinished(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      await request(indexedDB.deleteDatabase(name));
    });
    await writeRawV5({
      name,
      rows: {
        ...(database as unknown as Rows),
        marketRuns: [...database.marketRuns, ...damaged.marketRuns!],
        marketBatches: [...database.marketBatches, ...damaged.marketBatches!],
      },
    });

    const db = openDb(name);
    try {
      await db.open();
      expect(db.verno).toBe(6);
      expect(db.tables.map((t) => t.name).sort()).toEqual(['batches', 'digests', 'keys', 'runs', 'settings']);
      // Each run's record is as it was, with its game; the bilateral batch records are not rewritten.
      for (const stored of database.runs) expect(await getRun(db, stored.id)).toEqual({ ...stored, game: 'bilateral' });
      for (const stored of database.marketRuns) expect(await getRun(db, stored.id, 'market')).toEqual({ ...stored, game: 'market' });
      for (const batch of database.batches) expect(await db.batches.get(batch.id)).toEqual(batch);
      expect((await db.digests.toArray()).map((d) => [d.id, d.game])).toEqual([
        ['v5-arena:0', 'bilateral'],
        ['v5-market-broken:0', 'market'],
        ['v5-market-game:0', 'market'],
        ['v5-market-tournament:0', 'market'],
        ['v5-tournament:0', 'bilateral'],
      ]);
      expect((await readRuns(db)).runs.map((r) => r.id)).toEqual(['v5-arena', 'v5-tournament']);
      const markets = await readRuns(db, 'market');
      expect(markets.runs.map((r) => r.id)).toEqual(['v5-market-game', 'v5-market-tournament']);

      for (const [id, game, exported] of RUNS) {
        for (const [format, text] of [
          ['json', await exportRunJson(db, id)],
          ['jsonl', await exportRunJsonl(db, id)],
        ] as const) {
          const before = readRunFile(file(`${exported}.${format}`), undefined, 'any');
          const after = readRunFile(text, undefined, 'any');
          if (!before.ok || !after.ok) throw new Error(`${id} ${format}: ${before.ok ? '' : before.error.message} ${after.ok ? '' : after.error.message}`);
          expect(after.value, `${id} ${format}`).toEqual(before.value);
          expect(after.value.game).toBe(game);
          // A bilateral run's file is the same text, with its game named in the header.
          if (game === 'bilateral')
            expect(text).toBe(file(`${exported}.${format}`).replace(/^(\{"format":"parley-run(-jsonl)?","version":2,)/, '$1"game":"bilateral",'));
        }
        const checked = await readRun(db, id, game);
        expect(checked?.ok, id).toBe(true);
      }
      // Lines read back through the digests; resume knows each stored market by its job id.
      const tournament = readRunFile(file('market-tournament.jsonl'), undefined, 'market');
      if (!tournament.ok) throw new Error(tournament.error.message);
      expect((await loadLines(db, 'v5-market-tournament', 'market')).lines).toEqual(tournament.value.rows);
      expect(await storedJobIds(db, 'v5-market-tournament')).toEqual(new Set(tournament.value.rows.map((m) => m.id)));
      expect((await loadNegotiations(db, 'v5-tournament', { filter: { buyer: 'boulware' } })).total).toBe(2);
      const writer = new RunWriter(db, 'v5-market-tournament', { game: 'market' });
      await writer.add(tournament.value.rows[1]!);
      await writer.flush();
      expect((await getRun(db, 'v5-market-tournament', 'market'))?.done).toBe(4);

      // The damaged market run is listed as damaged, and what can be read of it is kept.
      expect(markets.damaged).toEqual([
        { game: 'market', id: 'v5-market-broken', name: 'a market run with no config', createdAt: 7_000, problem: expect.stringMatching(/^config: /) },
      ]);
      const salvage = JSON.parse((await salvageRun(db, 'v5-market-broken'))!.text) as {
        game: string;
        record: unknown;
        markets: { id: string; index: number }[];
        unreadable: unknown[];
      };
      expect(salvage).toMatchObject({
        game: 'market',
        record: { ...damaged.marketRuns![0], game: 'market' },
        unreadable: [{ batch: 'v5-market-broken:0', at: 1, problem: 'not JSON' }],
      });
      expect(salvage.markets.map((m) => [m.id, m.index])).toEqual([[JSON.parse(marketGameBatch.markets[0]!).id, 0]]);
    } finally {
      db.close();
    }
  });
});
