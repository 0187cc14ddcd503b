import { randomId } from '../engine/id';
import { idTables, importedIdentity } from './import-id';
import { handInKey, type HandIn, type HandInVia } from './hand-in-records';
import { err, ok, type Result } from '../engine/result';
import type { ParleyDb } from './db';
import { addBatches, scanJson } from './batches';
import { asStorageError } from './errors';
import { jsonFile, jsonlFile, runRecordOf } from './file-format';
import { gameOfRow, storeOf, type GameName, type RunOf, type StoredRun } from './games';
import { filesOf } from './games/files';
import type { FileRecordOf } from './games/store';
import { EXPORT_FORMAT, EXPORT_FORMAT_JSONL, readRunFile, sizeProblem, type Chosen, type GameChoice, type ImportError } from './run-file';

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

export interface ImportOptions<C extends GameChoice = 'bilateral'> {
  /** Becomes the imported run's `updatedAt`. */
  now: number;
  /** The games taken (default bilateral; `'any'` for the Runs page's import); a file of another game is refused. */
  game?: C;
  /** Id for the copy made when the run's id is already taken (default a random UUID). */
  newId?: () => string;
  /** The file's size in bytes, when known; checked before anything else. */
  size?: number;
  /** How the game was handed in (kept for the class page); default a file. */
  via?: HandInVia;
}

/** The run and its lines as one consistent snapshot, each line as its game's files write it. */
async function snapshot(db: ParleyDb, runId: string): Promise<{ game: GameName; run: FileRecordOf<StoredRun>; lines: string[] }> {
  return db.transaction('r', db.runs, db.batches, db.digests, async () => {
    const run = await db.runs.get(runId);
    if (!run) throw new Error(`no run with id ${runId}`);
    const game = gameOfRow(run);
    if (game === null) throw new Error(`run ${runId} names no game this Parley knows`);
    const files = filesOf(game);
    const lines: string[] = [];
    await scanJson(db, runId, (json) => {
      for (const line of json) lines.push(files.exportLine(line));
    });
    // `done` is what the file holds, so the file always passes its own import check.
    return { game, run: runRecordOf(run, lines.length), lines };
  });
}

/** `{"format":"parley-run","version":N,"game":"…","run":{…},"negotiations":[…]}` (`"markets"` for a market run); standings are left out. */
export async function exportRunJson(db: ParleyDb, runId: string): Promise<string> {
  const { game, run, lines } = await snapshot(db, runId);
  return jsonFile({ format: EXPORT_FORMAT, version: filesOf(game).fileVersion(run), game, run }, storeOf(game).items, lines);
}

/** A header line `{"format":"parley-run-jsonl","version":N,"game":"…","run":{…}}`, then one line (negotiation, market) a line. */
export async function exportRunJsonl(db: ParleyDb, runId: string): Promise<string> {
  const { game, run, lines } = await snapshot(db, runId);
  return jsonlFile({ format: EXPORT_FORMAT_JSONL, version: filesOf(game).fileVersion(run), game, run }, lines);
}

/**
 * Reads a JSON or JSONL run file of the games asked for (bilateral unless told) and stores it as a
 * new run. Everything is validated before anything is written, and everything is written in one
 * transaction: on any error the database is untouched. A game that counts once (an Arena game,
 * content.ts: whatever its name) already stored is refused as a duplicate; a run whose id is taken
 * by another (a tournament imported back) is imported as a copy under a new id. Standings are
 * recomputed. Throws StorageFullError when the browser refuses the space.
 */
export async function importRun<C extends GameChoice = 'bilateral'>(
  db: ParleyDb,
  text: string,
  opts: ImportOptions<C>,
): Promise<Result<RunOf<Chosen<C>>, ImportError>> {
  const file = readRunFile(text, opts.size, opts.game);
  if (!file.ok) return file;
  const { game, run, rows } = file.value;
  const standings = filesOf(game).standings(run, rows);
  try {
    const stored = await storeRun(db, game, run as FileRecordOf<StoredRun>, rows, standings, opts);
    if ('same' in stored)
      return err({
        kind: 'duplicate',
        message: `this game is already stored, as “${stored.same.name}”; it counts once, so nothing was imported`,
        same: stored.same,
      });
    return ok(stored as RunOf<Chosen<C>>);
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
export async function importRunFile<C extends GameChoice = 'bilateral'>(
  db: ParleyDb,
  file: Pick<Blob, 'size' | 'text'>,
  opts: Omit<ImportOptions<C>, 'size'>,
): Promise<Result<RunOf<Chosen<C>>, ImportError>> {
  const tooLarge = sizeProblem(file.size);
  if (tooLarge) return err(tooLarge);
  let text: string;
  try {
    text = await file.text();
  } catch (e) {
    return err({ kind: 'invalid-file', message: `the file could not be read (${e instanceof Error ? e.message : String(e)})` });
  }
  return importRun<C>(db, text, { ...opts, size: file.size });
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

async function storeRun(
  db: ParleyDb,
  game: GameName,
  run: FileRecordOf<StoredRun>,
  lines: readonly unknown[],
  standings: unknown,
  opts: ImportOptions<GameChoice>,
): Promise<StoredRun | { same: { id: string; name: string } }> {
  const newId = opts.newId ?? randomId;
  const [store, files] = [storeOf(game), filesOf(game)];
  return db.transaction('rw', [...idTables(db), db.digests, db.settings], async () => {
    // In the same transaction as the write, so two imports of one game at once store it once.
    const same = (await files.sameStored?.(db, run, lines)) ?? null;
    if (same) return { same };
    const { id, name } = await importedIdentity(db, run, newId);
    const stored = { ...run, id, game, name, updatedAt: opts.now, status: files.importedStatus(run), standings } as StoredRun;
    await db.runs.add(stored);
    await addBatches(db, store, id, lines);
    await db.settings.put({ key: handInKey(id), value: { via: opts.via ?? 'file', at: opts.now } satisfies HandIn });
    return stored;
  });
}
