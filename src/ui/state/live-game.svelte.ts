import { sim } from './sim';

export type LiveGameStatus = 'idle' | 'playing' | 'finished' | 'failed';

/**
 * A game played live in the worker and paced from the page (Arena, Market): the delay between
 * moves, pause, one step and stop, each sent while the game plays; the delay and pause set before a
 * start are what the game starts with. Each game names the control message its worker reads.
 */
export abstract class LiveGame {
  status = $state<LiveGameStatus>('idle');
  delayMs: number;
  paused = $state(false);
  /** The game playing or last played, as the worker knows it. */
  protected gameId: string | null = null;

  constructor(
    private readonly controlType: 'arena.control' | 'market.control',
    delayMs: number,
  ) {
    this.delayMs = $state(delayMs);
  }

  setDelay(delayMs: number): void {
    this.delayMs = delayMs;
    this.control({ delayMs });
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.control({ paused });
  }

  step(): void {
    this.control({ step: true });
  }

  cancel(): void {
    this.control({ cancel: true });
  }

  private control(change: { delayMs?: number; paused?: boolean; step?: boolean; cancel?: boolean }): void {
    if (this.gameId && this.status === 'playing') sim().send({ type: this.controlType, gameId: this.gameId, ...change });
  }
}
