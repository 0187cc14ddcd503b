/**
 * Scenario files: a tournament's scenarios given one JSON object a line instead of drawn from a
 * preset and seed (`tournament --scenarios-from FILE`, the Tournament page's "from a file"). The
 * format is described in docs/scenario-files.md; this is its one reader, pure, errors as values.
 */
import { z } from 'zod';
import { tierOf } from './catalog';
import { problems, type ProblemOf } from '../../engine/errors';
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

// Every check of a field says what the field must be; its problem (`bad-field`) adds what the line gave.
const text = (max: number) => {
  const what = `a text of 1 to ${max} characters`;
  return z.string(what).min(1, what).max(max, what);
};
const price = (what: string, positive: boolean) => (positive ? z.number(what).positive(what) : z.number(what).nonnegative(what));
const turnsWanted = 'a whole number of turns from 1 to 1000';

/** One line of a scenario file. Fields it does not name are ignored (zod drops them). */
export const ScenarioLineSchema = z.object({
  id: text(200),
  listPrice: price('a list price above 0, in dollars', true),
  buyerValue: price("the buyer's value, 0 or more, in dollars", false),
  sellerCost: price("the seller's cost, 0 or more, in dollars", false),
  turns: z.int(turnsWanted).min(1, turnsWanted).max(1000, turnsWanted),
  first: z.enum(ROLES, '"seller" or "buyer"'),
  lo: price("the price range's low end, 0 or more, in dollars", false).optional(),
  hi: price("the price range's high end, above 0, in dollars", true).optional(),
  name: text(200).optional(),
  category: text(100).optional(),
});
export type ScenarioLine = z.infer<typeof ScenarioLineSchema>;

const FIELDS = Object.keys(ScenarioLineSchema.shape) as (keyof ScenarioLine)[];
const REQUIRED = FIELDS.filter((f) => !ScenarioLineSchema.shape[f].safeParse(undefined).success);

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;
const count = (n: number): string => n.toLocaleString('en-US');
const atLine = (line: number, text: string): string => `line ${line}: ${text}`;

/**
 * Why a scenario file is refused (engine/errors.ts): the file as a whole, or its first line at fault
 * (`line`, from 1, blank lines counted; its message starts `line N: `). A field's value as a line
 * gave it is kept as short text (`got`, `here`, `there`: quoted, cut to 40 characters). Each message
 * is one line.
 */
export const SCENARIO_FILE_PROBLEMS = {
  'too-large': (d: { size: number; max: number }) => `the file is ${mb(d.size)}; a scenario file may hold up to ${mb(d.max)}`,
  'too-many-lines': (d: { lines: number; max: number }) => `the file has ${count(d.lines)} lines; a scenario file may have up to ${count(d.max)}`,
  'too-many-scenarios': (d: { line: number; max: number }) =>
    atLine(d.line, `more than ${count(d.max)} scenarios; a scenario file may hold up to ${count(d.max)}`),
  empty: () => `the file holds no scenarios (one JSON object a line: ${REQUIRED.join(', ')})`,
  'not-json': (d: { line: number; error: string }) => atLine(d.line, `not valid JSON (${d.error})`),
  'not-object': (d: { line: number; got: string }) => atLine(d.line, `expected a JSON object with ${REQUIRED.join(', ')}; got ${d.got}`),
  'fields-missing': (d: { line: number; fields: readonly string[] }) =>
    atLine(d.line, `${d.fields.length === 1 ? `${d.fields[0]} is` : `${d.fields.slice(0, -1).join(', ')} and ${d.fields.at(-1)} are`} missing`),
  /** `expected`: what the field must be, in the schema's words. */
  'bad-field': (d: { line: number; field: string; expected: string; got: string }) => atLine(d.line, `${d.field}: expected ${d.expected}, got ${d.got}`),
  /** A price range's one end without the other. */
  'range-half': (d: { line: number; given: 'lo' | 'hi' }) =>
    atLine(d.line, `${d.given} is given without ${d.given === 'lo' ? 'hi' : 'lo'} (the price range needs both, or neither)`),
  'range-inverted': (d: { line: number; lo: number; hi: number }) => atLine(d.line, `lo (${d.lo}) must be below hi (${d.hi})`),
  /** A reservation or range end above the highest offer the protocol takes. */
  'beyond-any-offer': (d: { line: number; field: 'buyerValue' | 'sellerCost' | 'hi'; value: number; multiple: number; listPrice: number }) =>
    atLine(d.line, `${d.field} (${d.value}) is more than ${d.multiple} times the list price (${d.listPrice}), the most any offer may be`),
  /** The same id as an earlier line with another field: the first field that differs, as each line gave it. */
  'duplicate-id': (d: { line: number; id: string; earlierLine: number; field: string; here: string; there: string }) =>
    atLine(
      d.line,
      `id ${show(d.id)} is also at line ${d.earlierLine} with other fields (${d.field} ${d.here} here, ${d.there} there); an id names one scenario`,
    ),
} as const;

