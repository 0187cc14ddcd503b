import { randomId } from '../core/id';
import { idTables, importedIdentity } from './import-id';
import { sameStoredGame } from './content';
import { handInKey, type HandIn, type HandInVia } from './hand-in-records';
import { Aggregator } from '../core/bilateral/aggregate';
import { OracleScorer, scoredMetrics } from '../agents/oracle';
import { err, ok, type Result } from '../core/result';
import type { ParleyDb } from './db';
import { addBatches, scanJson } from './batches';
import { asStorageError } from './errors';
import { jsonFile, jsonlFile, runRecordOf } from './file-format';
import { EXPORT_FORMAT, EXPORT_FORMAT_JSONL, exportVersionOf, readRunFile, sizeProblem, type ImportError } from './run-file';
import type { ExportedNegotiation, RunRecord, RunRow } from './schema';

export {
  EXPORT_FORMAT,
  EXPORT_FORMAT_JSONL,
  EXPORT_VERSION,
  IMPORT_ERROR_KINDS,
  MAX_IMPORT_BYTES,
  sizeProblem,
  type ImportError,
  type ImportErrorKind,
} from './run-file';

export interface ImportOptions {
  /** Becomes the imported run's `updatedAt`. */
  now: number;
  /** Id for the copy made when the run's id is already taken (default a random UUID). */
  newId?: () => string;
  /** The file's size in bytes, when known; checked before anything else. */
  size?: number;
  /** How the game was handed in (kept for the class page); default a file. */
  via?: HandInVia;
}

/** The run and its negotiations as one consistent snapshot, each negotiation as stored: its export JSON. */
async function snapshot(db: ParleyDb, runId: string): Promise<{ run: RunRecord; lines: string[] }> {
  return db.transaction('r', db.runs, db.batches, db.digests, async () => {
    const run = await db.runs.get(runId);
    if (!run) throw new Error(`no run with id ${runId}`);
    const lines: string[] = [];
    await scanJson(db, runId, (json) => {
      for (const line of json) lines.push(line);
    });
    // `done` is what the file holds, so the file always passes its own import check.
    return { run: runRecordOf(run, lines.length), lines };
  });
}

/** `{"format":"parley-run","version":2,"run":{…},"negotiations":[…]}` (version 3 with a scenario list); standings are left out. */
export async function exportRunJson(db: ParleyDb, runId: string): Promise<string> {
  const { run, lines } = await snapshot(db, runId);
  return jsonFile({ format: EXPORT_FORMAT, version: exportVersionOf(run), run }, 'negotiations', lines);
}

/** A header line `{"format":"parley-run-jsonl","version":2,"run":{…}}`, then one negotiation a line. */
export async function exportRunJsonl(db: ParleyDb, runId: string): Promise<string> {
  const { run, lines } = await snapshot(db, runId);
  return jsonlFile({ format: EXPORT_FORMAT_JSONL, version: exportVersionOf(run), run }, lines);
}

/**
 * Reads a JSON or JSONL export and stores it as a new run. Everything is validated before anything
 * is written, and everything is written in one transaction: on any error the database is untouched.
 * An Arena game already stored (content.ts: whatever its name) is refused as a duplicate; a run
 * whose id is taken by another (a tournament imported back) is imported as a copy under a new id. Standings are recomputed.
 * Throws StorageFullError when the browser refuses the space.
 */
export async function importRun(db: ParleyDb, text: string, opts: ImportOptions): Promise<Result<RunRow, ImportError>> {
  const file = readRunFile(text, opts.size);
  if (!file.ok) return file;
  const { run, rows } = file.value;
  const standings = recomputeStandings(run, rows);
  try {
    const stored = await store(db, run, rows, standings, opts);
    if ('same' in stored)
      return err({ kind: 'duplicate', message: `this game is already stored, as “${stored.same.name}”; it counts once, so nothing was imported`, same: stored.same });
    return ok(stored);
  } catch (e) {
    if (isConstraintError(e))
      return err({
        kind: 'conflict',
        message: `the run's records clash with records already stored (${constraintDetail(e)}); nothing was imported`,
      });
    throw asStorageError(e);
  }
}

