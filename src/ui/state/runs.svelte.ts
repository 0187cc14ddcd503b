import type { Standings } from '../../games/bilateral/aggregate';
import { deleteRun, liveRunIds, loadNegotiations, markInterrupted, sizeProblem, storageUsage, type ParleyDb, type RunRow, type RunStatus } from '../../storage';
import { readBothGamesRuns } from '../../storage/runs';
import type { MarketRunRow } from '../../storage/market-schema';
import type { DamagedRun } from '../../storage/stored-records';
import { LiveRead } from './live.svelte';
import { RunExportStore } from './run-export.svelte';
import { database, newId, sim } from './sim';
import { isolateText } from '../names';

/** `done`, or `done, 3 errors` when some of the run's negotiations ended in an error. */
export const statusLabel = (status: RunStatus, errors = 0): string =>
  errors > 0 ? `${status}, ${errors.toLocaleString('en-US')} error${errors === 1 ? '' : 's'}` : status;

/** Negotiations that ended in an error: each negotiation has one buyer row, which counts it. */
export const errorsIn = (standings: Pick<Standings, 'leaderboard'> | null | undefined): number =>
  (standings?.leaderboard ?? []).reduce((sum, row) => sum + (row.role === 'buyer' ? (row.errors ?? 0) : 0), 0);

/**
 * A stopped run's error count from the standings it stored when it stopped (they cover every stored
 * negotiation), or null where they may not: a run still playing or cut off, or one stored before
 * errors were counted, is counted from its digests instead.
 */
function settledErrors(run: RunRow): number | null {
  if (run.status === 'running' || run.status === 'interrupted' || !run.standings) return null;
  const rows = run.standings.leaderboard;
  return rows.length > 0 && rows.every((r) => typeof r.errors === 'number') ? errorsIn(run.standings) : null;
}

/**
 * How many of a run's stored negotiations ended in an error: from its standings where they are
 * settled, else from its digests (right mid-run too), never from the event logs; 0 if unreadable.
 */
export async function storedErrors(db: ParleyDb, run: RunRow): Promise<number> {
  const settled = settledErrors(run);
  if (settled !== null) return settled;
  return loadNegotiations(db, run.id, { limit: 0, filter: { outcome: 'error' } }).then(
    (found) => found.total,
    () => 0,
  );
}

/**
 * A run marked running that no worker holds is not running, whether or not that could be written
 * down (on a full disk it cannot): it shows as interrupted, ready to resume. The locks are no Dexie
 * call, hence Promise.resolve (see LiveRead).
 */
async function asPlayed<Row extends { id: string; status: RunStatus }>(runs: Row[]): Promise<Row[]> {
  const live = await Promise.resolve(liveRunIds());
  return runs.map((run) => (run.status === 'running' && !live.has(run.id) ? { ...run, status: 'interrupted' } : run));
}

/** The Runs page's list: what one read of the run rows (both games) and the digests of unsettled runs gives. */
interface RunListRead {
  runs: RunRow[];
  /** The market game's runs, listed in a table of their own. */
  markets: MarketRunRow[];
  /** Per readable run of either game, a part of it that could not be read and was set aside (its standings). */
  notes: ReadonlyMap<string, string>;
  /** Stored runs of either game that cannot be read, each with why: listed apart, to export what can be read or delete. */
  damaged: DamagedRun[];
  /** Per run, how many of its negotiations ended in an error. */
  errors: ReadonlyMap<string, number>;
  usage: { usage: number; quota: number } | null;
}

async function readRunList(db: ParleyDb): Promise<RunListRead> {
  // One read of the runs table for both games' lists.
  const { bilateral, market } = await readBothGamesRuns(db);
  const played = await asPlayed(bilateral.runs);
  const markets = await asPlayed(market.runs);
  const counts = await Promise.all(played.map((run) => storedErrors(db, run)));
  const usage = await Promise.resolve(storageUsage());
  return {
    runs: played,
    markets,
    notes: new Map([...bilateral.notes, ...market.notes]),
    damaged: [...bilateral.damaged, ...market.damaged],
    errors: new Map(played.map((run, i) => [run.id, counts[i] ?? 0])),
    usage,
  };
}