export type ScenarioFileProblem = ProblemOf<typeof SCENARIO_FILE_PROBLEMS>;
const scenarioFileProblem = problems(SCENARIO_FILE_PROBLEMS);

export interface ScenarioFile {
  /** In the order of their first line. */
  scenarios: Scenario[];
  /** Lines that repeated an earlier line's scenario (same id, same fields) and were read as it. */
  repeats: number;
}

/** The refusal of a file of `size` bytes, or null when a file that large may be read. Ask it before reading. */
export function scenarioFileSizeProblem(size: number): ScenarioFileProblem | null {
  return size <= MAX_SCENARIO_FILE_BYTES ? null : scenarioFileProblem('too-large', { size, max: MAX_SCENARIO_FILE_BYTES });
}

/**
 * Reads a scenario file: one JSON object a line (see ScenarioLineSchema), blank lines skipped. A
 * line repeating an earlier id with the same fields is the same scenario, read once; the same id
 * with other fields is refused. The first problem is returned, with its line; nothing is partial.
 */
export function parseScenarioFile(text: string, size: number = text.length): Result<ScenarioFile, ScenarioFileProblem> {
  const tooLarge = scenarioFileSizeProblem(size);
  if (tooLarge) return err(tooLarge);
  const lines = text.replace(/^\ufeff/, '').split('\n');
  if (lines.length > MAX_SCENARIO_FILE_LINES) return err(scenarioFileProblem('too-many-lines', { lines: lines.length, max: MAX_SCENARIO_FILE_LINES }));
  const scenarios: Scenario[] = [];
  const seen = new Map<string, { line: number; fields: ScenarioLine }>();
  let repeats = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const n = i + 1;
    const read = readLine(raw, n);
    if (!read.ok) return read;
    const fields = read.value;
    const earlier = seen.get(fields.id);
    if (earlier) {
      const differs = FIELDS.find((f) => fields[f] !== earlier.fields[f]);
      if (differs === undefined) {
        repeats++;
        continue;
      }
      return err(
        scenarioFileProblem('duplicate-id', {
          line: n,
          id: fields.id,
          earlierLine: earlier.line,
          field: differs,
          here: show(fields[differs]),
          there: show(earlier.fields[differs]),
        }),
      );
    }
    if (scenarios.length === MAX_FILE_SCENARIOS) return err(scenarioFileProblem('too-many-scenarios', { line: n, max: MAX_FILE_SCENARIOS }));
    seen.set(fields.id, { line: n, fields });
    scenarios.push(scenarioOfLine(fields));
  }
  if (scenarios.length === 0) return err(scenarioFileProblem('empty'));
  return ok({ scenarios, repeats });
}

function readLine(raw: string, line: number): Result<ScenarioLine, ScenarioFileProblem> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return err(scenarioFileProblem('not-json', { line, error: String((e as Error).message ?? e).slice(0, 120) }));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return err(scenarioFileProblem('not-object', { line, got: show(value) }));
  const missing = REQUIRED.filter((f) => !(f in value));
  if (missing.length > 0) return err(scenarioFileProblem('fields-missing', { line, fields: missing }));
  const parsed = ScenarioLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    const got = show((value as Record<string, unknown>)[field]);
    return err(scenarioFileProblem('bad-field', { line, field, expected: issue?.message ?? 'a valid value', got }));
  }
  const problem = crossFieldProblem(parsed.data, line);
  return problem === null ? ok(parsed.data) : err(problem);
}

/** What single fields cannot say. */
function crossFieldProblem(l: ScenarioLine, line: number): ScenarioFileProblem | null {
  if ((l.lo === undefined) !== (l.hi === undefined)) return scenarioFileProblem('range-half', { line, given: l.lo === undefined ? 'hi' : 'lo' });
  if (l.lo !== undefined && l.hi !== undefined && !(l.lo < l.hi)) return scenarioFileProblem('range-inverted', { line, lo: l.lo, hi: l.hi });
  // No offer above this can be made (the protocol refuses it), so no reservation or range may lie beyond it.
  const ceiling = MAX_OFFER_LIST_MULTIPLE * l.listPrice;
  for (const field of ['buyerValue', 'sellerCost', 'hi'] as const) {
    const value = l[field];
    if (value !== undefined && value > ceiling)
      return scenarioFileProblem('beyond-any-offer', { line, field, value, multiple: MAX_OFFER_LIST_MULTIPLE, listPrice: l.listPrice });
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
