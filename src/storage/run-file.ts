import { err, ok, type Result } from '../core/result';
import { replayLog } from '../core/bilateral/replay';
import { plannedCount } from '../core/bilateral/tournament';
import type { Scenario } from '../core/scenario';
import { fail, isRecord, parseJson, parseJsonList, parseJsonlBody, parseWith, quote, type Located, type Step } from './file-format';
import { planProblem } from './run-plan';
import { ExportedLineSchema, RunRecordSchema, type ExportedLine, type ExportedNegotiation, type RunRecord } from './schema';
import { OracleScorer, scoredMetrics } from '../agents/oracle';
import { arenaSeat } from '../core/bilateral/tournament';
import { Seat } from '../core/engine/seat';
import { scriptedSeatProblem } from './scripted-replay';

export const EXPORT_FORMAT = 'parley-run';
export const EXPORT_FORMAT_JSONL = 'parley-run-jsonl';
/**
 * The newest version written. Version 2 stores a tournament's `deadline` and `firstMover` where
 * version 1 stored a fixed `turnLimit`; version-1 files still import (the config schema reads
 * `turnLimit` as a fixed deadline). Version 3 adds a tournament's own `scenarios` (a scenario file);
 * only such runs are written as version 3 (`exportVersionOf`), so every other file stays as an older
 * Parley reads it, and an older Parley refuses a version-3 file as newer rather than misreading it.
 */
export const EXPORT_VERSION = 3;

/** The version a run's file is written as: 3 with a scenario list of its own, 2 otherwise. */
export const exportVersionOf = (run: Pick<RunRecord, 'config'>): 2 | 3 =>
  run.config.kind === 'tournament' && run.config.tournament.scenarios !== undefined ? 3 : 2;
/** The oldest version this Parley still reads; it reads every version from this to EXPORT_VERSION. */
export const OLDEST_IMPORT_VERSION = 1;
/** Larger files are refused before they are parsed. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/**
 * `conflict`: the file is valid but its records clash with ones already stored (nothing is written).
 * `tampered`: a scripted seat's moves are not what its strategy plays there (scripted-replay.ts).
 * `duplicate`: the same game is already stored (content.ts), under whatever name; nothing is written.
 */
export const IMPORT_ERROR_KINDS = ['invalid-file', 'wrong-format', 'wrong-version', 'too-large', 'truncated', 'conflict', 'tampered', 'duplicate'] as const;
export type ImportErrorKind = (typeof IMPORT_ERROR_KINDS)[number];
export interface ImportError {
  kind: ImportErrorKind;
  /** One or two lines naming what is wrong and where, ready to show. */
  message: string;
  /** With `duplicate`: the stored run that already holds the game. */
  same?: { id: string; name: string };
}

/**
 * The refusal of a file of `size` bytes, or null when that size may be imported. Callers that can
 * learn the size without reading the file (a File's `size`, `stat`) ask this first.
 */
export function sizeProblem(size: number): ImportError | null {
  if (size <= MAX_IMPORT_BYTES) return null;
  return { kind: 'too-large', message: `the file is ${formatMb(size)}; Parley imports runs of up to ${formatMb(MAX_IMPORT_BYTES)}` };
}

/**
 * Reads an export file, JSON or JSONL, and checks all of it: the envelope, every part against its
 * schema, then what schemas cannot say: unique ids; each negotiation a job of the run's own plan
 * (index, agents and scenario as the plan makes them); each event log replayed through the
 * protocol, ending where the protocol ends; counts that match the plan. Rows come back in plan order.
 */
export function readRunFile(text: string, size: number = text.length): Result<CheckedRun, ImportError> {
  const tooLarge = sizeProblem(size);
  if (tooLarge) return err(tooLarge);
  const parsed = parseFile(text);
  return parsed.ok ? checkRun(parsed.value) : parsed;
}

// ---------------------------------------------------------------------------------------------
// Parsing: the file's envelope, then each part through its schema.

export interface CheckedRun {
  run: RunRecord;
  rows: ExportedNegotiation[];
}

interface ParsedFile {
  run: RunRecord;
  rows: { row: ExportedLine; where: string }[];
  /** JSONL: a file cut at a line boundary is short of rows; JSON cannot be cut and still parse. */
  jsonl: boolean;
}

