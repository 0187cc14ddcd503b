import type { BilateralEvent } from '../../games/bilateral/events';
import type { ToWorker } from '../../worker/messages';
import { sim } from './sim';

type CompareRequest = Extract<ToWorker, { type: 'arena.compare' }>;

/** The debrief's replays: each scripted strategy in the user's seat, played by the worker. */
export class SeatComparison {
  status = $state<'idle' | 'playing' | 'done' | 'failed'>('idle');
  games = $state.raw<{ strategy: string; events: BilateralEvent[] }[] | null>(null);
  error = $state<string | null>(null);
  /** The request in flight; an answer to an older one (a game since replaced) is dropped. */
  private current: string | null = null;

  reset(): void {
    this.current = null;
    this.status = 'idle';
    this.games = null;
    this.error = null;
  }

  async run(request: CompareRequest): Promise<void> {
    this.reset();
    this.current = request.requestId;
    this.status = 'playing';
    const reply = await sim().request(request);
    if (this.current !== request.requestId) return;
    if (reply.type === 'arena.compared') {
      this.games = reply.games;
      this.status = 'done';
    } else {
      this.error = reply.message;
      this.status = 'failed';
    }
  }
}