/**
 * `importRun` on a file as the page hands it over: its size is checked before a byte of it is read,
 * so a file too large to hold as text is refused as too large, not as unreadable.
 */
export async function importRunFile(
  db: ParleyDb,
  file: Pick<Blob, 'size' | 'text'>,
  opts: Omit<ImportOptions, 'size'>,
): Promise<Result<RunRow, ImportError>> {
  const tooLarge = sizeProblem(file.size);
  if (tooLarge) return err(tooLarge);
  let text: string;
  try {
    text = await file.text();
  } catch (e) {
    return err({ kind: 'invalid-file', message: `the file could not be read (${e instanceof Error ? e.message : String(e)})` });
  }
  return importRun(db, text, { ...opts, size: file.size });
}

/** Whether a failed write was refused for a key already in use (Dexie wraps it, or lists it among a bulk write's failures). */
function isConstraintError(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; inner?: unknown; failures?: unknown };
  if (e.name === 'ConstraintError') return true;
  if (isConstraintError(e.inner, depth + 1)) return true;
  return Array.isArray(e.failures) && e.failures.some((f) => isConstraintError(f, depth + 1));
}

/** Which key clashed, when the error says (never the whole of Dexie's message). */
function constraintDetail(error: unknown): string {
  const failures = (error as { failures?: unknown }).failures;
  const first = Array.isArray(failures) ? (failures[0] as { message?: unknown } | undefined) : undefined;
  const text = typeof first?.message === 'string' ? first.message : 'a key is already in use';
  return text.slice(0, 200);
}

/** Bootstrap resamples for the standings an import recomputes (the CLI's default). */
export const IMPORT_BOOTSTRAP_SAMPLES = 1000;

function recomputeStandings(run: RunRecord, rows: ExportedNegotiation[]): RunRow['standings'] {
  if (rows.length === 0) return null;
  const aggregator = new Aggregator();
  const scorer = new OracleScorer();
  for (const row of rows) aggregator.add(row.buyer, row.seller, row.scenario, scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer));
  const seed = run.config.kind === 'tournament' ? run.config.tournament.seed : 0;
  return aggregator.standings({ samples: IMPORT_BOOTSTRAP_SAMPLES, seed });
}


async function store(
  db: ParleyDb,
  run: RunRecord,
  rows: ExportedNegotiation[],
  standings: RunRow['standings'],
  opts: ImportOptions,
): Promise<RunRow | { same: { id: string; name: string } }> {
  const newId = opts.newId ?? randomId;
  return db.transaction('rw', [...idTables(db), db.digests, db.settings], async () => {
    // An Arena game counts once in a class's ranking, so one already stored (handed in twice, renamed,
    // or its result link opened again) is refused. A tournament imported back is a copy, as it was.
    // In the same transaction as the write, so two imports of one game at once store it once.
    const same = run.config.kind === 'arena' ? await sameStoredGame(db, run, rows) : null;
    if (same) return { same };
    const { id, name } = await importedIdentity(db, run, newId);
    const stored: RunRow = {
      ...run,
      id,
      name,
      updatedAt: opts.now,
      // An unfinished tournament resumes by its plan (the file was checked against it); an Arena
      // game cannot resume, so one that never finished stays as it is.
      status: run.done === run.planned ? 'done' : run.config.kind === 'tournament' ? 'interrupted' : 'cancelled',
      standings,
    };
    await db.runs.add(stored);
    await addBatches(db, id, rows);
    await db.settings.put({ key: handInKey(id), value: { via: opts.via ?? 'file', at: opts.now } satisfies HandIn });
    return stored;
  });
}

