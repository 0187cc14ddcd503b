/**
 * Scenario files: a tournament's scenarios given one JSON object a line instead of drawn from a
 * preset and seed (`tournament --scenarios-from FILE`, the Tournament page's "from a file"). The
 * format is described in docs/scenario-files.md; this is its one reader, pure, errors as values.
 */
import { z } from 'zod';
import { tierOf } from './catalog';
import { err, ok, type Result } from '../../engine/result';
import { ROLES, type Scenario } from './scenario';
import { MAX_OFFER_LIST_MULTIPLE } from './protocol';

/** Larger files are refused by their size, before they are read. */
export const MAX_SCENARIO_FILE_BYTES = 8 * 1024 * 1024;
/** Lines, blank ones included. */
export const MAX_SCENARIO_FILE_LINES = 100_000;
/** Distinct scenarios a file (and so a run's config, which stores them all) may hold. */
export const MAX_FILE_SCENARIOS = 10_000;

/** The item a line names none for. */
export const DEFAULT_FILE_ITEM = { name: 'Item', category: 'general' } as const;

const show = (v: unknown): string => {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 39)}…` : v);
  if (Array.isArray(v)) return 'a list';
  if (v !== null && typeof v === 'object') return 'an object';
  return String(v);
};

/** Every check of a field says the same thing: what the field must be, and what the line gave. */
const must = (what: string) => ({ error: (issue: { input?: unknown }) => `expected ${what}, got ${show(issue.input)}` });

const text = (max: number) => {
  const what = must(`a text of 1 to ${max} characters`);
  return z.string(what).min(1, what).max(max, what);
};
const price = (what: string, positive: boolean) => {
  const m = must(what);
  return positive ? z.number(m).positive(m) : z.number(m).nonnegative(m);
};
const turnsWanted = must('a whole number of turns from 1 to 1000');

/** One line of a scenario file. Fields it does not name are ignored (zod drops them). */
export const ScenarioLineSchema = z.object({
  id: text(200),
  listPrice: price('a list price above 0, in dollars', true),
  buyerValue: price("the buyer's value, 0 or more, in dollars", false),
  sellerCost: price("the seller's cost, 0 or more, in dollars", false),
  turns: z.int(turnsWanted).min(1, turnsWanted).max(1000, turnsWanted),
  first: z.enum(ROLES, must('"seller" or "buyer"')),
  lo: price("the price range's low end, 0 or more, in dollars", false).optional(),
  hi: price("the price range's high end, above 0, in dollars", true).optional(),
  name: text(200).optional(),
  category: text(100).optional(),
});
export type ScenarioLine = z.infer<typeof ScenarioLineSchema>;

const FIELDS = Object.keys(ScenarioLineSchema.shape) as (keyof ScenarioLine)[];
const REQUIRED = FIELDS.filter((f) => !ScenarioLineSchema.shape[f].safeParse(undefined).success);

export const SCENARIO_FILE_ERROR_CODES = ['too-large', 'too-many', 'empty', 'not-json', 'invalid-line', 'duplicate-id'] as const;
export type ScenarioFileErrorCode = (typeof SCENARIO_FILE_ERROR_CODES)[number];
export interface ScenarioFileError {
  code: ScenarioFileErrorCode;
  /** The line (from 1) at fault, or null for the file as a whole. */
  line: number | null;
  /** One line, ready to show: `line 3: turns: expected …`. */
  message: string;
}

export interface ScenarioFile {
  /** In the order of their first line. */
  scenarios: Scenario[];
  /** Lines that repeated an earlier line's scenario (same id, same fields) and were read as it. */
  repeats: number;
}

const failure = (code: ScenarioFileErrorCode, line: number | null, message: string): { ok: false; error: ScenarioFileError } =>
  err({ code, line, message: line === null ? message : `line ${line}: ${message}` });

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;

/** The refusal of a file of `size` bytes, or null when a file that large may be read. Ask it before reading. */
export function scenarioFileSizeProblem(size: number): ScenarioFileError | null {
  if (size <= MAX_SCENARIO_FILE_BYTES) return null;
  return { code: 'too-large', line: null, message: `the file is ${mb(size)}; a scenario file may hold up to ${mb(MAX_SCENARIO_FILE_BYTES)}` };
}

/**
 * Reads a scenario file: one JSON object a line (see ScenarioLineSchema), blank lines skipped. A
 * line repeating an earlier id with the same fields is the same scenario, read once; the same id
 * with other fields is refused. The first problem is returned, with its line; nothing is partial.
 */
export function parseScenarioFile(text: string, size: number = text.length): Result<ScenarioFile, ScenarioFileError> {
  const tooLarge = scenarioFileSizeProblem(size);
  if (tooLarge) return err(tooLarge);
  const lines = text.replace(/^\ufeff/, '').split('\n');
  if (lines.length > MAX_SCENARIO_FILE_LINES)
    return failure(
      'too-many',
      null,
      `the file has ${lines.length.toLocaleString('en-US')} lines; a scenario file may have up to ${MAX_SCENARIO_FILE_LINES.toLocaleString('en-US')}`,
    );
  const scenarios: Scenario[] = [];
  const seen = new Map<string, { line: number; fields: ScenarioLine }>();
  let repeats = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const n = i + 1;
    const read = readLine(raw);
    if (!read.ok) return failure(read.error.code, n, read.error.message);
    const fields = read.value;
    const earlier = seen.get(fields.id);
    if (earlier) {
      const differs = FIELDS.find((f) => fields[f] !== earlier.fields[f]);
      if (differs === undefined) {
        repeats++;
        continue;
      }
      return failure(
        'duplicate-id',
        n,
        `id ${show(fields.id)} is also at line ${earlier.line} with other fields (${differs} ${show(fields[differs])} here, ` +
          `${show(earlier.fields[differs])} there); an id names one scenario`,
      );
    }
    if (scenarios.length === MAX_FILE_SCENARIOS)
      return failure(
        'too-many',
        n,
        `more than ${MAX_FILE_SCENARIOS.toLocaleString('en-US')} scenarios; a scenario file may hold up to ${MAX_FILE_SCENARIOS.toLocaleString('en-US')}`,
      );
    seen.set(fields.id, { line: n, fields });
    scenarios.push(scenarioOfLine(fields));
  }
  if (scenarios.length === 0)
    return failure('empty', null, 'the file holds no scenarios (one JSON object a line: id, listPrice, buyerValue, sellerCost, turns, first)');
  return ok({ scenarios, repeats });
}

type LineStep = Result<ScenarioLine, { code: ScenarioFileErrorCode; message: string }>;

function readLine(raw: string): LineStep {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return err({ code: 'not-json', message: `not valid JSON (${String((e as Error).message ?? e).slice(0, 120)})` });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return err({ code: 'invalid-line', message: `expected a JSON object with ${REQUIRED.join(', ')}; got ${show(value)}` });
  const missing = REQUIRED.filter((f) => !(f in value));
  if (missing.length > 0) {
    const list = missing.length === 1 ? `${missing[0]} is` : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)} are`;
    return err({ code: 'invalid-line', message: `${list} missing` });
  }
  const parsed = ScenarioLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    return err({ code: 'invalid-line', message: `${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}` });
  }
  const problem = crossFieldProblem(parsed.data);
  return problem === null ? ok(parsed.data) : err({ code: 'invalid-line', message: problem });
}

