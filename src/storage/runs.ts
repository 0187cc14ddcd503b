import Dexie from 'dexie';
import type { OutcomeKind } from '../core/bilateral/events';
import type { ParleyDb } from './db';
import { negotiationId, type NegotiationRow, type RunConfig, type RunRow } from './schema';

/** Every negotiation of one run, in plan order, through the [runId+index] index. */
export const runNegotiations = (db: ParleyDb, runId: string) =>
  db.negotiations.where('[runId+index]').between([runId, Dexie.minKey], [runId, Dexie.maxKey], true, true);

/** A run's digests (the filterable fields of each written batch), in plan order. */
export const runDigests = (db: ParleyDb, runId: string) =>
  db.digests.where('[runId+first]').between([runId, Dexie.minKey], [runId, Dexie.maxKey], true, true);

/** Rows per read when scanning a run: one getAll per chunk rather than a cursor step per row. */
const SCAN_CHUNK = 500;

/**
 * Hands `visit` a run's negotiations in plan order, a chunk at a time, inside the caller's
 * transaction if there is one. `visit` returns false to stop early.
 */
export async function scanRun(
  db: ParleyDb,
  runId: string,
  visit: (rows: NegotiationRow[]) => boolean | void,
): Promise<void> {
  let after: number | null = null;
  for (;;) {
    const rows: NegotiationRow[] = await db.negotiations
      .where('[runId+index]')
      .between([runId, after ?? Dexie.minKey], [runId, Dexie.maxKey], after === null, true)
      .limit(SCAN_CHUNK)
      .toArray();
    if (rows.length === 0 || visit(rows) === false || rows.length < SCAN_CHUNK) return;
    after = (rows[rows.length - 1] as NegotiationRow).index;
  }
}

export async function createRun(
  db: ParleyDb,
  init: { id?: string; name: string; config: RunConfig; planned: number; createdAt: number },
): Promise<RunRow> {
  const run: RunRow = {
    id: init.id ?? crypto.randomUUID(),
    name: init.name,
    createdAt: init.createdAt,
    updatedAt: init.createdAt,
    status: 'running',
    config: init.config,
    planned: init.planned,
    done: 0,
    standings: null,
    message: null,
  };
  await db.runs.add(run);
  return run;
}

export const getRun = (db: ParleyDb, id: string): Promise<RunRow | undefined> => db.runs.get(id);

/** Newest first. */
export const listRuns = (db: ParleyDb): Promise<RunRow[]> => db.runs.orderBy('createdAt').reverse().toArray();

/** Does nothing when the run is gone (deleted while a worker was still reporting on it). */
export async function updateRun(db: ParleyDb, id: string, patch: Partial<Omit<RunRow, 'id'>>): Promise<void> {
  await db.runs.update(id, patch);
}

/** The run and all its negotiations, together or not at all. */
export async function deleteRun(db: ParleyDb, id: string): Promise<void> {
  await db.transaction('rw', db.runs, db.negotiations, db.digests, async () => {
    await runNegotiations(db, id).delete();
    await runDigests(db, id).delete();
    await db.runs.delete(id);
  });
}

/** The Web Lock a worker holds while it plays a run. */
export const runLockName = (id: string): string => `parley-run:${id}`;

/** Runs whose lock is held or requested in any tab or worker of this origin. */
export async function liveRunIds(): Promise<Set<string>> {
  const live = new Set<string>();
  if (typeof navigator === 'undefined' || !navigator.locks) return live;
  const prefix = runLockName('');
  const { held = [], pending = [] } = await navigator.locks.query();
  for (const lock of [...held, ...pending])
    if (lock.name?.startsWith(prefix)) live.add(lock.name.slice(prefix.length));
  return live;
}

/**
 * Every run still marked 'running' that no one is playing (its tab was closed or crashed) becomes
 * 'interrupted', so it can be resumed. Returns their ids.
 */
export async function markInterrupted(
  db: ParleyDb,
  isLive: (runId: string) => boolean | Promise<boolean>,
): Promise<string[]> {
  const running = await db.runs.filter((r) => r.status === 'running').primaryKeys();
  const stale: string[] = [];
  for (const id of running) if (!(await isLive(id))) stale.push(id);
  if (stale.length === 0) return [];
  // The predicate ran outside the transaction: a run that finished meanwhile keeps its status.
  return db.transaction('rw', db.runs, async () => {
    const marked: string[] = [];
    for (const run of await db.runs.bulkGet(stale)) {
      if (run?.status !== 'running') continue;
      await db.runs.update(run.id, { status: 'interrupted' });
      marked.push(run.id);
    }
    return marked;
  });
}

