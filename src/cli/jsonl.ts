import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { NegotiationResult } from '../core/bilateral/tournament';
import { EXPORT_FORMAT_JSONL, exportVersionOf } from '../storage/run-file';
import { exportedNegotiation, type RunRecord } from '../storage/schema';

/** Negotiation lines are buffered up to this many characters before they are written. */
const FLUSH_AT = 1 << 20;

/**
 * Writes a run in the app's JSONL export format: a header line
 * `{"format":"parley-run-jsonl","version":N,"run":{…}}`, then one negotiation a line. The header
 * holds the final count, which is known only at the end, so the negotiations stream to a side file
 * as they arrive (no event log is kept in memory) and `finish` writes the header, appends them and
 * moves the whole into place: the path never holds a half-written run. Each line also carries both
 * seats' oracle figures (`oracle`), derived data an import checks and keeps none of.
 */
export class RunJsonlWriter {
  private buffer: string[] = [];
  private buffered = 0;
  private count = 0;

  private constructor(
    private readonly path: string,
    private readonly rowsPath: string,
    private readonly rows: FileHandle,
  ) {}

  /** Opens the side file next to `path`; fails at once when the folder cannot be written. */
  static async open(path: string): Promise<RunJsonlWriter> {
    const rowsPath = `${path}.rows.tmp`;
    return new RunJsonlWriter(path, rowsPath, await open(rowsPath, 'w'));
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
    this.buffer.push(line);
    this.buffered += line.length;
    this.count++;
    if (this.buffered >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.buffered = 0;
    await this.rows.writeFile(text);
  }

  /** Writes the header for `run` (whose `done` must be the negotiations added), then the negotiations. */
  async finish(run: RunRecord): Promise<void> {
    if (run.done !== this.count) throw new Error(`run.done is ${run.done} but ${this.count} negotiations were written`);
    await this.flush();
    await this.rows.close();
    const partPath = `${this.path}.tmp`;
    const head = JSON.stringify({ format: EXPORT_FORMAT_JSONL, version: exportVersionOf(run), run }) + '\n';
    const out = createWriteStream(partPath);
    out.write(head);
    await pipeline(createReadStream(this.rowsPath), out);
    await rename(partPath, this.path);
    await rm(this.rowsPath, { force: true });
  }

  /** Removes the side files after a failure; the path itself is left as it was. */
  async abandon(): Promise<void> {
    await this.rows.close().catch(() => undefined);
    await rm(this.rowsPath, { force: true });
    await rm(`${this.path}.tmp`, { force: true });
  }
}
