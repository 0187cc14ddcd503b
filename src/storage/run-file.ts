/**
 * Run files, one format for every game: `parley-run` (JSON: `{"format","version","game","run",
 * "<items>":[…]}`) and `parley-run-jsonl` (the header on line 1, then one line a line), where
 * `<items>` is the game's word for its lines (`negotiations`, `markets`). Reading checks the whole
 * file before anything is used. docs/file-formats.md describes the format.
 */
import { err, ok, type Result } from '../engine/result';
import {
  EXPORT_FORMAT,
  EXPORT_FORMAT_JSONL,
  fail,
  isRecord,
  parseJson,
  parseJsonList,
  parseJsonlBody,
  parseWith,
  sizeProblem,
  type ImportError,
  type Step,
} from './file-format';
import { GAMES, isKnownGame, knownGames, storeOf, type AnyGameStore, type GameName, type LineOf, type RunOf } from './games';
import { FILE_GAMES, filesOf, type AnyGameFiles } from './games/files';
import type { FileRecordOf, ParsedFile as ParsedFileOf, StoredRunBase } from './games/store';

export { EXPORT_FORMAT, EXPORT_FORMAT_JSONL, IMPORT_ERROR_KINDS, MAX_IMPORT_BYTES, sizeProblem, type ImportError, type ImportErrorKind } from './file-format';

/**
 * The newest version written. Version 2 stores a tournament's `deadline` and `firstMover` where
 * version 1 stored a fixed `turnLimit`; version-1 files still import (the config schema reads
 * `turnLimit` as a fixed deadline). Version 3 adds a tournament's own `scenarios` (a scenario file).
 * Version 4 adds the market game: the header names its game (`game`, bilateral where a file names
 * none), and a market's line its plan `index`; market runs were `parley-market` files before, which
 * still import. A file is written as the oldest version that holds it (its game's `fileVersion`:
 * 2 or 3 for a bilateral run, 4 for a market run), so every bilateral file stays as an older Parley
 * reads it, and an older Parley refuses a newer file as newer rather than misreading it.
 */
export const EXPORT_VERSION = 4;

/** The oldest version this Parley still reads; it reads every version from this to EXPORT_VERSION. */
export const OLDEST_IMPORT_VERSION = 1;

/** A run file checked whole: its game, its run, and its lines in plan order (`rows`) without derived data. */
export type CheckedRun<G extends GameName = 'bilateral'> = G extends unknown ? { game: G; run: FileRecordOf<RunOf<G>>; rows: LineOf<G>[] } : never;

/** Which games a reader takes: one, or `'any'` (every game, built in or registered). */
export type GameChoice = GameName | 'any';
export type Chosen<C extends GameChoice> = C extends 'any' ? GameName : Exclude<C, 'any'>;

/**
 * Reads a run file, JSON or JSONL, of `game` (bilateral unless told; `'any'` takes every game),
 * and checks all of it: the envelope, every part against its game's schemas, then what schemas
 * cannot say (the game's `checkFile`: each line a job of the run's own plan, each log replayed,
 * counts that match the plan). Lines come back in plan order.
 */
export function readRunFile<C extends GameChoice = 'bilateral'>(
  text: string,
  size: number = text.length,
  game?: C,
): Result<CheckedRun<Chosen<C>>, ImportError> {
  const tooLarge = sizeProblem(size);
  if (tooLarge) return err(tooLarge);
  const parsed = parseFile(text, game ?? 'bilateral');
  if (!parsed.ok) return parsed;
  const file = parsed.value;
  const checked = file.files.checkFile(file);
  return checked.ok ? ok({ game: file.store.game, run: checked.value.run, rows: checked.value.lines } as CheckedRun<Chosen<C>>) : checked;
}

// ---------------------------------------------------------------------------------------------
// Parsing: the file's envelope names its game; each part goes through that game's schemas.

interface ParsedFile extends ParsedFileOf<StoredRunBase, unknown> {
  store: AnyGameStore;
  files: AnyGameFiles;
}

