import type { OutcomeKind } from '../games/bilateral/events';
import { randomId } from '../engine/id';
import { decode, readJson, readRows, runBatches, runDigests, runSlots, scanJson, type Slot } from './batches';
import type { ParleyDb } from './db';
import { gameOfRow, isKnownGame, storeOf, type Game, type GameName, type LineOf, type RunOf, type StoredRun } from './games';
import { handInKey } from './hand-in-records';
import type { NegotiationColumns, NegotiationRow } from './schema';
import { issueText, salvageFile, sortChecked, unknownGame, type Checked, type DamagedRun } from './stored-records';
import type { DigestRow } from './tables';

/**
 * Hands `visit` a run's negotiations in plan order, a chunk at a time, inside the caller's
 * transaction if there is one. `visit` returns false to stop early.
 */
export async function scanRun(db: ParleyDb, runId: string, visit: (rows: NegotiationRow[]) => boolean | void): Promise<void> {
  await scanJson(db, runId, (json) => visit(json.map((j) => decode(runId, j))));
}

/** What a new run is made of; `game` is bilateral unless told. */
export interface RunInit<G extends GameName> {
  id?: string;
  game?: G;
  name: string;
  config: RunOf<G>['config'];
  planned: number;
  createdAt: number;
}

export async function createRun<G extends GameName = 'bilateral'>(db: ParleyDb, init: RunInit<G>): Promise<RunOf<G>> {
  const run = {
    id: init.id ?? randomId(),
    game: init.game ?? 'bilateral',
    name: init.name,
    createdAt: init.createdAt,
    updatedAt: init.createdAt,
    status: 'running',
    config: init.config,
    planned: init.planned,
    done: 0,
    standings: null,
    message: null,
  } as RunOf<G>;
  await db.runs.add(run as StoredRun);
  return run;
}

/**
 * Every stored run row of `game` as it lies in the table, unparsed. A row that names no game this
 * Parley knows comes with the bilateral ones, whose list shows what is damaged. Reads the whole
 * table, not the createdAt index, which leaves out a row whose createdAt is no valid key.
 */
export async function rawRuns(db: ParleyDb, game: GameName = 'bilateral'): Promise<unknown[]> {
  return ofGame((await db.runs.toArray()) as unknown[], game);
}

/** The rows of `game` among `rows`; a row that names no game this Parley knows is listed with the bilateral ones (as damaged). */
const ofGame = (rows: readonly unknown[], game: GameName): unknown[] => rows.filter((raw) => (gameOfRow(raw) ?? 'bilateral') === game);

/** A stored row read by its game's descriptor (or damaged, where it names no known game). */
const checkRow = (raw: unknown): Checked<StoredRun> => {
  const game = gameOfRow(raw);
  return game === null ? unknownGame(raw) : storeOf(game).checkRun(raw);
};

/** A run of `game` (bilateral unless told); undefined when there is none, or it is of another game. */
export async function getRun<G extends GameName = 'bilateral'>(db: ParleyDb, id: string, game?: G): Promise<RunOf<G> | undefined> {
  const run: unknown = await db.runs.get(id);
  return run !== undefined && gameOfRow(run) === (game ?? 'bilateral') ? (run as RunOf<G>) : undefined;
}

/** The runs of `game` (bilateral unless told), newest first. */
export async function listRuns<G extends GameName = 'bilateral'>(db: ParleyDb, game?: G): Promise<RunOf<G>[]> {
  const runs = (await db.runs.orderBy('createdAt').reverse().toArray()) as unknown[];
  return runs.filter((run) => gameOfRow(run) === (game ?? 'bilateral')) as RunOf<G>[];
}

/**
 * Every stored run of `game` (bilateral unless told), each parsed: the readable ones newest first
 * (with a note where a part of one, its standings, was set aside), and apart the damaged ones, each
 * with why it cannot be read.
 */
export async function readRuns<G extends GameName = 'bilateral'>(
  db: ParleyDb,
  game?: G,
): Promise<{ runs: RunOf<G>[]; notes: Map<string, string>; damaged: DamagedRun[] }> {
  return listed<G>(await rawRuns(db, game));
}

/** The rows of one game parsed, as readRuns lists them. */
const listed = <G extends GameName>(rows: readonly unknown[]) => sortChecked(rows.map((raw) => checkRow(raw) as Checked<RunOf<G>>));

/** readRuns for both built-in games with one read of the table (the Runs page lists both). */
export async function readBothGamesRuns(
  db: ParleyDb,
): Promise<{ bilateral: Awaited<ReturnType<typeof readRuns<'bilateral'>>>; market: Awaited<ReturnType<typeof readRuns<'market'>>> }> {
  const rows = (await db.runs.toArray()) as unknown[];
  return { bilateral: listed<'bilateral'>(ofGame(rows, 'bilateral')), market: listed<'market'>(ofGame(rows, 'market')) };
}

/** One stored run of whatever game its row names, parsed; undefined when there is none with that id. */
export async function readAnyRun(db: ParleyDb, id: string): Promise<Checked<StoredRun> | undefined> {
  const raw: unknown = await db.runs.get(id);
  return raw === undefined ? undefined : checkRow(raw);
}

/** One stored run of `game` (bilateral unless told), parsed; undefined when there is none of that game with that id. */
export async function readRun<G extends GameName = 'bilateral'>(db: ParleyDb, id: string, game?: G): Promise<Checked<RunOf<G>> | undefined> {
  const raw: unknown = await db.runs.get(id);
  if (raw === undefined || (gameOfRow(raw) ?? 'bilateral') !== (game ?? 'bilateral')) return undefined;
  return checkRow(raw) as Checked<RunOf<G>>;
}