const EMPTY: RunListRead = { runs: [], markets: [], notes: new Map(), damaged: [], errors: new Map(), usage: null };

/**
 * The Runs page's list of both games' runs, read through Dexie's liveQuery: it follows the database
 * (an import in another tab, a run's progress, a rename, a deletion), not the worker's messages. It
 * reads the run rows and the digests of unsettled runs, never an event log. Create it while the page
 * is set up.
 */
export class RunList {
  readonly #list: LiveRead<ParleyDb, RunListRead>;

  constructor(db: () => ParleyDb) {
    this.#list = new LiveRead(db, readRunList);
  }

  /** Whether the first read has answered: until then the page says "Loading…". */
  get loaded(): boolean {
    return this.#list.settled;
  }
  /** Why the runs could not be read at all, if they could not (the list stays as it was). */
  get error(): string | null {
    const problem = this.#list.error;
    return problem === null ? null : `The stored runs could not be read: ${problem}`;
  }
  get runs(): RunRow[] {
    return this.#read().runs;
  }
  get markets(): MarketRunRow[] {
    return this.#read().markets;
  }
  get notes(): ReadonlyMap<string, string> {
    return this.#read().notes;
  }
  get damaged(): DamagedRun[] {
    return this.#read().damaged;
  }
  get errors(): ReadonlyMap<string, number> {
    return this.#read().errors;
  }
  get usage(): RunListRead['usage'] {
    return this.#read().usage;
  }
  #read(): RunListRead {
    return this.#list.current ?? EMPTY;
  }
}

/** How many runs are stored, readable or not (undefined until counted): for a page that only points to the list. */
export class RunCount extends LiveRead<ParleyDb, number> {
  constructor(db: () => ParleyDb) {
    super(db, (db) => db.runs.count());
  }
}

/** The stored runs' actions (import, delete, export), shared by the pages; changes go through the worker or Dexie, and the lists follow. */
export class RunsStore extends RunExportStore {
  /** `db`: where runs are read and deleted (the page's database unless a test hands another). */
  constructor(readonly db: () => ParleyDb = database) {
    super();
  }

  /** At start-up, a run left `running` with no worker holding its lock was interrupted (written down, so every tab sees it). */
  async init(): Promise<void> {
    try {
      const live = await liveRunIds();
      await markInterrupted(this.db(), (id) => live.has(id));
    } catch {
      // Not written down (a full disk, a record that cannot be updated): the list shows them interrupted anyway.
    }
  }

  /** Deletes a damaged run and whatever of it is stored. */
  async removeDamaged(run: DamagedRun): Promise<void> {
    try {
      await deleteRun(this.db(), run.id);
      this.notice = { kind: 'info', text: `Deleted the damaged run ${isolateText(run.name ?? run.id)}.` };
    } catch (e) {
      this.notice = { kind: 'error', text: `Could not delete it: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  async remove(run: RunRow | MarketRunRow): Promise<void> {
    if (run.status === 'running') sim().send({ type: run.game === 'market' ? 'market.cancel' : 'run.cancel', runId: run.id });
    await deleteRun(this.db(), run.id);
    this.notice = { kind: 'info', text: `Deleted "${isolateText(run.name)}".` };
  }

  /**
   * Validates and stores a run file in the worker; nothing is written if it is invalid. A file over
   * the limit is refused here by its size, before anything reads it (the worker checks again).
   */
  async importFile(file: File): Promise<string | null> {
    const tooLarge = sizeProblem(file.size);
    if (tooLarge) {
      this.notice = { kind: 'error', text: `Could not import ${file.name}: ${tooLarge.message}` };
      return null;
    }
    this.busy = true;
    try {
      const reply = await sim().request({ type: 'import', requestId: newId(), file });
      if (reply.type === 'imported') {
        this.notice = { kind: 'info', text: `Imported ${file.name}.` };
        return reply.runId;
      }
      this.notice = { kind: 'error', text: `Could not import ${file.name}: ${reply.type === 'failed' ? reply.message : 'no answer'}` };
      return null;
    } finally {
      this.busy = false;
    }
  }
}
