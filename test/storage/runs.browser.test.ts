import { describe, expect, test } from 'vitest';
import {
  createRun,
  deleteRun,
  forEachNegotiation,
  getRun,
  listRuns,
  liveRunIds,
  loadNegotiation,
  loadNegotiations,
  markInterrupted,
  runLockName,
  scanRun,
  storedJobIds,
  updateRun,
} from '../../src/storage/runs';
import { RunRecordSchema, type NegotiationRow } from '../../src/storage/schema';
import type { ParleyDb } from '../../src/storage/db';
import { RunWriter } from '../../src/storage/writer';
import { freshDb, storedTournament, TOURNAMENT_CONFIG, tournamentRows } from './helpers';

/** Stores rows through the writer in the order given, `maxBatch` to a batch record. */
async function store(db: ParleyDb, runId: string, rows: readonly NegotiationRow[], maxBatch: number): Promise<void> {
  const writer = new RunWriter(db, runId, { maxBatch, maxDelayMs: Infinity });
  for (const row of rows) await writer.add(row);
  await writer.flush();
}

describe('runs', () => {
  test('createRun stores a running run with no progress, and getRun reads it back', async () => {
    const db = freshDb();
    const run = await createRun(db, { name: 'first', config: TOURNAMENT_CONFIG, planned: 36, createdAt: 5 });
    expect(run).toEqual({
      id: run.id,
      game: 'bilateral',
      name: 'first',
      createdAt: 5,
      updatedAt: 5,
      status: 'running',
      config: TOURNAMENT_CONFIG,
      planned: 36,
      done: 0,
      standings: null,
      message: null,
    });
    expect(run.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await getRun(db, run.id)).toEqual(run);
    expect(await getRun(db, 'nope')).toBeUndefined();
    // What is stored is what the export schema accepts.
    expect(RunRecordSchema.safeParse(run).success).toBe(true);
  });

  test('createRun keeps a given id and refuses a taken one', async () => {
    const db = freshDb();
    await createRun(db, { id: 'r1', name: 'a', config: TOURNAMENT_CONFIG, planned: 1, createdAt: 1 });
    await expect(createRun(db, { id: 'r1', name: 'b', config: TOURNAMENT_CONFIG, planned: 1, createdAt: 2 })).rejects.toThrow();
    expect((await getRun(db, 'r1'))?.name).toBe('a');
  });

  test('listRuns lists newest first', async () => {
    const db = freshDb();
    for (const [id, createdAt] of [
      ['b', 20],
      ['a', 10],
      ['c', 30],
    ] as const)
      await createRun(db, { id, name: id, config: TOURNAMENT_CONFIG, planned: 1, createdAt });
    expect((await listRuns(db)).map((r) => r.id)).toEqual(['c', 'b', 'a']);
  });

  test('updateRun patches only the fields given; a missing run is ignored', async () => {
    const db = freshDb();
    const run = await createRun(db, { id: 'r', name: 'x', config: TOURNAMENT_CONFIG, planned: 9, createdAt: 1 });
    await updateRun(db, 'r', { status: 'paused', message: 'storage full', updatedAt: 50 });
    expect(await getRun(db, 'r')).toEqual({ ...run, status: 'paused', message: 'storage full', updatedAt: 50 });
    await updateRun(db, 'gone', { status: 'done' });
    expect(await getRun(db, 'gone')).toBeUndefined();
  });

  test('deleteRun removes the run and its negotiations and nothing of another run', async () => {
    const db = freshDb();
    const a = await storedTournament(db, { id: 'a' });
    const b = await storedTournament(db, { id: 'b', rows: 10 });
    // A run whose id is a prefix of another's must not take the other's negotiations with it.
    const ab = await storedTournament(db, { id: 'a:b', rows: 5 });
    const count = async (id: string) => (await loadNegotiations(db, id, { limit: 0 })).total;
    expect([await count('a'), await count('b'), await count('a:b')]).toEqual([36, 10, 5]);
    await deleteRun(db, 'a');
    expect(await getRun(db, 'a')).toBeUndefined();
    expect(await count('a')).toBe(0);
    expect((await db.batches.toArray()).map((r) => r.runId).sort()).toEqual(['a:b', 'b']);
    expect((await db.digests.toArray()).map((r) => r.runId).sort()).toEqual(['a:b', 'b']);
    expect((await loadNegotiations(db, 'b')).rows).toEqual(b.rows);
    expect((await loadNegotiations(db, 'a:b')).rows).toEqual(ab.rows);
    expect(await getRun(db, 'b')).toEqual(b.run);
    expect(await getRun(db, 'a:b')).toEqual(ab.run);
    expect(a.rows).toHaveLength(36);
  });
});

