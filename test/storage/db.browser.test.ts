import { describe, expect, onTestFinished, test } from 'vitest';
import { ParleyDb, openDb } from '../../src/storage/db';
import { batchOf } from '../../src/storage/batches';
import { bilateralStore } from '../../src/storage/games/bilateral';
import { getRun, listRuns, loadNegotiation, loadNegotiations, scanRun, storedJobIds } from '../../src/storage/runs';
import { NegotiationRowSchema, RunRecordSchema, type NegotiationRow, type RunConfig, type RunRow } from '../../src/storage/schema';
import { exportRunJson, exportRunJsonl } from '../../src/storage/transfer';
import { freshDb, standingsOf, storeRows, TOURNAMENT, TOURNAMENT_CONFIG, tournamentRows, withModelCalls } from './helpers';

const request = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

/**
 * A database built the way version 1 of ParleyDb built it, or version 3 (which added digests and
 * keys), with the raw IndexedDB API (Dexie stores version n as n × 10).
 */
async function rawDb(name: string, version: 1 | 3, fill: (tx: IDBTransaction) => void): Promise<void> {
  const open = indexedDB.open(name, version * 10);
  open.onupgradeneeded = () => {
    const db = open.result;
    db.createObjectStore('runs', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
    db.createObjectStore('negotiations', { keyPath: 'id' }).createIndex('[runId+index]', ['runId', 'index']);
    db.createObjectStore('settings', { keyPath: 'key' });
    if (version === 3) {
      db.createObjectStore('digests', { keyPath: 'id' }).createIndex('[runId+first]', ['runId', 'first']);
      db.createObjectStore('keys', { keyPath: 'provider' });
    }
    fill(open.transaction as IDBTransaction);
  };
  const db = await request(open);
  db.close();
}
const rawV1 = (name: string, fill: (tx: IDBTransaction) => void) => rawDb(name, 1, fill);

function cleanup(name: string) {
  onTestFinished(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await request(indexedDB.deleteDatabase(name));
  });
}

/** A run row as versions 1 to 5 stored one: bilateral, and without a game. */
type OldRun = Omit<RunRow, 'game'>;

const v1Run = (id: string, createdAt: number): OldRun => ({
  id,
  name: `run ${id}`,
  createdAt,
  updatedAt: createdAt,
  status: 'interrupted',
  config: TOURNAMENT_CONFIG,
  planned: 36,
  done: 3,
  standings: null,
  message: null,
});

/** A stored run and its negotiations, as any version holds them. */
interface StoredRun {
  run: OldRun;
  rows: NegotiationRow[];
}

/** Runs of every kind version 3 held: finished, cut short, long, with model calls, an arena game, empty. */
async function v3Runs(): Promise<StoredRun[]> {
  const base = await tournamentRows('x');
  const own = (runId: string, rows: NegotiationRow[]) => rows.map((r) => ({ ...r, id: `${runId}:${r.jobId}`, runId }));
  let createdAt = 100;
  const stored = (id: string, rows: NegotiationRow[], planned: number, config: RunConfig = TOURNAMENT_CONFIG): StoredRun => ({
    run: {
      id,
      name: `run ${id}`,
      createdAt: createdAt++,
      updatedAt: 200,
      status: rows.length === planned ? 'done' : 'interrupted',
      config,
      planned,
      done: rows.length,
      standings: rows.length > 0 ? standingsOf(rows, TOURNAMENT.seed) : null,
      message: null,
    },
    rows: own(id, rows),
  });
  const long = Array.from({ length: 1234 }, (_, i) => ({ ...base[i % base.length]!, jobId: `j${i}`, index: i }));
  const game = base[3]!;
  return [
    stored('done', base, 36),
    stored('cut', base.slice(0, 10), 36),
    // A run whose id is another's with a colon: neither may take the other's negotiations.
    stored('done:2', base.slice(0, 5), 36),
    stored('long', long, 1234),
    stored('model', base.slice(0, 12).map(withModelCalls), 36),
    stored('arena', [{ ...game, jobId: '0', index: 0 }], 1, { kind: 'arena', buyer: game.buyer, seller: game.seller, scenario: game.scenario }),
    stored('empty', [], 36),
  ];
}

