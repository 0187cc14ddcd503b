import type { SftSummary } from '../../training/sft';
import type { ToWorker } from '../../worker/messages';
import { newId, sim } from './sim';

export type SftExportRequest = Omit<Extract<ToWorker, { type: 'sft.export' }>, 'type' | 'requestId'>;

/**
 * One run's fine-tuning export, built by the worker: first the summary of what the filters pick,
 * then (asked for separately) the train and validation files, with progress.
 */
export class SftExportJob {
  status = $state<'idle' | 'summing' | 'building' | 'failed'>('idle');
  summary = $state.raw<SftSummary | null>(null);
  negotiations = $state(0);
  progress = $state<{ done: number; total: number } | null>(null);
  error = $state<string | null>(null);
  /** The request in flight; an answer to an older one (filters since changed) is dropped. */
  private current: string | null = null;
  private unsubscribe: (() => void) | null = null;

  /** Forgets the summary (the filters changed) and stops a build under way. */
  reset(): void {
    this.cancel();
    this.status = 'idle';
    this.summary = null;
    this.error = null;
    this.progress = null;
  }

  cancel(): void {
    if (this.current !== null) sim().send({ type: 'sft.cancel', running: this.current });
    this.current = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** The summary alone, or (`build`) the files too: null when superseded or failed. */
  async run(request: SftExportRequest): Promise<{ train: Blob | null; validation: Blob | null } | null> {
    this.cancel();
    const requestId = newId();
    this.current = requestId;
    this.error = null;
    this.status = request.build ? 'building' : 'summing';
    this.progress = null;
    this.unsubscribe = sim().subscribe((m) => {
      if (m.type === 'sft.progress' && m.requestId === requestId) this.progress = { done: m.done, total: m.total };
    });
    const reply = await sim().request({ type: 'sft.export', requestId, ...request });
    if (this.current !== requestId) return null;
    this.current = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (reply.type !== 'sft.exported') {
      this.error = reply.message;
      this.status = 'failed';
      return null;
    }
    this.summary = reply.summary;
    this.negotiations = reply.negotiations;
    this.status = 'idle';
    return { train: reply.train, validation: reply.validation };
  }
}