describe('interrupted runs', () => {
  const seed = async () => {
    const db = freshDb();
    for (const [id, status] of [
      ['live', 'running'],
      ['dead', 'running'],
      ['paused', 'paused'],
      ['done', 'done'],
    ] as const) {
      await createRun(db, { id, name: id, config: TOURNAMENT_CONFIG, planned: 1, createdAt: 1 });
      await updateRun(db, id, { status });
    }
    return db;
  };

  test('markInterrupted marks running runs that are not live, and only those', async () => {
    const db = await seed();
    const asked: string[] = [];
    const marked = await markInterrupted(db, async (id) => {
      asked.push(id);
      return id === 'live';
    });
    expect(marked).toEqual(['dead']);
    expect(asked.sort()).toEqual(['dead', 'live']);
    const statuses = Object.fromEntries((await listRuns(db)).map((r) => [r.id, r.status]));
    expect(statuses).toEqual({ live: 'running', dead: 'interrupted', paused: 'paused', done: 'done' });
    expect(await markInterrupted(db, () => false)).toEqual(['live']);
    expect(await markInterrupted(db, () => false)).toEqual([]);
  });

  test('a run that finishes while the predicate runs keeps its new status', async () => {
    const db = await seed();
    const marked = await markInterrupted(db, async (id) => {
      if (id === 'dead') await updateRun(db, 'dead', { status: 'done' });
      return false;
    });
    expect(marked).toEqual(['live']);
    expect((await getRun(db, 'dead'))?.status).toBe('done');
  });

  test('liveRunIds sees the Web Locks that workers hold, so a held run is not interrupted', async () => {
    const db = await seed();
    const uniq = crypto.randomUUID();
    await updateRun(db, 'live', { status: 'done' });
    await createRun(db, { id: `held-${uniq}`, name: 'held', config: TOURNAMENT_CONFIG, planned: 1, createdAt: 1 });
    let release!: () => void;
    let acquired!: () => void;
    const isHeld = new Promise<void>((r) => (acquired = r));
    const holding = navigator.locks.request(runLockName(`held-${uniq}`), () => {
      acquired();
      return new Promise<void>((r) => (release = r));
    });
    await isHeld;
    try {
      const live = await liveRunIds();
      expect(live.has(`held-${uniq}`)).toBe(true);
      expect(live.has('dead')).toBe(false);
      expect(await markInterrupted(db, (id) => live.has(id))).toEqual(['dead']);
      expect((await getRun(db, `held-${uniq}`))?.status).toBe('running');
    } finally {
      release();
      await holding;
    }
    const after = await liveRunIds();
    expect(after.has(`held-${uniq}`)).toBe(false);
    expect(await markInterrupted(db, (id) => after.has(id))).toEqual([`held-${uniq}`]);
  });

  test('runLockName is the name the worker locks', () => {
    expect(runLockName('abc')).toBe('parley-run:abc');
  });
});

