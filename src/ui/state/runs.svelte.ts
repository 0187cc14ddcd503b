import type { Standings } from '../../core/bilateral/aggregate';
import { deleteRun, liveRunIds, loadNegotiations, markInterrupted, sizeProblem, storageUsage, type ParleyDb, type RunRow, type RunStatus } from '../../storage';
import { readRuns } from '../../storage/runs';
import type { DamagedRun } from '../../storage/stored-records';
import { RunExportStore } from './run-export.svelte';
import { database, newId, sim } from './sim';
import { isolateText } from '../names';

/** `done`, or `done, 3 errors` when some of the run's negotiations ended in an error. */
export const statusLabel = (status: RunStatus, errors = 0): string =>
  errors > 0 ? `${status}, ${errors.toLocaleString('en-US')} error${errors === 1 ? '' : 's'}` : status;

/** Negotiations that ended in an error: each negotiation has one buyer row, which counts it. */
export const errorsIn = (standings: Pick<Standings, 'leaderboard'> | null | undefined): number =>
  (standings?.leaderboard ?? []).reduce((sum, row) => sum + (row.role === 'buyer' ? (row.errors ?? 0) : 0), 0);

/** Stored negotiations of a run that ended in an error, from its digests (right mid-run too). */
const storedErrors = async (db: ParleyDb, runId: string): Promise<number> =>
  (await loadNegotiations(db, runId, { limit: 0, filter: { outcome: 'error' } })).total;

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

/** Stored runs, read from IndexedDB on the page; changes go through the worker or Dexie. */
export class RunsStore extends RunExportStore {
  runs = $state.raw<RunRow[]>([]);
  loaded = $state(false);
  usage = $state.raw<{ usage: number; quota: number } | null>(null);
  /** Per run, how many of its negotiations ended in an error. */
  errors = $state.raw<ReadonlyMap<string, number>>(new Map());
  /** Stored runs that cannot be read, each with why: listed apart, to export what can be read or delete. */
  damaged = $state.raw<DamagedRun[]>([]);
  /** Per readable run, a part of it that could not be read and was set aside (its standings). */
  notes = $state.raw<ReadonlyMap<string, string>>(new Map());
  /** Why the runs could not be read at all, if they could not (the list stays as it was). */
  error = $state<string | null>(null);

  /** `db`: where runs are read (the page's database unless a test hands another). */
  constructor(readonly db: () => ParleyDb = database) {
    super();
    sim().subscribe((m) => {
      if (m.type === 'run.status' || m.type === 'arena.end' || m.type === 'imported' || m.type === 'worker.stopped') void this.refresh();
      // A run playing in this tab reports its errors with its progress, stored or not yet.
      else if (m.type === 'run.progress') {
        const errors = errorsIn(m.standings);
        if (this.errors.get(m.runId) !== errors) this.errors = new Map(this.errors).set(m.runId, errors);
      }
    });
  }

  /** At start-up, a run left `running` with no worker holding its lock was interrupted. */
  async init(): Promise<void> {
    try {
      const live = await liveRunIds();
      await markInterrupted(this.db(), (id) => live.has(id));
    } catch {
      // Not written down (a full disk, a record that cannot be updated): refresh shows them interrupted anyway.
    }
    await this.refresh();
  }

  /** Reads the list again; whatever one record holds, the page leaves "Loading…" with what could be read. */
  async refresh(): Promise<void> {
    const db = this.db();
    try {
      const [{ runs, notes, damaged }, live] = await Promise.all([readRuns(db), liveRunIds()]);
      // A run marked running that no worker holds is not running, whether or not that could be
      // written down (on a full disk it cannot): it shows as interrupted, ready to resume.
      this.runs = runs.map((run) => (run.status === 'running' && !live.has(run.id) ? { ...run, status: 'interrupted' } : run));
      this.notes = notes;
      this.damaged = damaged;
      this.error = null;
      const counts = await Promise.all(runs.map((run) => settledErrors(run) ?? storedErrors(db, run.id).catch(() => 0)));
      this.errors = new Map(runs.map((run, i) => [run.id, counts[i] ?? 0]));
      this.usage = await storageUsage().catch(() => this.usage);
    } catch (e) {
      this.error = `The stored runs could not be read: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.loaded = true;
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
    await this.refresh();
  }

  async remove(run: RunRow): Promise<void> {
    if (run.status === 'running') sim().send({ type: 'run.cancel', runId: run.id });
    await deleteRun(this.db(), run.id);
    this.notice = { kind: 'info', text: `Deleted "${isolateText(run.name)}".` };
    await this.refresh();
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
        await this.refresh();
        return reply.runId;
      }
      this.notice = { kind: 'error', text: `Could not import ${file.name}: ${reply.type === 'failed' ? reply.message : 'no answer'}` };
      return null;
    } finally {
      this.busy = false;
    }
  }
}