/** Job ids of the negotiations already stored for a run (resume skips them); reads keys only. */
export async function storedJobIds(db: ParleyDb, runId: string): Promise<Set<string>> {
  const ids = await runNegotiations(db, runId).primaryKeys();
  const skip = runId.length + 1;
  return new Set(ids.map((id) => id.slice(skip)));
}

export interface NegotiationFilter {
  buyer?: string;
  seller?: string;
  outcome?: OutcomeKind;
  tier?: number;
}

const matches = (f: NegotiationFilter) => (row: NegotiationRow) =>
  (f.buyer === undefined || row.buyer === f.buyer) &&
  (f.seller === undefined || row.seller === f.seller) &&
  (f.outcome === undefined || row.outcome === f.outcome) &&
  (f.tier === undefined || row.tier === f.tier);

/** One page of a run's negotiations in plan order; `total` counts every match, not just the page. */
export async function loadNegotiations(
  db: ParleyDb,
  runId: string,
  opts: { offset?: number; limit?: number; filter?: NegotiationFilter } = {},
): Promise<{ rows: NegotiationRow[]; total: number }> {
  const offset = Math.max(0, Math.floor(opts.offset ?? 0));
  const limit = opts.limit === undefined ? Infinity : Math.max(0, Math.floor(opts.limit));
  const filter = opts.filter ?? {};
  const filtered = Object.values(filter).some((v) => v !== undefined);
  return db.transaction('r', db.negotiations, db.digests, async () => {
    const count = await runNegotiations(db, runId).count();
    if (!filtered) {
      let page = runNegotiations(db, runId).offset(offset);
      if (limit !== Infinity) page = page.limit(limit);
      return { rows: limit === 0 ? [] : await page.toArray(), total: count };
    }
    // Filter on the digests (a few small rows per run), then read only the page's negotiations.
    const matching: string[] = [];
    const seen = new Set<string>();
    for (const d of await runDigests(db, runId).toArray()) {
      for (let i = 0; i < d.jobIds.length; i++) {
        const jobId = d.jobIds[i] as string;
        if (seen.has(jobId)) continue;
        seen.add(jobId);
        if (
          (filter.buyer === undefined || d.buyers[i] === filter.buyer) &&
          (filter.seller === undefined || d.sellers[i] === filter.seller) &&
          (filter.outcome === undefined || d.outcomes[i] === filter.outcome) &&
          (filter.tier === undefined || d.tiers[i] === filter.tier)
        )
          matching.push(jobId);
      }
    }
    if (seen.size !== count) return scanFiltered(db, runId, filter, offset, limit);
    const ids = matching.slice(offset, limit === Infinity ? undefined : offset + limit).map((j) => negotiationId(runId, j));
    const rows = (await db.negotiations.bulkGet(ids)).filter((r): r is NegotiationRow => r !== undefined);
    return { rows, total: matching.length };
  });
}

/** The slow way, reading every row: only for a run whose digests do not cover it. */
async function scanFiltered(
  db: ParleyDb,
  runId: string,
  filter: NegotiationFilter,
  offset: number,
  limit: number,
): Promise<{ rows: NegotiationRow[]; total: number }> {
  const keep = matches(filter);
  const rows: NegotiationRow[] = [];
  let total = 0;
  await scanRun(db, runId, (chunk) => {
    for (const row of chunk) {
      if (!keep(row)) continue;
      if (total >= offset && rows.length < limit) rows.push(row);
      total++;
    }
  });
  return { rows, total };
}

export const loadNegotiation = (db: ParleyDb, runId: string, jobId: string): Promise<NegotiationRow | undefined> =>
  db.negotiations.get(negotiationId(runId, jobId));

/** Calls `fn` on each of a run's negotiations in plan order; returns how many there were. */
export async function forEachNegotiation(
  db: ParleyDb,
  runId: string,
  fn: (row: NegotiationRow) => void,
): Promise<number> {
  let n = 0;
  await db.transaction('r', db.negotiations, () =>
    scanRun(db, runId, (rows) => {
      for (const row of rows) fn(row);
      n += rows.length;
    }),
  );
  return n;
}
