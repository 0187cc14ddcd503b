import type { ParleyDb } from './db';
import { asStorageError } from './errors';
import { batchOf } from './batches';
import { storedJobIds } from './runs';
import type { NegotiationRow } from './schema';

export { StorageFullError } from './errors';

export interface WriterOptions {
  /** Rows per transaction at most (default 500). */
  maxBatch?: number;
  /** A row added this long after the last flush is written at once (default 250 ms). */
  maxDelayMs?: number;
  now?: () => number;
}

/**
 * Buffers a run's finished negotiations and writes them in batches, each batch one record (and its
 * digest). Each batch goes in one transaction with the run's `done` and `updatedAt`, so progress
 * never counts a row that is not there. The run's stored job ids are read once, by the first write,
 * and kept in memory: a negotiation already stored (a job replayed after a crash) is neither stored
 * nor counted again. A row that arrives `maxDelayMs` or more after the last write goes in at once, so a slow run
 * writes every row as it arrives and a fast one writes every `maxDelayMs` or `maxBatch` rows. There
 * is no timer: rows wait until the next add() or flush(), so call flush() when the run stops.
 */
export class NegotiationWriter {
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly now: () => number;
  private pending: NegotiationRow[] = [];
  private lastFlushAt: number;
  private writing: Promise<void> | null = null;
  /** Job ids of the run's stored negotiations, once the first write has read them. */
  private stored: Set<string> | null = null;

  constructor(
    private readonly db: ParleyDb,
    private readonly runId: string,
    opts: WriterOptions = {},
  ) {
    this.maxBatch = Math.max(1, Math.floor(opts.maxBatch ?? 500));
    this.maxDelayMs = opts.maxDelayMs ?? 250;
    this.now = opts.now ?? (() => Date.now());
    this.lastFlushAt = this.now();
  }

  /** Rows added but not yet written (after a StorageFullError, the ones a later flush retries). */
  get buffered(): number {
    return this.pending.length;
  }

  /** Throws StorageFullError when the batch it flushes does not fit; the rows stay buffered. */
  async add(row: NegotiationRow): Promise<void> {
    if (row.runId !== this.runId)
      throw new Error(`negotiation ${row.id} belongs to run ${row.runId}, not ${this.runId}`);
    this.pending.push(row);
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

  private async write(batch: NegotiationRow[]): Promise<void> {
    const { db, runId } = this;
    const fresh: NegotiationRow[] = [];
    await db.transaction('rw', db.runs, db.batches, db.digests, async () => {
      // A run deleted while it was playing must not come back as orphaned negotiations.
      if ((await db.runs.where('id').equals(runId).count()) === 0) return;
      const stored = (this.stored ??= await storedJobIds(db, runId));
      const seen = new Set<string>();
      for (const row of batch) {
        if (stored.has(row.jobId) || seen.has(row.jobId)) continue;
        seen.add(row.jobId);
        fresh.push(row);
      }
      if (fresh.length > 0) {
        const { batch: record, digest } = batchOf(runId, fresh);
        await db.batches.add(record);
        await db.digests.add(digest);
      }
      await db.runs.update(runId, { done: stored.size + fresh.length, updatedAt: this.now() });
    });
    // Only now has the batch committed.
    for (const row of fresh) this.stored?.add(row.jobId);
  }
}
