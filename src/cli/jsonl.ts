import type { NegotiationResult } from '../games/bilateral/tournament';
import type { GameName, RunOf } from '../storage/games';
import { filesOf } from '../storage/games/files';
import type { FileRecordOf } from '../storage/games/store';
import { EXPORT_FORMAT_JSONL } from '../storage/run-file';
import { exportedNegotiation } from '../storage/schema';
import { HeadedJsonlFile } from './output-file';

/** How a game's results become lines of its run file: the line of one finished result, as JSON. */
export interface JsonlLines<G extends GameName, Result> {
  game: G;
  line(result: Result): string;
}

/** A negotiation's line carries both seats' oracle figures (`oracle`), derived data an import checks and keeps none of. */
export const negotiationLines: JsonlLines<'bilateral', NegotiationResult> = {
  game: 'bilateral',
  line: (result) => {
    const figures = (seat: 'buyer' | 'seller') => {
      const { oracleShare, oracleGap } = result.metrics[seat];
      return oracleShare === null || oracleGap === null ? null : { oracleShare, oracleGap };
    };
    return JSON.stringify({ ...exportedNegotiation(result), oracle: { buyer: figures('buyer'), seller: figures('seller') } });
  },
};

/**
 * Writes a run of any game in the app's JSONL run-file format: a header line
 * `{"format":"parley-run-jsonl","version":N,"game":"…","run":{…}}`, then one line a line (a
 * negotiation, a market). The header holds the final count, which is known only at the end, so the
 * lines stream to a side file as they arrive (no event log is kept in memory) and `finish` writes
 * the header, appends them and moves the whole into place: the path never holds a half-written
 * run, and two tournaments writing one path each use temporary files of their own (output-file.ts).
 */
export class RunJsonlWriter<G extends GameName = 'bilateral', Result = NegotiationResult> {
  private count = 0;

  private constructor(
    private readonly file: HeadedJsonlFile,
    private readonly lines: JsonlLines<G, Result>,
  ) {}

  /** Opens the side file next to `path` for a run of the game `lines` writes (bilateral unless told); fails at once when the folder cannot be written. */
  static async open<G extends GameName = 'bilateral', Result = NegotiationResult>(
    path: string,
    lines: JsonlLines<G, Result> = negotiationLines as unknown as JsonlLines<G, Result>,
  ): Promise<RunJsonlWriter<G, Result>> {
    return new RunJsonlWriter(await HeadedJsonlFile.open(path), lines);
  }

  /** Lines written so far. */
  get written(): number {
    return this.count;
  }

  async add(result: Result): Promise<void> {
    this.count++;
    await this.file.add(this.lines.line(result) + '\n');
  }

  /** Writes the header for `run` (whose `done` must be the lines added), then the lines. */
  async finish(run: FileRecordOf<RunOf<G>>): Promise<void> {
    if (run.done !== this.count) throw new Error(`run.done is ${run.done} but ${this.count} lines were written`);
    const { game } = this.lines;
    await this.file.finish(JSON.stringify({ format: EXPORT_FORMAT_JSONL, version: filesOf(game).fileVersion(run), game, run }) + '\n');
  }

  /** Removes the side files after a failure; the path itself is left as it was. */
  async abandon(): Promise<void> {
    await this.file.abandon();
  }
}