function parseFile(text: string): Step<ParsedFile> {
  if (text.trim() === '') return fail('invalid-file', 'the file is empty');
  const newline = text.indexOf('\n');
  const head = newline < 0 ? text : text.slice(0, newline);
  const first = parseJson(head);
  if (first.ok && isRecord(first.value) && first.value.format === EXPORT_FORMAT_JSONL)
    return parseJsonl(text, first.value);
  // A one-line JSON export has already been parsed whole.
  const whole = first.ok && (newline < 0 || text.slice(newline).trim() === '') ? first : parseJson(text);
  if (!whole.ok) {
    if (endsInsideValue(text))
      return fail('truncated', `the file ends in the middle of its JSON (${whole.error}); it looks cut off`);
    return fail('invalid-file', `not valid JSON: ${whole.error}`);
  }
  const envelope = checkEnvelope(whole.value, EXPORT_FORMAT, '');
  if (!envelope.ok) return envelope;
  const run = parseWith(RunRecordSchema, envelope.value.run, '', 'run');
  if (!run.ok) return run;
  const rows = parseJsonList(envelope.value.negotiations, 'negotiations', ExportedLineSchema);
  if (!rows.ok) return rows;
  return ok({ run: run.value, rows: rows.value.map(located), jsonl: false });
}

const located = ({ value, where }: Located<ExportedLine>): ParsedFile['rows'][number] => ({ row: value, where });

function parseJsonl(text: string, header: Record<string, unknown>): Step<ParsedFile> {
  const envelope = checkEnvelope(header, EXPORT_FORMAT_JSONL, 'line 1: ');
  if (!envelope.ok) return envelope;
  const run = parseWith(RunRecordSchema, envelope.value.run, 'line 1: ', 'run');
  if (!run.ok) return run;
  const rows = parseJsonlBody(text.split('\n'), ExportedLineSchema);
  if (!rows.ok) return rows;
  return ok({ run: run.value, rows: rows.value.map(located), jsonl: true });
}

function checkEnvelope(value: unknown, format: string, at: string): Step<Record<string, unknown>> {
  if (!isRecord(value) || !('format' in value))
    return fail('wrong-format', `${at}this is not a Parley run export: it has no "format" field`);
  if (value.format !== format) {
    const shown = typeof value.format === 'string' ? `"${value.format.slice(0, 100)}"` : typeof value.format;
    const known = `"${EXPORT_FORMAT}" (JSON) and "${EXPORT_FORMAT_JSONL}" (JSONL) files`;
    return fail('wrong-format', `${at}the file's format is ${shown}; Parley imports ${known}`);
  }
  const version = value.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    return fail('invalid-file', `${at}version: expected a positive whole number`);
  if (version > EXPORT_VERSION)
    return fail(
      'wrong-version',
      `${at}the file is format version ${version}, written by a newer Parley; ` +
        `this one reads versions ${OLDEST_IMPORT_VERSION} to ${EXPORT_VERSION}. Update Parley to import it.`,
    );
  return ok(value);
}

// ---------------------------------------------------------------------------------------------
// What the schemas cannot say: the rows against each other and against the run.

