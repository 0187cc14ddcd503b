import { describe, expect, onTestFinished, test } from 'vitest';
import { ParleyDb, openDb } from '../../src/storage/db';
import { getRun, listRuns, loadNegotiations } from '../../src/storage/runs';
import { NegotiationRowSchema, RunRecordSchema, type RunRow } from '../../src/storage/schema';
import { TOURNAMENT_CONFIG, tournamentRows } from './helpers';

const request = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

/** A database built the way version 1 of ParleyDb built it, with the raw IndexedDB API (Dexie stores version n as n × 10). */
async function rawV1(name: string, fill: (tx: IDBTransaction) => void): Promise<void> {
  const open = indexedDB.open(name, 10);
  open.onupgradeneeded = () => {
    const db = open.result;
    db.createObjectStore('runs', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
    db.createObjectStore('negotiations', { keyPath: 'id' }).createIndex('[runId+index]', ['runId', 'index']);
    db.createObjectStore('settings', { keyPath: 'key' });
    fill(open.transaction as IDBTransaction);
  };
  const db = await request(open);
  db.close();
}

function cleanup(name: string) {
  onTestFinished(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await request(indexedDB.deleteDatabase(name));
  });
}

const v1Run = (id: string, createdAt: number): RunRow => ({
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
      // Opening with today's code migrated it to version 3: version 2 digests the stored negotiations.
      expect(db.verno).toBe(3);
      expect(await db.keys.count()).toBe(0);
      const digested = await loadNegotiations(db, 'old', { filter: { outcome: rows[1]!.outcome } });
      expect(digested.rows).toEqual(rows.filter((r) => r.outcome === rows[1]!.outcome));
      expect(await db.digests.count()).toBeGreaterThan(0);
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
        this.version(4)
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
      expect(db.verno).toBe(4);
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

  test('a new database has exactly the version-3 tables and indexes', async () => {
    const name = `parley-test-${crypto.randomUUID()}`;
    cleanup(name);
    const db = openDb(name);
    await db.open();
    const schema = Object.fromEntries(
      db.tables.map((t) => [t.name, [t.schema.primKey.name, ...t.schema.indexes.map((i) => i.name)].join(', ')]),
    );
    db.close();
    expect(schema).toEqual({
      runs: 'id, createdAt',
      negotiations: 'id, [runId+index]',
      settings: 'key',
      digests: 'id, [runId+first]',
      keys: 'provider',
    });
  });
});
