import { liveRunIds, type ParleyDb } from '../../storage';
import { deleteMarketRun, listMarketRuns } from '../../storage/market-runs';
import type { MarketRunRow } from '../../storage/market-schema';
import { isolateText } from '../names';
import { RunExportStore } from './run-export.svelte';
import { sim } from './sim';

/** Stored market runs for the Runs page, read from IndexedDB; the worker writes them. */
export class MarketRunsStore extends RunExportStore {
  runs = $state.raw<MarketRunRow[]>([]);

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
    const [runs, live] = await Promise.all([listMarketRuns(this.db()), liveRunIds()]);
    // A run marked running that no worker plays was cut off (its tab closed).
    this.runs = runs.map((run) => (run.status === 'running' && !live.has(run.id) ? { ...run, status: 'interrupted' } : run));
  }

  async remove(run: MarketRunRow): Promise<void> {
    if (run.status === 'running') sim().send({ type: 'market.cancel', runId: run.id });
    await deleteMarketRun(this.db(), run.id);
    this.notice = { kind: 'info', text: `Deleted "${isolateText(run.name)}".` };
    await this.refresh();
  }
}
