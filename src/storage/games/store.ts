/**
 * What storage needs from a game: how its runs, lines and digests look (`GameStore`), and how its
 * run files are written and checked (`GameFiles`). One writer, one reader, one delete, one salvage
 * and one run-file format serve every game through these: a game describes itself once, in two
 * parts kept apart so that the page never loads a file checker, and is named in index.ts (the
 * compiler then asks files.ts for its file part).
 */
import type { z } from 'zod';
import type { Located, Step } from '../file-format';
import type { RunStatus } from '../schema';
import type { Checked } from '../stored-records';
import type { RunTables } from '../tables';

/** What every stored run row holds, whatever its game. */
export interface StoredRunBase<G extends string = string> {
  id: string;
  /** Which game's descriptor reads the run, its lines and its digests. */
  game: G;
  name: string;
  createdAt: number;
  updatedAt: number;
  status: RunStatus;
  config: unknown;
  planned: number;
  done: number;
  message: string | null;
  /** Derived (an import recomputes them), so each game checks only the shape its pages read. */
  standings: unknown;
}

/** A run as its file holds it: no game (the header names it) and no standings. */
export type FileRecordOf<Run extends StoredRunBase> = Omit<Run, 'game' | 'standings'>;

/** A file's run and lines, each parsed by the game's schemas and located for messages. */
export interface ParsedFile<Run extends StoredRunBase, FileLine> {
  run: FileRecordOf<Run>;
  lines: Located<FileLine>[];
  /** JSONL: a file cut at a line boundary is short of lines; JSON cannot be cut and still parse. */
  jsonl: boolean;
  /** `line 1: ` in a JSONL file, where the run is; empty in a JSON file. */
  at: string;
}

/** A run file checked whole: its run, and its lines in plan order without derived data. */
export interface FileRun<Run extends StoredRunBase, Line> {
  run: FileRecordOf<Run>;
  lines: Line[];
}

/**
 * How a game's runs lie in the database: their rows, their lines and their digests. It stays small
 * (schemas and field lists), since the page reads runs through it; what reads and checks run files
 * is the game's `GameFiles`, which only the worker and the command line load.
 */
export interface GameStore<G extends string, Run extends StoredRunBase<G>, Line, Columns extends object> {
  readonly game: G;
  /** One of what its runs hold, in words (`negotiation`), and many: a JSON run file's list key, the salvage file's. */
  readonly item: string;
  readonly items: string;
  /** A stored run row read back: parsed, its standings kept only if readable, or damaged with the reason. */
  checkRun(raw: unknown): Checked<Run>;
  /** A stored line, as a salvage checks one. */
  readonly line: z.ZodType<Line>;
  /** The job id that names a line in its run (resume and dedupe by it) and its place in the plan. */
  jobId(line: Line): string;
  index(line: Line): number;
  /** A line as a batch record stores it: its JSON, with its keys in the file's order. */
  json(line: Line): string;
  /** What the run's lists filter and count on, one array per field in the lines' order (the digest). */
  columns(lines: readonly Line[]): Columns;
}

/** How a game's runs are written to and read from run files (run-file.ts, transfer.ts). */
export interface GameFiles<Run extends StoredRunBase, Line, FileLine> {
  /** The run file version a run is written as. */
  fileVersion(run: FileRecordOf<Run>): number;
  /** A stored line's JSON as an export writes it (with the derived data a game's files carry). */
  exportLine(json: string): string;
  /** A run as a file holds it, and each line as a file may hold it (derived data, older fields). */
  readonly fileRecord: z.ZodType<FileRecordOf<Run>>;
  readonly fileLine: z.ZodType<FileLine>;
  /** What the schemas cannot say: each line a job of the run's own plan, its log replayed, the counts. */
  checkFile(file: ParsedFile<Run, FileLine>): Step<FileRun<Run, Line>>;
  /** Standings over a run's lines in plan order: an import stores these. */
  standings(run: FileRecordOf<Run>, lines: readonly Line[]): Run['standings'];
  /** The status an imported run is stored with (a run that cannot resume and never finished stays cut short). */
  importedStatus(run: FileRecordOf<Run>): RunStatus;
  /** The stored run that already holds this very game, where a game counts once; inside the import's transaction. */
  sameStored?(db: RunTables, run: FileRecordOf<Run>, lines: readonly Line[]): Promise<{ id: string; name: string } | null>;
  /** The formats this game's runs were written in before the run file named its game (still imported). */
  readonly legacyFormats?: { json: string; jsonl: string; version: number };
}
