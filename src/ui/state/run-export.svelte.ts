import type { CsvTable } from '../../worker/messages';
import { downloadRunExport, saveBlob } from '../download';
import { newId, sim } from './sim';

/** A notice over a list of runs, a busy flag, and a run's export: the Runs page's store and a market run's page share them. */
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

/**
 * A run's downloads on its page, every one built by the worker: its standings and its negotiations
 * as CSV, the whole run as JSON or JSONL. One at a time; `status` says how the last one went.
 */
export class RunDownloads {
  busy = $state(false);
  status = $state('');
  failed = $state(false);

  constructor(private readonly runId: () => string) {}

  /** The standings or the negotiations, as CSV; the negotiations' count is reported as they are read. */
  csv(table: CsvTable): Promise<void> {
    return this.run(async () => {
      const requestId = newId();
      let read = 0;
      const stop = sim().subscribe((m) => {
        if (m.type !== 'csv.progress' || m.requestId !== requestId) return;
        read = m.done;
        this.status = `Reading negotiations: ${read.toLocaleString('en-US')} so far…`;
      });
      try {
        const reply = await sim().request({ type: 'csv', requestId, runId: this.runId(), table });
        if (reply.type === 'failed') throw new Error(reply.message);
        saveBlob(reply.blob, reply.fileName);
        return table === 'negotiations' ? `Saved ${reply.fileName} (${read.toLocaleString('en-US')} negotiations).` : `Saved ${reply.fileName}.`;
      } finally {
        stop();
      }
    });
  }

  /** The whole run, as the app's JSON or the CLI's JSONL. */
  file(format: 'json' | 'jsonl'): Promise<void> {
    return this.run(async () => {
      this.status = `Preparing the ${format.toUpperCase()} file…`;
      const saved = await downloadRunExport(this.runId(), format);
      if (!saved.ok) throw new Error(saved.error);
      return `Saved ${saved.value}.`;
    });
  }

  private async run(task: () => Promise<string>): Promise<void> {
    this.busy = true;
    this.failed = false;
    try {
      this.status = await task();
    } catch (e) {
      this.failed = true;
      this.status = `Download failed: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.busy = false;
    }
  }
}