function checkRun(file: ParsedFile): Step<CheckedRun> {
  const { run, rows, jsonl } = file;
  const at = jsonl ? 'line 1: ' : '';
  const jobs = new Map<string, string>();
  const indexes = new Map<number, string>();
  const scenarios = new Map<number, Scenario>();
  const scorer = new OracleScorer();
  for (const { row, where } of rows) {
    const otherJob = jobs.get(row.jobId);
    if (otherJob) return fail('invalid-file', `${where}: jobId "${row.jobId}" is already used at ${otherJob}`);
    jobs.set(row.jobId, where);
    const otherIndex = indexes.get(row.index);
    if (otherIndex) return fail('invalid-file', `${where}: index ${row.index} is already used at ${otherIndex}`);
    indexes.set(row.index, where);
    const last = row.events.length - 1;
    const end = row.events.findIndex((e) => e.type === 'end');
    if (end !== last)
      return fail(
        'invalid-file',
        end < 0
          ? `${where}: events: the log has no "end" event`
          : `${where}: events[${end}]: an "end" event before the last event`,
      );
    const ending = row.events[last];
    if (ending?.type === 'end' && ending.outcome.kind !== row.outcome) {
      const ended = `the event log ends in "${ending.outcome.kind}" (events[${last}].outcome.kind)`;
      return fail('invalid-file', `${where}: outcome is "${row.outcome}" but ${ended}`);
    }
    if (row.tier !== row.scenario.tier)
      return fail('invalid-file', `${where}: tier is ${row.tier} but scenario.tier is ${row.scenario.tier}`);
    const named = `${where} (job ${quote(row.jobId)})`;
    const offPlan = planProblem(run, row, scenarios);
    if (offPlan) return fail('invalid-file', `${named}: ${offPlan}`);
    const replayed = replayLog(row.scenario, row.events);
    if (!replayed.ok) {
      const e = replayed.error;
      if (e.at === 'scenario') return fail('invalid-file', `${named}: scenario: ${e.reason}`);
      const type = row.events[e.event]?.type ?? 'event';
      return fail('invalid-file', `${named}: events[${e.event}] (${type} at turn ${e.turn}): ${e.reason}`);
    }
    const scripted = scriptedSeatProblem(row.scenario, row.events, { buyer: row.buyer, seller: row.seller }, (role) =>
      run.config.kind === 'arena' ? arenaSeat(run.id, role) : new Seat(run.config.tournament.seed, row.jobId, role),
    );
    if (scripted) return fail('tampered', `${named}: ${scripted}`);
    if (row.oracle !== undefined) {
      const wrong = oracleProblem(row, scorer);
      if (wrong) return fail('invalid-file', `${named}: ${wrong}`);
    }
  }
  if (rows.length < run.done) {
    const message = `run.done says ${run.done} negotiations but the file holds ${rows.length}`;
    return jsonl ? fail('truncated', `${message}; it looks cut off`) : fail('invalid-file', `${at}${message}`);
  }
  if (rows.length > run.done)
    return fail('invalid-file', `${at}run.done says ${run.done} negotiations but the file holds ${rows.length}`);
  if (run.planned < run.done)
    return fail('invalid-file', `${at}run.planned (${run.planned}) is less than run.done (${run.done})`);
  const config = run.config;
  const plans = config.kind === 'tournament' ? plannedCount(config.tournament) : 1;
  if (run.planned !== plans) {
    const what = config.kind === 'tournament' ? 'its tournament config plans' : 'an Arena run plays';
    return fail('invalid-file', `${at}run.planned is ${run.planned} but ${what} ${plans}`);
  }
  const sorted = rows.sort((a, b) => a.row.index - b.row.index);
  // Every row is a distinct job of the plan; a run that can resume holds the plan's first ones.
  const gap = sorted.findIndex((r, i) => r.row.index !== i);
  if (gap >= 0) {
    const { row, where } = sorted[gap] as ParsedFile['rows'][number];
    return fail(
      'invalid-file',
      `${where}: plan index ${gap} is missing before index ${row.index}; a run holds the first negotiations of its plan, so that resuming it plays each of the others once`,
    );
  }
  // The oracle figures are derived: checked above, then left out, as the metrics are.
  return ok({ run, rows: sorted.map(({ row: { oracle: _derived, ...kept } }) => kept) });
}

/** Where a line's oracle figures differ from the search's (derived data must be true), or null. */
function oracleProblem(row: ExportedLine, scorer: OracleScorer): string | null {
  const metrics = scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer);
  for (const seat of ['buyer', 'seller'] as const) {
    const given = row.oracle?.[seat] ?? null;
    const share = metrics[seat].oracleShare;
    const gap = metrics[seat].oracleGap;
    const expected = share === null || gap === null ? null : { oracleShare: share, oracleGap: gap };
    const same =
      given === null || expected === null
        ? given === expected
        : Math.abs(given.oracleShare - expected.oracleShare) < 1e-9 && Math.abs(given.oracleGap - expected.oracleGap) < 1e-9;
    if (!same)
      return `oracle.${seat} is ${JSON.stringify(given)} but the oracle search gives ${JSON.stringify(expected)}`;
  }
  return null;
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

const formatMb = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MB`;
