import { liveRunIds, type ParleyDb } from '../../storage';
import { deleteRun, readRuns } from '../../storage/runs';
import type { MarketRunRow } from '../../storage/market-schema';
import type { DamagedRun } from '../../storage/stored-records';
import { isolateText } from '../names';
import { RunExportStore } from './run-export.svelte';
import { sim } from './sim';

/** Stored market runs for the Runs page, read from IndexedDB; the worker writes them. */
export class MarketRunsStore extends RunExportStore {
  runs = $state.raw<MarketRunRow[]>([]);
  /** Stored market runs that cannot be read, each with why: listed apart, to export what can be read or delete. */
  damaged = $state.raw<DamagedRun[]>([]);
  /** Per readable run, a part of it that could not be read and was set aside (its standings). */
  notes = $state.raw<ReadonlyMap<string, string>>(new Map());
  /** Why the market runs could not be read at all, if they could not. */
  error = $state<string | null>(null);

  constructor(readonly db: () => ParleyDb) {
    super();
  }

  /** Follows the worker's news of market runs until the returned function is called. */
  watch(): () => void {
    void this.refresh();
    return sim().subscribe((m) => {
      if ((m.type === 'market.status' && m.status !== 'running') || m.type === 'market.end' || m.type === 'imported') void this.refresh();
    });
  }

  async refresh(): Promise<void> {
    try {
      const [{ runs, notes, damaged }, live] = await Promise.all([readRuns(this.db(), 'market'), liveRunIds()]);
      // A run marked running that no worker plays was cut off (its tab closed).
      this.runs = runs.map((run) => (run.status === 'running' && !live.has(run.id) ? { ...run, status: 'interrupted' } : run));
      this.notes = notes;
      this.damaged = damaged;
      this.error = null;
    } catch (e) {
      this.error = `The stored market runs could not be read: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  async remove(run: MarketRunRow): Promise<void> {
    if (run.status === 'running') sim().send({ type: 'market.cancel', runId: run.id });
    await deleteRun(this.db(), run.id);
    this.notice = { kind: 'info', text: `Deleted "${isolateText(run.name)}".` };
    await this.refresh();
  }

  /** Deletes a damaged market run and whatever of it is stored. */
  async removeDamaged(run: DamagedRun): Promise<void> {
    try {
      await deleteRun(this.db(), run.id);
      this.notice = { kind: 'info', text: `Deleted the damaged run ${isolateText(run.name ?? run.id)}.` };
    } catch (e) {
      this.notice = { kind: 'error', text: `Could not delete it: ${e instanceof Error ? e.message : String(e)}` };
    }
    await this.refresh();
  }
}
