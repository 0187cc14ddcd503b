import { describe, expect, test } from 'vitest';
import type { ParleyDb } from '../../src/storage/db';
import { createRun, deleteRun, getRun, loadNegotiation, loadNegotiations } from '../../src/storage/runs';
import { NegotiationRowSchema } from '../../src/storage/schema';
import { RunWriter, StorageFullError } from '../../src/storage/writer';
import { bucketUsage, bulky, dbWithQuota, freshDb, TOURNAMENT_CONFIG, tournamentRows, withModelCalls } from './helpers';

async function setup(runId = 'r') {
  const db = freshDb();
  await createRun(db, { id: runId, name: 'run', config: TOURNAMENT_CONFIG, planned: 36, createdAt: 0 });
  return { db, rows: await tournamentRows(runId) };
}

const stored = async (db: ParleyDb, runId = 'r') => (await loadNegotiations(db, runId, { limit: 0 })).total;
const storedRows = async (db: ParleyDb, runId = 'r') => (await loadNegotiations(db, runId)).rows;
const progress = async (db: ParleyDb, runId = 'r') => {
  const run = await getRun(db, runId);
  return { done: run?.done, updatedAt: run?.updatedAt, rows: await stored(db, runId) };
};

describe('RunWriter on a bilateral run', () => {
  test('writes a batch when it is full, and the rest on flush', async () => {
    const { db, rows } = await setup();
    let t = 0;
    const writer = new RunWriter(db, 'r', { maxBatch: 5, maxDelayMs: Infinity, now: () => t });
    for (const row of rows.slice(0, 4)) await writer.add(row);
    expect(await progress(db)).toEqual({ done: 0, updatedAt: 0, rows: 0 });
    expect(writer.buffered).toBe(4);
    t = 7;
    await writer.add(rows[4]!);
    expect(await progress(db)).toEqual({ done: 5, updatedAt: 7, rows: 5 });
    expect(writer.buffered).toBe(0);
    for (const row of rows.slice(5, 8)) await writer.add(row);
    expect(await progress(db)).toEqual({ done: 5, updatedAt: 7, rows: 5 });
    t = 9;
    await writer.flush();
    expect(await progress(db)).toEqual({ done: 8, updatedAt: 9, rows: 8 });
    expect((await storedRows(db)).map((r) => r.jobId)).toEqual(rows.slice(0, 8).map((r) => r.jobId));
    await writer.flush();
    expect(await progress(db)).toEqual({ done: 8, updatedAt: 9, rows: 8 });
  });

  test('writes when maxDelayMs has passed since the last write, by the injected clock', async () => {
    const { db, rows } = await setup();
    let t = 1000;
    const writer = new RunWriter(db, 'r', { maxBatch: 500, maxDelayMs: 100, now: () => t });
    t = 1010;
    await writer.add(rows[0]!);
    t = 1099;
    await writer.add(rows[1]!);
    expect(await stored(db)).toBe(0);
    t = 1100;
    await writer.add(rows[2]!);
    expect(await progress(db)).toEqual({ done: 3, updatedAt: 1100, rows: 3 });
    t = 1150;
    await writer.add(rows[3]!);
    expect(await stored(db)).toBe(3);
    t = 1300;
    await writer.add(rows[4]!);
    expect(await progress(db)).toEqual({ done: 5, updatedAt: 1300, rows: 5 });
  });

  test('a slow run writes every negotiation as it arrives', async () => {
    const { db, rows } = await setup();
    let t = 0;
    const writer = new RunWriter(db, 'r', { now: () => t });
    for (const [i, row] of rows.slice(0, 3).entries()) {
      t += 5000;
      await writer.add(row);
      expect(await stored(db)).toBe(i + 1);
    }
  });

  test('a reader never sees a done count that differs from the rows stored', async () => {
    const { db, rows } = await setup();
    const writer = new RunWriter(db, 'r', { maxBatch: 3, maxDelayMs: Infinity });
    const seen: { done: number; rows: number }[] = [];
    let writing = true;
    const reader = (async () => {
      while (writing) {
        seen.push(
          await db.transaction('r', db.runs, db.batches, db.digests, async () => ({
            done: (await db.runs.get('r'))?.done ?? -1,
            rows: await stored(db),
          })),
        );
      }
    })();
    for (const row of rows) await writer.add(row);
    await writer.flush();
    writing = false;
    await reader;
    expect(seen.filter((s) => s.done !== s.rows)).toEqual([]);
    // The reader did look between batches, or the check above proved nothing.
    expect(new Set(seen.map((s) => s.done)).size).toBeGreaterThan(3);
    expect(await progress(db)).toMatchObject({ done: 36, rows: 36 });
  });

  test('a negotiation written twice is counted once', async () => {
    const { db, rows } = await setup();
    const writer = new RunWriter(db, 'r', { maxBatch: 2 });
    await writer.add(rows[0]!);
    await writer.add(rows[1]!);
    await writer.add(rows[1]!);
    await writer.add(rows[2]!);
    expect(await progress(db)).toMatchObject({ done: 3, rows: 3 });
    expect((await storedRows(db)).map((r) => r.jobId)).toEqual(rows.slice(0, 3).map((r) => r.jobId));
  });

  test('a resumed run counts what is stored once, and a job replayed after a crash is neither stored nor counted again', async () => {
    const { db, rows } = await setup();
    const first = new RunWriter(db, 'r', { maxBatch: 4, maxDelayMs: Infinity });
    for (const row of rows.slice(0, 10)) await first.add(row);
    // The tab closes here: two batches are stored, the two rows in flight are lost.
    expect(await progress(db)).toMatchObject({ done: 8, rows: 8 });
    expect(first.buffered).toBe(2);

    // The resumed run replays jobs 6 and 7, which were stored, with the ones that were not.
    const resumed = new RunWriter(db, 'r', { maxBatch: 4, maxDelayMs: Infinity });
    for (const row of rows.slice(6, 12)) await resumed.add(row);
    await resumed.flush();
    expect(await progress(db)).toMatchObject({ done: 12, rows: 12 });
    expect((await storedRows(db)).map((r) => r.jobId)).toEqual(rows.slice(0, 12).map((r) => r.jobId));
    // A batch made only of replays stores nothing, and the count holds.
    const again = new RunWriter(db, 'r', { maxBatch: 4, maxDelayMs: Infinity });
    for (const row of rows.slice(0, 4)) await again.add(row);
    expect(await progress(db)).toMatchObject({ done: 12, rows: 12 });
    expect((await db.batches.orderBy('[runId+first]').toArray()).map((b) => b.count)).toEqual([4, 4, 2, 2]);
  });

  test('a run with model agents (calls with prompts, raw answers and thinking) fits the same layout', async () => {
    const { db, rows } = await setup();
    const withCalls = rows.slice(0, 6).map(withModelCalls);
    const writer = new RunWriter(db, 'r', { maxBatch: 4, maxDelayMs: Infinity });
    for (const row of withCalls) await writer.add(row);
    await writer.flush();
    expect(await storedRows(db)).toEqual(withCalls);
    for (const row of withCalls) expect(await loadNegotiation(db, 'r', row.jobId)).toEqual(row);
    const stored = (await storedRows(db))[2]!;
    expect(NegotiationRowSchema.parse(stored)).toEqual(withCalls[2]);
    expect(stored.events[0]).toMatchObject({ call: { thinking: expect.stringContaining('"quoted"') } });
  });

  test('rows for a run deleted meanwhile are dropped, not left behind', async () => {
    const { db, rows } = await setup();
    const writer = new RunWriter(db, 'r', { maxBatch: 2 });
    await writer.add(rows[0]!);
    await deleteRun(db, 'r');
    await writer.add(rows[1]!);
    expect(await db.batches.count()).toBe(0);
    expect(await db.digests.count()).toBe(0);
    expect(await getRun(db, 'r')).toBeUndefined();
  });
});