/** What single fields cannot say. */
function crossFieldProblem(l: ScenarioLine): string | null {
  if ((l.lo === undefined) !== (l.hi === undefined))
    return l.lo === undefined
      ? 'hi is given without lo (the price range needs both, or neither)'
      : 'lo is given without hi (the price range needs both, or neither)';
  if (l.lo !== undefined && l.hi !== undefined && !(l.lo < l.hi)) return `lo (${l.lo}) must be below hi (${l.hi})`;
  // No offer above this can be made (the protocol refuses it), so no reservation or range may lie beyond it.
  const ceiling = MAX_OFFER_LIST_MULTIPLE * l.listPrice;
  for (const f of ['buyerValue', 'sellerCost', 'hi'] as const) {
    const v = l[f];
    if (v !== undefined && v > ceiling)
      return `${f} (${v}) is more than ${MAX_OFFER_LIST_MULTIPLE} times the list price (${l.listPrice}), the most any offer may be`;
  }
  return null;
}

/**
 * The scenario a line describes: a fixed turn limit both sides know, its tier from the list
 * price, and its price range only where the line gives one (else `priceRangeOf` gives the
 * standard preset's range at the list price). The item is named by the line, or "Item" (general).
 */
export function scenarioOfLine(l: ScenarioLine): Scenario {
  return {
    id: l.id,
    item: { id: l.id, name: l.name ?? DEFAULT_FILE_ITEM.name, category: l.category ?? DEFAULT_FILE_ITEM.category, listPrice: l.listPrice },
    buyerValue: l.buyerValue,
    sellerCost: l.sellerCost,
    tier: tierOf(l.listPrice),
    turnLimit: l.turns,
    firstMover: l.first,
    ...(l.lo !== undefined && l.hi !== undefined ? { priceRange: { lo: l.lo, hi: l.hi } } : {}),
  };
}
