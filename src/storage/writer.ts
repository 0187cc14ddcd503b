import type { ParleyDb } from './db';
import { asStorageError } from './errors';
import { batchOf, BATCH_SIZE } from './batches';
import { storeOf, type GameName, type LineOf } from './games';
import { storedJobIds } from './runs';

export { StorageFullError } from './errors';

export interface WriterOptions<G extends GameName = GameName> {
  /** The run's game, whose lines are written (default bilateral). */
  game?: G;
  /** Lines per transaction at most (default 500, a batch record's size). */
  maxBatch?: number;
  /** A line added this long after the last flush is written at once (default 250 ms). */
  maxDelayMs?: number;
  now?: () => number;
}

/**
 * Buffers a run's finished lines (negotiations, markets: any game's) and writes them in batches,
 * each batch one record (and its digest). Each batch goes in one transaction with the run's `done`
 * and `updatedAt`, so progress never counts a line that is not there. The run's stored job ids are
 * read once, by the first write, and kept in memory: a line already stored (a job replayed after a
 * crash) is neither stored nor counted again. A line that arrives `maxDelayMs` or more after the
 * last write goes in at once, so a slow run writes every line as it arrives and a fast one writes
 * every `maxDelayMs` or `maxBatch` lines. There is no timer: lines wait until the next add() or
 * flush(), so call flush() when the run stops.
 */
export class RunWriter<G extends GameName = 'bilateral'> {
  private readonly store;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly now: () => number;
  private pending: LineOf<G>[] = [];
  private lastFlushAt: number;
  private writing: Promise<void> | null = null;
  /** Job ids of the run's stored lines, once the first write has read them. */
  private stored: Set<string> | null = null;

  constructor(
    private readonly db: ParleyDb,
    private readonly runId: string,
    opts: WriterOptions<G> = {},
  ) {
    this.store = storeOf(opts.game ?? 'bilateral');
    this.maxBatch = Math.max(1, Math.floor(opts.maxBatch ?? BATCH_SIZE));
    this.maxDelayMs = opts.maxDelayMs ?? 250;
    this.now = opts.now ?? (() => Date.now());
    this.lastFlushAt = this.now();
  }

  /** Lines added but not yet written (after a StorageFullError, the ones a later flush retries). */
  get buffered(): number {
    return this.pending.length;
  }

  /** Throws StorageFullError when the batch it flushes does not fit; the lines stay buffered. */
  async add(line: LineOf<G>): Promise<void> {
    this.pending.push(line);
    if (this.pending.length >= this.maxBatch || this.now() - this.lastFlushAt >= this.maxDelayMs) await this.flush();
  }

  /** Writes everything buffered, one batch per transaction. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing.catch(() => undefined);
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, this.maxBatch);
      this.writing = this.write(batch);
      try {
        await this.writing;
      } catch (e) {
        throw asStorageError(e);
      } finally {
        this.writing = null;
      }
      // Only a committed batch leaves the buffer; a failed one is retried by the next flush.
      this.pending.splice(0, batch.length);
      this.lastFlushAt = this.now();
    }
  }

  private async write(batch: LineOf<G>[]): Promise<void> {
    const { db, runId, store } = this;
    const fresh: LineOf<G>[] = [];
    await db.transaction('rw', db.runs, db.batches, db.digests, async () => {
      // A run deleted while it was playing must not come back as orphaned lines.
      if ((await db.runs.where('id').equals(runId).count()) === 0) return;
      const stored = (this.stored ??= await storedJobIds(db, runId));
      const seen = new Set<string>();
      for (const line of batch) {
        const jobId = store.jobId(line);
        if (stored.has(jobId) || seen.has(jobId)) continue;
        seen.add(jobId);
        fresh.push(line);
      }
      if (fresh.length > 0) {
        const { batch: record, digest } = batchOf(store, runId, fresh);
        await db.batches.add(record);
        await db.digests.add(digest);
      }
      await db.runs.update(runId, { done: stored.size + fresh.length, updatedAt: this.now() });
    });
    // Only now has the batch committed.
    for (const line of fresh) this.stored?.add(store.jobId(line));
  }
}
