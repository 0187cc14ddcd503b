import { downloadRunExport } from '../download';

/** What the Runs page's two stores (runs, market runs) share: a notice over the table, a busy flag, and a run's export. */
export class RunExportStore {
  notice = $state<{ kind: 'error' | 'info'; text: string } | null>(null);
  busy = $state(false);

  /**
   * Asks the worker for the file (the app's JSON, the CLI's JSONL, or what can be read of a damaged
   * run), then hands it to the browser as a download.
   */
  async exportRun(run: { id: string }, format: 'json' | 'jsonl' | 'salvage'): Promise<void> {
    this.busy = true;
    try {
      const saved = await downloadRunExport(run.id, format);
      this.notice = saved.ok ? { kind: 'info', text: `Exported ${saved.value}.` } : { kind: 'error', text: `Export failed: ${saved.error}` };
    } finally {
      this.busy = false;
    }
  }
}
