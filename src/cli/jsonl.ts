import type { NegotiationResult } from '../core/bilateral/tournament';
import { EXPORT_FORMAT_JSONL, exportVersionOf } from '../storage/run-file';
import { exportedNegotiation, type RunRecord } from '../storage/schema';
import { HeadedJsonlFile } from './output-file';

/**
 * Writes a run in the app's JSONL export format: a header line
 * `{"format":"parley-run-jsonl","version":N,"run":{…}}`, then one negotiation a line. The header
 * holds the final count, which is known only at the end, so the negotiations stream to a side file
 * as they arrive (no event log is kept in memory) and `finish` writes the header, appends them and
 * moves the whole into place: the path never holds a half-written run, and two tournaments writing
 * one path each use temporary files of their own (output-file.ts). Each line also carries both
 * seats' oracle figures (`oracle`), derived data an import checks and keeps none of.
 */
export class RunJsonlWriter {
  private count = 0;

  private constructor(private readonly file: HeadedJsonlFile) {}

  /** Opens the side file next to `path`; fails at once when the folder cannot be written. */
  static async open(path: string): Promise<RunJsonlWriter> {
    return new RunJsonlWriter(await HeadedJsonlFile.open(path));
  }

  /** Negotiations written so far. */
  get written(): number {
    return this.count;
  }

  /** Adds a negotiation (its metrics' oracle figures, scored already, go on its line). */
  async add(result: NegotiationResult): Promise<void> {
    const figures = (seat: 'buyer' | 'seller') => {
      const { oracleShare, oracleGap } = result.metrics[seat];
      return oracleShare === null || oracleGap === null ? null : { oracleShare, oracleGap };
    };
    const line = JSON.stringify({ ...exportedNegotiation(result), oracle: { buyer: figures('buyer'), seller: figures('seller') } }) + '\n';
    this.count++;
    await this.file.add(line);
  }

  /** Writes the header for `run` (whose `done` must be the negotiations added), then the negotiations. */
  async finish(run: RunRecord): Promise<void> {
    if (run.done !== this.count) throw new Error(`run.done is ${run.done} but ${this.count} negotiations were written`);
    await this.file.finish(JSON.stringify({ format: EXPORT_FORMAT_JSONL, version: exportVersionOf(run), run }) + '\n');
  }

  /** Removes the side files after a failure; the path itself is left as it was. */
  async abandon(): Promise<void> {
    await this.file.abandon();
  }
}
