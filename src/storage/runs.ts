import type { OutcomeKind } from '../core/bilateral/events';
import { randomId } from '../core/id';
import { decode, readRows, runBatches, runDigests, runSlots, scanJson, type Slot } from './batches';
import type { ParleyDb } from './db';
import { handInKey } from './hand-in-records';
import { ExportedNegotiationSchema, type NegotiationRow, type RunConfig, type RunRow } from './schema';
import { checkRunRow, issueText, salvageFile, sortChecked, type Checked, type DamagedRun } from './stored-records';

/**
 * Hands `visit` a run's negotiations in plan order, a chunk at a time, inside the caller's
 * transaction if there is one. `visit` returns false to stop early.
 */
export async function scanRun(
  db: ParleyDb,
  runId: string,
  visit: (rows: NegotiationRow[]) => boolean | void,
): Promise<void> {
  await scanJson(db, runId, (json) => visit(json.map((j) => decode(runId, j))));
}

export async function createRun(
  db: ParleyDb,
  init: { id?: string; name: string; config: RunConfig; planned: number; createdAt: number },
): Promise<RunRow> {
  const run: RunRow = {
    id: init.id ?? randomId(),
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

/**
 * Every stored run, each parsed: the readable ones newest first (with a note where a part of one,
 * its standings, was set aside), and apart the damaged ones, each with why it cannot be read. Reads
 * the whole table, not the createdAt index, which leaves out a row whose createdAt is no valid key.
 */
export async function readRuns(db: ParleyDb): Promise<{ runs: RunRow[]; notes: Map<string, string>; damaged: DamagedRun[] }> {
  return sortChecked((await db.runs.toArray()).map((raw: unknown) => checkRunRow(raw)));
}

/** One stored run, parsed; undefined when there is none with that id. */
export async function readRun(db: ParleyDb, id: string): Promise<Checked<RunRow> | undefined> {
  const raw: unknown = await db.runs.get(id);
  return raw === undefined ? undefined : checkRunRow(raw);
}

/** What can be read of a stored run, damaged or not, as one JSON file (see salvageFile); null when there is none. */
export async function salvageRun(db: ParleyDb, id: string): Promise<{ name: string; text: string } | null> {
  return db.transaction('r', db.runs, db.batches, async () => {
    const raw: unknown = await db.runs.get(id);
    if (raw === undefined) return null;
    const checked = checkRunRow(raw);
    const problem = checked.ok ? (checked.note ?? 'none: the run record reads') : checked.damaged.problem;
    const batches = ((await runBatches(db, id).toArray()) as unknown[] as Partial<Record<string, unknown>>[]).map((b) => ({ id: b.id, items: b.negotiations }));
    const check = (item: unknown) => {
      const parsed = ExportedNegotiationSchema.safeParse(item, { jitless: true });
      return parsed.success ? null : issueText(parsed.error);
    };
    const name = checked.ok ? checked.run.name : (checked.damaged.name ?? 'run');
    return { name, text: salvageFile('runs', raw, problem, batches, check) };
  });
}

/** Does nothing when the run is gone (deleted while a worker was still reporting on it). */
export async function updateRun(db: ParleyDb, id: string, patch: Partial<Omit<RunRow, 'id'>>): Promise<void> {
  await db.runs.update(id, patch);
}

/** The run and all its negotiations, together or not at all. */
export async function deleteRun(db: ParleyDb, id: string): Promise<void> {
  await db.transaction('rw', [db.runs, db.batches, db.digests, db.settings], async () => {
    await runBatches(db, id).delete();
    await runDigests(db, id).delete();
    await db.runs.delete(id);
    await db.settings.delete(handInKey(id));
  });
}

/** The Web Lock a worker holds while it plays a run. */
export const runLockName = (id: string): string => `parley-run:${id}`;

/**
 * Calls `play` holding the run's Web Lock, so no other tab or worker plays the run at once; refused
 * while another holds it. A page served over plain http to another host (no secure context) has no
 * Web Locks: there it plays without one, and two tabs are not kept apart.
 */
export async function withRunLock<T>(runId: string, play: () => Promise<T>): Promise<T> {
  if (typeof navigator === 'undefined' || !navigator.locks) return play();
  return navigator.locks.request(runLockName(runId), { ifAvailable: true }, async (lock) => {
    if (lock === null) throw new Error('this run is already running in another tab');
    return play();
  });
}

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

/**
 * A run whose worker died while playing it: once the browser has released the run's lock (it does
 * when the worker ends), the run, if still marked running, becomes 'interrupted', so it can be
 * resumed. Nothing stored is touched. Works for market runs too (`table`).
 */
export async function markCutOff(db: ParleyDb, runId: string, table: 'runs' | 'marketRuns' = 'runs'): Promise<boolean> {
  const mark = () =>
    db.transaction('rw', db[table], async () => {
      const run: unknown = await db[table].get(runId);
      if ((run as { status?: unknown } | undefined)?.status !== 'running') return false;
      await db[table].update(runId, { status: 'interrupted' });
      return true;
    });
  if (typeof navigator === 'undefined' || !navigator.locks) return mark();
  return navigator.locks.request(runLockName(runId), mark);
}

/** Job ids of the negotiations already stored for a run (resume skips them); reads digests only. */
export async function storedJobIds(db: ParleyDb, runId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const digest of await runDigests(db, runId).toArray()) for (const id of digest.jobIds) ids.add(id);
  return ids;
}

export interface NegotiationFilter {
  buyer?: string;
  seller?: string;
  outcome?: OutcomeKind;
  tier?: number;
}

const matches = (f: NegotiationFilter) => ({ digest: d, at }: Slot) =>
  (f.buyer === undefined || d.buyers[at] === f.buyer) &&
  (f.seller === undefined || d.sellers[at] === f.seller) &&
  (f.outcome === undefined || d.outcomes[at] === f.outcome) &&
  (f.tier === undefined || d.tiers[at] === f.tier);

/**
 * One page of a run's negotiations in plan order; `total` counts every match, not just the page.
 * Filtering reads the digests; only the page's batches are read.
 */
export async function loadNegotiations(
  db: ParleyDb,
  runId: string,
  opts: { offset?: number; limit?: number; filter?: NegotiationFilter } = {},
): Promise<{ rows: NegotiationRow[]; total: number }> {
  const offset = Math.max(0, Math.floor(opts.offset ?? 0));
  const limit = opts.limit === undefined ? Infinity : Math.max(0, Math.floor(opts.limit));
  const filter = opts.filter ?? {};
  const filtered = Object.values(filter).some((v) => v !== undefined);
  return db.transaction('r', db.batches, db.digests, async () => {
    const slots = await runSlots(db, runId);
    const matching = filtered ? slots.filter(matches(filter)) : slots;
    const page = limit === 0 ? [] : matching.slice(offset, limit === Infinity ? undefined : offset + limit);
    return { rows: await readRows(db, runId, page), total: matching.length };
  });
}

/** One stored negotiation, found through the run's digests; only its batch is read. */
export async function loadNegotiation(db: ParleyDb, runId: string, jobId: string): Promise<NegotiationRow | undefined> {
  return db.transaction('r', db.batches, db.digests, async () => {
    for (const digest of await runDigests(db, runId).toArray()) {
      const at = digest.jobIds.indexOf(jobId);
      if (at >= 0) return (await readRows(db, runId, [{ digest, at }]))[0];
    }
    return undefined;
  });
}

/** Calls `fn` on each of a run's negotiations in plan order; returns how many there were. */
export async function forEachNegotiation(
  db: ParleyDb,
  runId: string,
  fn: (row: NegotiationRow) => void,
): Promise<number> {
  let n = 0;
  await db.transaction('r', db.batches, db.digests, () =>
    scanRun(db, runId, (rows) => {
      for (const row of rows) fn(row);
      n += rows.length;
    }),
  );
  return n;
}
