import type { Game } from '../../storage/games';
import type { RunStatus } from '../../storage/schema';
import { getRun, markCutOff } from '../../storage/runs';
import type { FromWorker } from '../../worker/messages';
import { database, sim } from './sim';

/** How a game's worker is told to stop a run, and what its runs store, in words. */
interface RunTerms {
  game: Game;
  cancel: 'run.cancel' | 'market.cancel';
  /** After "The run is interrupted: ", what is kept and how to go on. */
  interrupted: string;
}

/**
 * A stored run (a tournament of either game) as the page follows it while the worker plays it: its
 * status and message, whether it is stored yet, and what a failure or the worker's death makes of
 * it. Each game reads its own progress and status messages in `take`.
 */
export abstract class FollowedRun {
  runId = $state<string | null>(null);
  status = $state<RunStatus | null>(null);
  message = $state<string | null>(null);
  /**
   * Whether the run is stored, so that the page may link to it: true once the worker reports on it,
   * false when it failed before it was created (the page then says so and links to nothing).
   */
  stored = $state<boolean | null>(null);
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly terms: RunTerms) {}

  /** Reads the game's news of the run followed (progress, status), handed only messages that name it; true where `m` was such news. */
  protected abstract take(m: FromWorker): boolean;

  /** Follows `runId` from now on, as running; `stored`: whether it is known to be stored already (a resumed run is). */
  protected follow(runId: string, stored: boolean | null): void {
    this.unsubscribe?.();
    Object.assign(this, { runId, status: 'running', message: null, stored });
    this.unsubscribe = sim().subscribe((m) => {
      if (m.type === 'worker.stopped') {
        // The worker playing it died: the run is interrupted, what it stored kept, and it can be resumed.
        if (m.runs.includes(runId)) {
          this.status = 'interrupted';
          this.message = `${m.message} The run is interrupted: ${this.terms.interrupted}`;
          void markCutOff(database(), runId).catch(() => undefined);
        } else if (this.status === 'running') [this.status, this.message] = ['failed', m.message];
        return;
      }
      if (!('runId' in m) || m.runId !== runId) return;
      if (m.type === 'failed') {
        this.status = 'failed';
        this.message = m.message;
        void this.checkStored(runId);
      } else if (this.take(m)) this.stored = true;
    });
  }

  /** After a failure: is there a run to link to? (A start can fail before the run is created: a full disk, a bad seat.) */
  private async checkStored(runId: string): Promise<void> {
    const found = await getRun(database(), runId, this.terms.game).then(
      (run) => run !== undefined,
      () => false,
    );
    if (this.runId === runId) this.stored = found;
  }

  cancel(): void {
    if (this.runId) sim().send({ type: this.terms.cancel, runId: this.runId });
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
