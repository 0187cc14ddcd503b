/** Time is passed in, never read by the core. */
export interface Clock {
  now(): number;
  /** Resolves after ms; rejects with the signal's reason if aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A clock that moves only when told to: tests drive timeouts without waiting. */
export class SimulatedClock implements Clock {
  private time = 0;
  private sleepers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper = { at: this.time + ms, resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward and wakes every sleeper that is due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.sleepers.filter((s) => s.at <= this.time);
    this.sleepers = this.sleepers.filter((s) => s.at > this.time);
    for (const s of due) s.resolve();
  }
}