describe('negotiations', () => {
  test('storedJobIds lists the job ids of one run only', async () => {
    const db = freshDb();
    const { rows } = await storedTournament(db, { id: 'r', rows: 12 });
    await storedTournament(db, { id: 'r2', rows: 36 });
    expect(await storedJobIds(db, 'r')).toEqual(new Set(rows.map((r) => r.jobId)));
    expect(await storedJobIds(db, 'nothing')).toEqual(new Set());
  });

  test('loadNegotiations pages through a run in plan order and counts all of it', async () => {
    const db = freshDb();
    const { rows } = await storedTournament(db, { id: 'r' });
    await storedTournament(db, { id: 'other' });
    const all = await loadNegotiations(db, 'r', {});
    expect(all.total).toBe(36);
    expect(all.rows).toEqual(rows);
    expect(all.rows.map((r) => r.index)).toEqual([...Array(36).keys()]);
    const page = await loadNegotiations(db, 'r', { offset: 10, limit: 5 });
    expect(page).toEqual({ rows: rows.slice(10, 15), total: 36 });
    expect(await loadNegotiations(db, 'r', { offset: 34, limit: 5 })).toEqual({ rows: rows.slice(34), total: 36 });
    expect(await loadNegotiations(db, 'r', { offset: 40, limit: 5 })).toEqual({ rows: [], total: 36 });
    expect(await loadNegotiations(db, 'r', { limit: 0 })).toEqual({ rows: [], total: 36 });
    expect(await loadNegotiations(db, 'none', {})).toEqual({ rows: [], total: 0 });
  });

  test('each filter, and filters together, select the matching rows and count them', async () => {
    const db = freshDb();
    const { rows } = await storedTournament(db, { id: 'r' });
    const outcomes = new Set(rows.map((r) => r.outcome));
    const tiers = new Set(rows.map((r) => r.tier));
    // The fixture must be varied enough for the filters to mean something.
    expect(outcomes.size).toBeGreaterThan(1);
    expect(tiers.size).toBeGreaterThan(1);
    const cases = [
      { buyer: 'hardliner' },
      { seller: 'conceder' },
      { outcome: [...outcomes][1] },
      { tier: [...tiers][0] },
      { buyer: 'boulware', seller: 'random' },
      { buyer: 'boulware', outcome: 'deal' as const, tier: [...tiers][0] },
      { buyer: 'nobody' },
    ];
    for (const filter of cases) {
      const want = rows.filter(
        (r) =>
          (filter.buyer === undefined || r.buyer === filter.buyer) &&
          ('seller' in filter ? r.seller === filter.seller : true) &&
          ('outcome' in filter ? r.outcome === filter.outcome : true) &&
          ('tier' in filter ? r.tier === filter.tier : true),
      );
      const got = await loadNegotiations(db, 'r', { filter });
      expect(got.total, JSON.stringify(filter)).toBe(want.length);
      expect(got.rows).toEqual(want);
      const page = await loadNegotiations(db, 'r', { filter, offset: 1, limit: 2 });
      expect(page).toEqual({ rows: want.slice(1, 3), total: want.length });
    }
    expect((await loadNegotiations(db, 'r', { filter: { buyer: 'hardliner' } })).total).toBe(9);
  });

  test('loadNegotiation reads one by run and job id', async () => {
    const db = freshDb();
    const { rows } = await storedTournament(db, { id: 'r' });
    const row = rows[7]!;
    expect(await loadNegotiation(db, 'r', row.jobId)).toEqual(row);
    expect(await loadNegotiation(db, 'other', row.jobId)).toBeUndefined();
  });

  test('forEachNegotiation visits a run in plan order and returns the count', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 0 });
    // Stored in reverse, read back in plan order.
    await store(db, 'r', (await tournamentRows('r')).reverse(), 5);
    await storedTournament(db, { id: 'q', rows: 4 });
    const seen: number[] = [];
    expect(await forEachNegotiation(db, 'r', (row) => void seen.push(row.index))).toBe(36);
    expect(seen).toEqual([...Array(36).keys()]);
    expect(await forEachNegotiation(db, 'none', () => undefined)).toBe(0);
  });

  test('batches written out of plan order (evens, then odds) are read in plan order by every reader', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 0 });
    const rows = await tournamentRows('r');
    await store(db, 'r', [...rows.filter((r) => r.index % 2 === 0), ...rows.filter((r) => r.index % 2 === 1)], 5);
    // Each batch holds every other negotiation, so every batch overlaps the next in plan order.
    expect(await db.batches.count()).toBe(8);
    const scanned: NegotiationRow[] = [];
    await scanRun(db, 'r', (chunk) => void scanned.push(...chunk));
    expect(scanned).toEqual(rows);
    expect(await loadNegotiations(db, 'r', { offset: 3, limit: 7 })).toEqual({ rows: rows.slice(3, 10), total: 36 });
    const filter = { seller: 'conceder' };
    expect(await loadNegotiations(db, 'r', { filter })).toEqual({ rows: rows.filter((r) => r.seller === 'conceder'), total: 9 });
    expect(await loadNegotiation(db, 'r', rows[7]!.jobId)).toEqual(rows[7]);
  });

  test('runs longer than one read chunk are read whole and in order', async () => {
    const db = freshDb();
    await createRun(db, { id: 'big', name: 'big', config: TOURNAMENT_CONFIG, planned: 1234, createdAt: 1 });
    const base = await tournamentRows('big');
    const rows = Array.from({ length: 1234 }, (_, i) => {
      const row = base[i % base.length]!;
      return { ...row, id: `big:j${i}`, jobId: `j${i}`, index: i };
    });
    // Batches of 300 written last first: reads of 500 cross their edges.
    await store(db, 'big', [...rows].reverse(), 300);
    expect(await db.batches.count()).toBe(5);
    const seen: number[] = [];
    expect(await forEachNegotiation(db, 'big', (row) => void seen.push(row.index))).toBe(1234);
    expect(seen).toEqual(rows.map((r) => r.index));
    expect((await storedJobIds(db, 'big')).size).toBe(1234);
    const filter = { seller: 'hardliner' };
    const want = rows.filter((r) => r.seller === 'hardliner');
    expect(await loadNegotiations(db, 'big', { filter, offset: 160, limit: 20 })).toEqual({
      rows: want.slice(160, 180),
      total: want.length,
    });
    expect(await loadNegotiations(db, 'big', { offset: 495, limit: 10 })).toEqual({ rows: rows.slice(495, 505), total: 1234 });
  });
});