/** What can be read of a stored run of any game, damaged or not, as one JSON file (see salvageFile); null when there is none. */
export async function salvageRun(db: ParleyDb, id: string): Promise<{ name: string; text: string } | null> {
  return db.transaction('r', db.runs, db.batches, db.digests, async () => {
    const raw: unknown = await db.runs.get(id);
    if (raw === undefined) return null;
    const checked = checkRow(raw);
    const problem = checked.ok ? (checked.value.note ?? 'none: the run record reads') : checked.error.problem;
    // A record that names no game it can be read as leaves its batches' digests to say.
    const digests = await runDigests(db, id).toArray();
    const game = gameOfRow(raw) ?? digests.map((d) => d.game).find(isKnownGame) ?? null;
    const batches = ((await runBatches(db, id).toArray()) as unknown[] as Partial<Record<string, unknown>>[]).map((b) => ({ id: b.id, items: b.negotiations }));
    const store = game === null ? null : storeOf(game);
    const check = (item: unknown) => {
      if (store === null) return null;
      const parsed = store.line.safeParse(item, { jitless: true });
      return parsed.success ? null : issueText(parsed.error);
    };
    const name = checked.ok ? checked.value.run.name : (checked.error.name ?? 'run');
    return { name, text: salvageFile(game, raw, problem, batches, store?.items ?? 'lines', check) };
  });
}

/** A change to a stored run of any game (its id and game stay). */
export type RunPatch = { [G in Game]: Partial<Omit<RunOf<G>, 'id' | 'game'>> }[Game];

/** Does nothing when the run is gone (deleted while a worker was still reporting on it). */
export async function updateRun(db: ParleyDb, id: string, patch: RunPatch): Promise<void> {
  await db.runs.update(id, patch as Partial<StoredRun>);
}

/** The run and all its lines, whatever its game, together or not at all. */
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
  for (const lock of [...held, ...pending]) if (lock.name?.startsWith(prefix)) live.add(lock.name.slice(prefix.length));
  return live;
}

/**
 * Every run still marked 'running' that no one is playing (its tab was closed or crashed) becomes
 * 'interrupted', so it can be resumed. Returns their ids.
 */
export async function markInterrupted(db: ParleyDb, isLive: (runId: string) => boolean | Promise<boolean>): Promise<string[]> {
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
 * resumed. Nothing stored is touched. Any game's run.
 */
export async function markCutOff(db: ParleyDb, runId: string): Promise<boolean> {
  const mark = () =>
    db.transaction('rw', db.runs, async () => {
      const run: unknown = await db.runs.get(runId);
      if ((run as { status?: unknown } | undefined)?.status !== 'running') return false;
      await db.runs.update(runId, { status: 'interrupted' });
      return true;
    });
  if (typeof navigator === 'undefined' || !navigator.locks) return mark();
  return navigator.locks.request(runLockName(runId), mark);
}

/** Job ids of the lines already stored for a run of any game (resume skips them); reads digests only. */
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

const matches =
  (f: NegotiationFilter) =>
  ({ digest: d, at }: Slot<NegotiationColumns>) =>
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
  const filter = opts.filter ?? {};
  const filtered = Object.values(filter).some((v) => v !== undefined);
  const { json, total } = await readPage<NegotiationColumns>(db, runId, opts, filtered ? matches(filter) : null);
  return { rows: json.map((j) => decode(runId, j)), total };
}

/** One page of a run's lines as JSON in plan order, and how many match; only the page's batches are read. */
async function readPage<Columns extends object>(
  db: ParleyDb,
  runId: string,
  opts: { offset?: number; limit?: number },
  match: ((slot: Slot<Columns>) => boolean) | null,
): Promise<{ json: string[]; total: number }> {
  const offset = Math.max(0, Math.floor(opts.offset ?? 0));
  const limit = opts.limit === undefined ? Infinity : Math.max(0, Math.floor(opts.limit));
  return db.transaction('r', db.batches, db.digests, async () => {
    const slots = await runSlots<Columns>(db, runId);
    const matching = match ? slots.filter(match) : slots;
    const page = limit === 0 ? [] : matching.slice(offset, limit === Infinity ? undefined : offset + limit);
    return { json: await readJson(db, page), total: matching.length };
  });
}

/**
 * One page of a run's lines of `game` in plan order (all of them by default), each as its game
 * stores it, and `total`, the count of them all; only the page's batches are read.
 */
export async function loadLines<G extends GameName>(
  db: ParleyDb,
  runId: string,
  game: G,
  opts: { offset?: number; limit?: number } = {},
): Promise<{ lines: LineOf<G>[]; total: number }> {
  // A digest an older tab wrote names no game: that tab knew only the bilateral one.
  const { json, total } = await readPage(db, runId, opts, ({ digest }) => (digest.game ?? 'bilateral') === game);
  return { lines: json.map((j) => JSON.parse(j) as LineOf<G>), total };
}

/** One stored negotiation, found through the run's digests; only its batch is read. */
export async function loadNegotiation(db: ParleyDb, runId: string, jobId: string): Promise<NegotiationRow | undefined> {
  return db.transaction('r', db.batches, db.digests, async () => {
    for (const digest of (await runDigests(db, runId).toArray()) as DigestRow[]) {
      const at = digest.jobIds.indexOf(jobId);
      if (at >= 0) return (await readRows(db, runId, [{ digest, at }]))[0];
    }
    return undefined;
  });
}

/** Calls `fn` on each of a run's negotiations in plan order; returns how many there were. */
export async function forEachNegotiation(db: ParleyDb, runId: string, fn: (row: NegotiationRow) => void): Promise<number> {
  let n = 0;
  await db.transaction('r', db.batches, db.digests, () =>
    scanRun(db, runId, (rows) => {
      for (const row of rows) fn(row);
      n += rows.length;
    }),
  );
  return n;
}