/** The format a file names at its start: a run file's (either layout), or one of a game's older formats. */
function formatOf(format: unknown): { game: GameName | null; jsonl: boolean; version?: number } | null {
  if (format === EXPORT_FORMAT || format === EXPORT_FORMAT_JSONL) return { game: null, jsonl: format === EXPORT_FORMAT_JSONL };
  for (const game of GAMES) {
    const legacy = FILE_GAMES[game].legacyFormats;
    if (legacy && (format === legacy.json || format === legacy.jsonl)) return { game, jsonl: format === legacy.jsonl, version: legacy.version };
  }
  return null;
}

function parseFile(text: string, wanted: GameChoice): Step<ParsedFile> {
  if (text.trim() === '') return fail('invalid-file', 'the file is empty');
  const newline = text.indexOf('\n');
  const head = newline < 0 ? text : text.slice(0, newline);
  const first = parseJson(head);
  if (first.ok && isRecord(first.value) && formatOf(first.value.format)?.jsonl) return parseBody(text, first.value, true, wanted);
  // A one-line JSON export has already been parsed whole.
  const whole = first.ok && (newline < 0 || text.slice(newline).trim() === '') ? first : parseJson(text);
  if (!whole.ok) {
    if (endsInsideValue(text)) return fail('truncated', `the file ends in the middle of its JSON (${whole.error}); it looks cut off`);
    return fail('invalid-file', `not valid JSON: ${whole.error}`);
  }
  return parseBody(text, whole.value, false, wanted);
}

function parseBody(text: string, envelope: unknown, jsonl: boolean, wanted: GameChoice): Step<ParsedFile> {
  const at = jsonl ? 'line 1: ' : '';
  const header = checkEnvelope(envelope, jsonl, at);
  if (!header.ok) return header;
  const { game, value } = header.value;
  if (wanted !== 'any' && game !== wanted) return fail('wrong-game', `${at}the file holds a ${game} run; only a ${wanted} run is read here`);
  const [store, files] = [storeOf(game), filesOf(game)];
  const run = parseWith(files.fileRecord, value.run, at, 'run');
  if (!run.ok) return run;
  const lines = jsonl ? parseJsonlBody(text.split('\n'), files.fileLine) : parseJsonList(value[store.items], store.items, files.fileLine);
  if (!lines.ok) return lines;
  return ok({ store, files, run: run.value, lines: lines.value, jsonl, at });
}

function checkEnvelope(value: unknown, jsonl: boolean, at: string): Step<{ game: GameName; value: Record<string, unknown> }> {
  if (!isRecord(value) || !('format' in value)) return fail('wrong-format', `${at}this is not a Parley run export: it has no "format" field`);
  const format = formatOf(value.format);
  if (format === null || format.jsonl !== jsonl) {
    const shown = typeof value.format === 'string' ? `"${value.format.slice(0, 100)}"` : typeof value.format;
    const known = `"${EXPORT_FORMAT}" (JSON) and "${EXPORT_FORMAT_JSONL}" (JSONL) files`;
    return fail('wrong-format', `${at}the file's format is ${shown}; Parley imports ${known}`);
  }
  const version = value.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return fail('invalid-file', `${at}version: expected a positive whole number`);
  const newest = format.version ?? EXPORT_VERSION;
  const read = newest === OLDEST_IMPORT_VERSION ? `version ${newest}` : `versions ${OLDEST_IMPORT_VERSION} to ${newest}`;
  if (version > newest)
    return fail('wrong-version', `${at}the file is format version ${version}, written by a newer Parley; this one reads ${read}. Update Parley to import it.`);
  if (format.game !== null) return ok({ game: format.game, value });
  // A file older than version 4 names no game: it holds a bilateral run.
  const game = value.game ?? 'bilateral';
  if (!isKnownGame(game)) {
    const shown = typeof game === 'string' ? `"${game.slice(0, 60)}"` : typeof game;
    return fail('invalid-file', `${at}game: ${shown} is no game this Parley knows (${knownGames().join(', ')})`);
  }
  return ok({ game, value });
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Whether the text stops inside a string or an open object or array: cut off, not misspelt. */
function endsInsideValue(text: string): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return inString || depth > 0;
}