describe('a full disk', () => {
  test('a batch over the real quota throws StorageFullError, writes nothing, and goes in once space is freed', async () => {
    const db = await dbWithQuota(3_000_000);
    const rows = await tournamentRows('r');
    // Old runs fill most of the quota.
    await createRun(db, { id: 'old', name: 'old', config: TOURNAMENT_CONFIG, planned: 36, createdAt: 0 });
    const ballast = new RunWriter(db, 'old', { maxBatch: 4 });
    for (const row of await tournamentRows('old')) if (row.index < 12) await ballast.add(bulky(row));
    await ballast.flush();
    expect((await getRun(db, 'old'))?.done).toBe(12);

    await createRun(db, { id: 'r', name: 'run', config: TOURNAMENT_CONFIG, planned: 36, createdAt: 0 });
    let t = 0;
    const writer = new RunWriter(db, 'r', { maxBatch: 500, maxDelayMs: Infinity, now: () => t });
    for (const row of rows.slice(0, 4)) await writer.add(row);
    t = 1;
    await writer.flush();
    for (const row of rows.slice(4, 14)) await writer.add(bulky(row));
    t = 2;
    const error = await writer.flush().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StorageFullError);
    expect((error as Error).message).toMatch(/storage is full/);
    expect((error as Error).cause).toMatchObject({ name: 'AbortError', inner: { name: 'QuotaExceededError' } });
    expect(await progress(db)).toEqual({ done: 4, updatedAt: 1, rows: 4 });
    expect(writer.buffered).toBe(10);

    // The user deletes the old run; the same rows go in on the next flush.
    await deleteRun(db, 'old');
    expect(await bucketUsage(db)).toBeLessThan(1_000_000);
    t = 3;
    await writer.flush();
    expect(await progress(db)).toEqual({ done: 14, updatedAt: 3, rows: 14 });
    expect(writer.buffered).toBe(0);
    const stored14 = await storedRows(db);
    expect(stored14.map((r) => r.jobId)).toEqual(rows.slice(0, 14).map((r) => r.jobId));
    expect(stored14[10]!.events[0]).toMatchObject({ type: 'invalid', reason: 'not JSON' });
  });
});