/** Digests as version 3's writer left them: one per written batch of 4, without indexes or game, a replayed batch twice. */
function v3Digests({ run, rows }: StoredRun): object[] {
  const v3 = (chunk: NegotiationRow[]) => {
    const { indexes: _indexes, game: _game, ...old } = batchOf(bilateralStore, run.id, chunk).digest;
    return old;
  };
  const digests: object[] = [];
  for (let i = 0; i < rows.length; i += 4) digests.push(v3(rows.slice(i, i + 4)));
  if (rows.length > 6) digests.push(v3(rows.slice(2, 6)));
  return digests;
}

/** A run as today's code reads it back: every run row names its game. */
const marked = (run: OldRun): RunRow => ({ ...run, game: 'bilateral' });

describe('ParleyDb versions', () => {
  test('opens a version-1 database written without Dexie and reads its rows through the indexes', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    cleanup(name);
    const rows = (await tournamentRows('old')).slice(0, 3);
    await rawV1(name, (tx) => {
      tx.objectStore('runs').put(v1Run('old', 10));
      tx.objectStore('runs').put(v1Run('older', 5));
      for (const row of [...rows].reverse()) tx.objectStore('negotiations').put(row);
      tx.objectStore('settings').put({ key: 'theme', value: 'dark' });
    });
    const db = openDb(name);
    try {
      expect((await listRuns(db)).map((r) => r.id)).toEqual(['old', 'older']);
      const run = await getRun(db, 'old');
      expect(RunRecordSchema.safeParse(run).success).toBe(true);
      const page = await loadNegotiations(db, 'old', {});
      expect(page.total).toBe(3);
      expect(page.rows).toEqual(rows);
      for (const row of page.rows) expect(NegotiationRowSchema.safeParse(row).success).toBe(true);
      expect(await db.settings.get('theme')).toEqual({ key: 'theme', value: 'dark' });
      // Opening with today's code migrated it to version 6: version 2 digests the stored
      // negotiations, version 4 moves them into batch records, version 5 adds the market tables and
      // version 6 folds them into these (test/storage/one-store.browser.test.ts), marking every run.
      expect(db.verno).toBe(6);
      expect((await db.runs.toArray()).map((r) => r.game)).toEqual(['bilateral', 'bilateral']);
      expect(await db.batches.count()).toBe(1);
      expect(await db.keys.count()).toBe(0);
      const digested = await loadNegotiations(db, 'old', { filter: { outcome: rows[1]!.outcome } });
      expect(digested.rows).toEqual(rows.filter((r) => r.outcome === rows[1]!.outcome));
      expect(await db.digests.count()).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  test('opens a version-3 database with stored runs and finds every run intact in batch records', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    cleanup(name);
    const runs = await v3Runs();
    await rawDb(name, 3, (tx) => {
      for (const { run, rows } of runs) {
        tx.objectStore('runs').put(run);
        for (const row of rows) tx.objectStore('negotiations').put(row);
        for (const digest of v3Digests({ run, rows })) tx.objectStore('digests').put(digest);
      }
      tx.objectStore('settings').put({ key: 'theme', value: 'dark' });
      tx.objectStore('keys').put({ provider: 'openai', apiKey: 'sk-test', baseUrl: '' });
    });
    // The same runs stored by today's code, to compare reads and exports with.
    const reference = freshDb();
    for (const { run, rows } of runs) {
      await reference.runs.put(marked(run));
      await storeRows(reference, run.id, rows);
    }

    const db = openDb(name);
    try {
      expect(db.verno).toBe(6);
      await db.open();
      expect(db.tables.map((t) => t.name).sort()).toEqual(['batches', 'digests', 'keys', 'runs', 'settings']);
      expect((db.backendDB().objectStoreNames as DOMStringList).contains('negotiations')).toBe(false);
      expect(await db.settings.get('theme')).toEqual({ key: 'theme', value: 'dark' });
      expect(await db.keys.get('openai')).toEqual({ provider: 'openai', apiKey: 'sk-test', baseUrl: '' });
      expect(await listRuns(db)).toEqual(runs.map((r) => marked(r.run)).sort((a, b) => b.createdAt - a.createdAt));

      for (const { run, rows } of runs) {
        const scanned: NegotiationRow[] = [];
        await scanRun(db, run.id, (chunk) => void scanned.push(...chunk));
        expect(scanned, run.id).toEqual(rows);
        for (const row of scanned) expect(NegotiationRowSchema.parse(row)).toEqual(row);
        expect(await storedJobIds(db, run.id)).toEqual(new Set(rows.map((r) => r.jobId)));
        expect(await loadNegotiations(db, run.id, { offset: 3, limit: 4 })).toEqual({ rows: rows.slice(3, 7), total: rows.length });
        for (const filter of [{ outcome: rows[1]?.outcome }, { buyer: 'hardliner', tier: rows[0]?.tier }, { seller: 'random' }]) {
          const want = rows.filter(
            (r) =>
              (filter.outcome === undefined || r.outcome === filter.outcome) &&
              (!('buyer' in filter) || r.buyer === filter.buyer) &&
              (!('tier' in filter) || r.tier === filter.tier) &&
              (!('seller' in filter) || r.seller === filter.seller),
          );
          expect(await loadNegotiations(db, run.id, { filter }), `${run.id} ${JSON.stringify(filter)}`).toEqual({ rows: want, total: want.length });
        }
        if (rows.length > 0) expect(await loadNegotiation(db, run.id, rows.at(-1)!.jobId)).toEqual(rows.at(-1));
        expect(await exportRunJson(db, run.id)).toBe(await exportRunJson(reference, run.id));
        expect(await exportRunJsonl(db, run.id)).toBe(await exportRunJsonl(reference, run.id));
      }
      // Every digest is rebuilt to match its batch record; none of version 3's is left.
      const batches = await db.batches.orderBy('[runId+first]').toArray();
      const digests = await db.digests.orderBy('[runId+first]').toArray();
      expect(digests.map((d) => d.id)).toEqual(batches.map((b) => b.id));
      for (const [i, digest] of digests.entries()) {
        expect(digest.game).toBe('bilateral');
        expect(digest.indexes).toHaveLength(batches[i]!.count);
        expect(batches[i]!.negotiations).toHaveLength(batches[i]!.count);
      }
      // The long run is three batch records of up to 500, the others one each.
      expect(batches.filter((b) => b.runId === 'long').map((b) => b.count)).toEqual([500, 500, 234]);
      expect(batches).toHaveLength(3 + 5);
    } finally {
      db.close();
    }
  });

  test('a later version with an upgrade migrates a version-1 database (the pattern db.ts describes)', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    cleanup(name);
    await rawV1(name, (tx) => {
      tx.objectStore('runs').put(v1Run('a', 1));
      tx.objectStore('runs').put({ ...v1Run('b', 2), status: 'done', done: 36 });
    });
    class NextParleyDb extends ParleyDb {
      constructor(dbName: string) {
        super(dbName);
        this.version(7)
          .stores({ runs: 'id, createdAt, status' })
          .upgrade(async (tx) => {
            await tx
              .table('runs')
              .toCollection()
              .modify((run: RunRow) => {
                run.message = `migrated from ${run.status}`;
              });
          });
      }
    }
    const db = new NextParleyDb(name);
    try {
      expect((await db.runs.where('status').equals('done').toArray()).map((r) => r.id)).toEqual(['b']);
      expect((await getRun(db, 'a'))?.message).toBe('migrated from interrupted');
      expect(db.verno).toBe(7);
    } finally {
      db.close();
    }
    // Dexie 4 opens a database newer than its code as it is found, so an older tab still reads it.
    const old = openDb(name);
    try {
      expect((await listRuns(old)).map((r) => r.message)).toEqual(['migrated from done', 'migrated from interrupted']);
    } finally {
      old.close();
    }
  });

  test('a new database has exactly the version-6 tables and indexes', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    cleanup(name);
    const db = openDb(name);
    await db.open();
    const schema = Object.fromEntries(db.tables.map((t) => [t.name, [t.schema.primKey.name, ...t.schema.indexes.map((i) => i.name)].join(', ')]));
    db.close();
    expect(schema).toEqual({
      runs: 'id, createdAt',
      settings: 'key',
      digests: 'id, [runId+first]',
      keys: 'provider',
      batches: 'id, [runId+first]',
    });
  });
});
