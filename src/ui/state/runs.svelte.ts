import { deleteRun, listRuns, liveRunIds, markInterrupted, storageUsage, type RunRow } from '../../storage';
import { database, newId, sim } from './sim';

/** Stored runs, read from IndexedDB on the page; changes go through the worker or Dexie. */
export class RunsStore {
  runs = $state.raw<RunRow[]>([]);
  loaded = $state(false);
  usage = $state.raw<{ usage: number; quota: number } | null>(null);
  notice = $state<{ kind: 'error' | 'info'; text: string } | null>(null);
  busy = $state(false);

  constructor() {
    sim().subscribe((m) => {
      if (m.type === 'run.status' || m.type === 'arena.end' || m.type === 'imported') void this.refresh();
    });
  }

  /** At start-up, a run left `running` with no worker holding its lock was interrupted. */
  async init(): Promise<void> {
    const live = await liveRunIds();
    await markInterrupted(database(), (id) => live.has(id));
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const [runs, live] = await Promise.all([listRuns(database()), liveRunIds()]);
    // A run marked running that no worker holds is not running, whether or not that could be
    // written down (on a full disk it cannot): it shows as interrupted, ready to resume.
    this.runs = runs.map((run) => (run.status === 'running' && !live.has(run.id) ? { ...run, status: 'interrupted' } : run));
    this.usage = await storageUsage();
    this.loaded = true;
  }

  async remove(run: RunRow): Promise<void> {
    if (run.status === 'running') sim().send({ type: 'run.cancel', runId: run.id });
    await deleteRun(database(), run.id);
    this.notice = { kind: 'info', text: `Deleted "${run.name}".` };
    await this.refresh();
  }

  /** Asks the worker for the file, then hands it to the browser as a download. */
  async exportRun(run: RunRow, format: 'json' | 'jsonl'): Promise<void> {
    this.busy = true;
    try {
      const reply = await sim().request({ type: 'export', requestId: newId(), runId: run.id, format });
      if (reply.type === 'failed') {
        this.notice = { kind: 'error', text: `Export failed: ${reply.message}` };
        return;
      }
      if (reply.type !== 'exported') return;
      const url = URL.createObjectURL(reply.blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = reply.fileName;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      this.notice = { kind: 'info', text: `Exported ${reply.fileName}.` };
    } finally {
      this.busy = false;
    }
  }

  /** Validates and stores a run file in the worker; nothing is written if it is invalid. */
  async importFile(file: File): Promise<string | null> {
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
