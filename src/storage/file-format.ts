/**
 * What reading and writing run files takes, whatever the game (run-file.ts reads them, each game's
 * file part checks its own): the formats' names, the limits and errors of an import, reading JSON
 * and JSONL with each problem named by its place in the file, and writing the two layouts. Small,
 * so that the page can ask what an import would refuse without loading a checker.
 */
import type { z } from 'zod';
import { err, ok, type Result } from '../engine/result';

export const EXPORT_FORMAT = 'parley-run';
export const EXPORT_FORMAT_JSONL = 'parley-run-jsonl';
/** Larger files are refused before they are parsed. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/**
 * `conflict`: the file is valid but its records clash with ones already stored (nothing is written).
 * `tampered`: a scripted seat's moves are not what its strategy plays there (scripted-replay.ts).
 * `duplicate`: the same game is already stored (content.ts), under whatever name; nothing is written.
 * `wrong-game`: a valid run file of a game the reader was not asked for (a market run handed in to a class).
 */
export const IMPORT_ERROR_KINDS = [
  'invalid-file',
  'wrong-format',
  'wrong-version',
  'too-large',
  'truncated',
  'conflict',
  'tampered',
  'duplicate',
  'wrong-game',
] as const;
export type ImportErrorKind = (typeof IMPORT_ERROR_KINDS)[number];
export interface ImportError {
  kind: ImportErrorKind;
  /** One or two lines naming what is wrong and where, ready to show. */
  message: string;
  /** With `duplicate`: the stored run that already holds the game. */
  same?: { id: string; name: string };
}

const formatMb = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * The refusal of a file of `size` bytes, or null when that size may be imported. Callers that can
 * learn the size without reading the file (a File's `size`, `stat`) ask this first.
 */
export function sizeProblem(size: number): ImportError | null {
  if (size <= MAX_IMPORT_BYTES) return null;
  return { kind: 'too-large', message: `the file is ${formatMb(size)}; Parley imports runs of up to ${formatMb(MAX_IMPORT_BYTES)}` };
}

export type Step<T> = Result<T, ImportError>;

export const fail = (kind: ImportErrorKind, message: string): { ok: false; error: ImportError } => err({ kind, message });

/** A value read from a file and where it stood (`line 3`, `markets[2]`), for later messages. */
export interface Located<T> {
  value: T;
  where: string;
}

export function parseJson(text: string): Result<unknown, string> {
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (e) {
    return err(String((e as Error).message ?? e).slice(0, 200));
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `prefix` names the line (JSONL), `root` the value's place in the file. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix: string, root: string): Step<z.infer<S>> {
  const result = schema.safeParse(value);
  if (result.success) return ok(result.data);
  const [issue, ...more] = result.error.issues;
  const keys = (issue?.path ?? []).map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`));
  const path = (root + keys.join('')).replace(/^\./, '');
  const message = (issue?.message ?? 'invalid').replace(/^Invalid input: /, '');
  const others = more.length ? ` (and ${more.length} more problem${more.length > 1 ? 's' : ''} there)` : '';
  return fail('invalid-file', `${prefix}${path ? `${path}: ` : ''}${message}${others}`);
}

/** The lines of a JSONL file after its header, each through `schema`; a last line that is not JSON is a file cut off. */
export function parseJsonlBody<S extends z.ZodType>(lines: readonly string[], schema: S): Step<Located<z.infer<S>>[]> {
  const parsed: Located<z.infer<S>>[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    if (line.trim() === '') continue;
    const where = `line ${i + 1}`;
    const value = parseJson(line);
    if (!value.ok) {
      if (i === lines.length - 1) return fail('truncated', `${where}: the file ends in the middle of this line (${value.error}); it is cut off`);
      return fail('invalid-file', `${where}: not valid JSON: ${value.error}`);
    }
    const item = parseWith(schema, value.value, `${where}: `, '');
    if (!item.ok) return item;
    parsed.push({ value: item.value, where });
  }
  return ok(parsed);
}

/** The list a JSON file holds under `key`, each item through `schema`. */
export function parseJsonList<S extends z.ZodType>(list: unknown, key: string, schema: S): Step<Located<z.infer<S>>[]> {
  if (!Array.isArray(list)) return fail('invalid-file', `${key}: expected an array`);
  const parsed: Located<z.infer<S>>[] = [];
  for (let i = 0; i < list.length; i++) {
    const where = `${key}[${i}]`;
    const item = parseWith(schema, list[i], '', where);
    if (!item.ok) return item;
    parsed.push({ value: item.value, where });
  }
  return ok(parsed);
}

/** The first place where two parsed JSON values differ, as `path is X where Y was expected`, or null. */
export function firstDifference(actual: unknown, expected: unknown, path: string): string | null {
  if (isRecord(actual) && isRecord(expected)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = firstDifference(actual[key], expected[key], `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
      const found = firstDifference(actual[i], expected[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (actual === expected) return null;
  return `${path} is ${show(actual)} where ${show(expected)} was expected`;
}

/** A string from the file, quoted and cut short for a one-line message. */
export const quote = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);

const show = (v: unknown): string =>
  v === undefined ? 'missing' : typeof v === 'string' ? quote(v) : isRecord(v) || Array.isArray(v) ? 'a list or an object' : String(v);

/** The fields of a stored run that a file holds. */
type RecordKey = 'id' | 'name' | 'createdAt' | 'updatedAt' | 'status' | 'config' | 'planned' | 'message';

/**
 * A stored run as its file holds it: no standings (an import recomputes them), and `done` what the
 * file holds, so the file always passes its own import check. Keys in the files' order.
 */
export function runRecordOf<Row extends Record<Exclude<RecordKey, 'message'>, unknown> & { message?: unknown }>(
  row: Row,
  done: number,
): Pick<Row, RecordKey> & { done: number } {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    status: row.status,
    config: row.config,
    planned: row.planned,
    done,
    message: row.message,
  };
}

/** `{…head,"key":[…]}` from the head and items already as JSON. */
export function jsonFile(head: Record<string, unknown>, key: string, items: readonly string[]): string {
  return `${JSON.stringify(head).slice(0, -1)},"${key}":[${items.join(',')}]}`;
}

/** The head on the first line, then one item a line, each line ended. */
export function jsonlFile(head: Record<string, unknown>, items: readonly string[]): string {
  return [JSON.stringify(head), ...items].map((line) => line + '\n').join('');
}
