import { liveRunIds, type ParleyDb } from '../../storage';
import { deleteMarketRun, listMarketRuns } from '../../storage/market-runs';
import type { MarketRunRow } from '../../storage/market-schema';
import { downloadRunExport } from '../download';
import { sim } from './sim';

/** Stored market runs for the Runs page, read from IndexedDB; the worker writes them. */
export class MarketRunsStore {
  runs = $state.raw<MarketRunRow[]>([]);
  notice = $state<{ kind: 'error' | 'info'; text: string } | null>(null);
  busy = $state(false);

  constructor(readonly db: () => ParleyDb) {}

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
    this.notice = { kind: 'info', text: `Deleted "${run.name}".` };
    await this.refresh();
  }

  /** The worker writes the file (the app's JSON, or the CLI's `parley-market-jsonl`); the browser downloads it. */
  async exportRun(run: MarketRunRow, format: 'json' | 'jsonl'): Promise<void> {
    this.busy = true;
    try {
      const saved = await downloadRunExport(run.id, format);
      this.notice = saved.ok ? { kind: 'info', text: `Exported ${saved.value}.` } : { kind: 'error', text: `Export failed: ${saved.error}` };
    } finally {
      this.busy = false;
    }
  }
}
