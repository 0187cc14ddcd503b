/**
 * Market runs as files: JSON (`parley-market`) and JSONL (`parley-market-jsonl` v1, the format
 * `npm run parley -- market-tournament --jsonl` writes). An import is checked completely before
 * anything is written: the envelope, every part against its schema, every market a job of the run's
 * own plan (configuration, index, seller, buyer and the scenario the plan generates), every log
 * replayed through the protocol, any metrics the file carries equal to the log's, and the counts.
 */
import { randomId } from '../core/id';
import type { z } from 'zod';
import { idTables, importedIdentity } from './import-id';
import { MarketAggregator, type MarketStandingRow } from '../core/market/aggregate';
import { computeMarketMetrics, MARKET_METRIC_NAMES } from '../core/market/metrics';
import { replayMarketLog } from '../core/market/replay';
import { planMarketJobs, plannedMarkets } from '../core/market/tournament';
import { err, ok } from '../core/result';
import { parseMarketSpec } from '../agents/market/specs';
import type { ParleyDb } from './db';
import { asStorageError } from './errors';
import { addMarketBatches, loadMarkets } from './market-runs';
import {
  MARKET_EXPORT_FORMAT,
  MARKET_EXPORT_FORMAT_JSONL,
  MARKET_EXPORT_VERSION,
  MarketLineSchema,
  MarketRunRecordSchema,
  tournamentOf,
  type MarketLine,
  type MarketRunConfig,
  type MarketRunRecord,
  type MarketRunRow,
} from './market-schema';
import { fail, firstDifference, isRecord, jsonFile, jsonlFile, parseJson, parseJsonList, parseJsonlBody, parseWith, quote, runRecordOf, type Located, type Step } from './file-format';
import { sizeProblem } from './run-file';

export interface CheckedMarketRun {
  run: MarketRunRecord;
  lines: MarketLine[];
}

/** The file's format field when it names a market format, read from its first line or whole. */
export function marketFormatOf(text: string): string | null {
  const format = /^\uFEFF?\s*\{\s*"format"\s*:\s*"(parley-market(?:-jsonl)?)"/.exec(text)?.[1];
  return format ?? null;
}

function checkEnvelope(value: unknown, at: string): Step<Record<string, unknown>> {
  if (!isRecord(value)) return fail('wrong-format', `${at}this is not a Parley market run export`);
  const version = value.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return fail('invalid-file', `${at}version: expected a positive whole number`);
  if (version > MARKET_EXPORT_VERSION)
    return fail('wrong-version', `${at}the file is format version ${version}, written by a newer Parley; this one reads version ${MARKET_EXPORT_VERSION}. Update Parley to import it.`);
  return ok(value);
}

interface Parsed {
  run: MarketRunRecord;
  lines: { line: MarketLine; where: string }[];
  jsonl: boolean;
}

const located = ({ value, where }: Located<z.infer<typeof MarketLineSchema>>): Parsed['lines'][number] => ({ line: value as MarketLine, where });

function parseFile(text: string): Step<Parsed> {
  if (text.trim() === '') return fail('invalid-file', 'the file is empty');
  if (marketFormatOf(text) === MARKET_EXPORT_FORMAT_JSONL) {
    const all = text.split('\n');
    const head = parseJson(all[0] as string);
    if (!head.ok) return fail('invalid-file', `line 1: not valid JSON: ${head.error}`);
    const header = checkEnvelope(head.value, 'line 1: ');
    if (!header.ok) return header;
    const run = parseWith(MarketRunRecordSchema, header.value.run, 'line 1: ', 'run');
    if (!run.ok) return run;
    const lines = parseJsonlBody(all, MarketLineSchema);
    if (!lines.ok) return lines;
    return ok({ run: run.value, lines: lines.value.map(located), jsonl: true });
  }
  const whole = parseJson(text);
  if (!whole.ok) return fail('invalid-file', `not valid JSON: ${whole.error}`);
  const envelope = checkEnvelope(whole.value, '');
  if (!envelope.ok) return envelope;
  if (envelope.value.format !== MARKET_EXPORT_FORMAT) return fail('wrong-format', `this is not a Parley market run export`);
  const run = parseWith(MarketRunRecordSchema, envelope.value.run, '', 'run');
  if (!run.ok) return run;
  const lines = parseJsonList(envelope.value.markets, 'markets', MarketLineSchema);
  if (!lines.ok) return lines;
  return ok({ run: run.value, lines: lines.value.map(located), jsonl: false });
}

const close = (a: unknown, b: number | null): boolean =>
  b === null ? a === null : typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

function checkRun(file: Parsed): Step<CheckedMarketRun> {
  const { run, lines, jsonl } = file;
  const at = jsonl ? 'line 1: ' : '';
  const c = run.config;
  const names = new Set<string>();
  for (const named of c.configs) {
    if (names.has(named.name)) return fail('invalid-file', `${at}run.config.configs: "${named.name}" is listed twice`);
    names.add(named.name);
  }
  for (const [role, specs] of [['seller', c.sellers], ['buyer', [c.buyer]]] as const)
    for (const text of specs) {
      const spec = parseMarketSpec(text, role);
      if (!spec.ok) return fail('invalid-file', `${at}run.config: ${spec.error.message}`);
    }
  if (new Set(c.sellers).size !== c.sellers.length) return fail('invalid-file', `${at}run.config.sellers: a seller is listed twice`);
  const tournament = tournamentOf(c);
  const planned = plannedMarkets(tournament);
  if (run.planned !== planned) return fail('invalid-file', `${at}run.planned is ${run.planned} but its config plans ${planned} markets`);
  if (run.done > run.planned) return fail('invalid-file', `${at}run.done (${run.done}) is more than run.planned (${run.planned})`);
  if (lines.length !== run.done) {
    const message = `run.done says ${run.done} markets but the file holds ${lines.length}`;
    return jsonl && lines.length < run.done ? fail('truncated', `${message}; it looks cut off`) : fail('invalid-file', `${at}${message}`);
  }
  const byId = new Map<string, { line: MarketLine; where: string }>();
  for (const entry of lines) {
    const other = byId.get(entry.line.id);
    if (other) return fail('invalid-file', `${entry.where}: id "${entry.line.id}" is already used at ${other.where}`);
    byId.set(entry.line.id, entry);
  }
  // A run holds the first markets of its plan, in plan order.
  const ordered: MarketLine[] = [];
  for (const job of planMarketJobs(tournament)) {
    if (ordered.length === run.done) break;
    const entry = byId.get(job.id);
    if (!entry) {
      const stray = lines.find((l) => !ordered.includes(l.line) && l.line.id !== job.id);
      return fail('invalid-file', `market ${quote(job.id)} of the run's plan is missing${stray ? ` (${stray.where} holds ${quote(stray.line.id)}, which is not among the plan's first ${run.done})` : ''}`);
    }
    const { line, where } = entry;
    const named = `${where} (market ${quote(line.id)})`;
    const expect: [string, unknown, unknown][] = [
      ['config', line.config, job.config.name],
      ['heldOut', line.heldOut, job.config.heldOut],
      ['marketIndex', line.marketIndex, job.marketIndex],
      ['seller', line.seller, job.seller],
      ['buyer', line.buyer, job.buyer],
    ];
    for (const [field, got, want] of expect)
      if (got !== want) return fail('invalid-file', `${named}: ${field} is ${JSON.stringify(got)} but the run's plan has ${JSON.stringify(want)}`);
    const changed = firstDifference(line.scenario, job.scenario, 'scenario');
    if (changed) return fail('invalid-file', `${named}: ${changed}: not market ${job.marketIndex} of ${quote(job.config.name)} (seed ${c.seed})`);
    const replayed = replayMarketLog(line.scenario, line.events);
    if (!replayed.ok) {
      const e = replayed.error;
      return fail('invalid-file', `${named}: events[${e.event}] (${line.events[e.event]?.type ?? 'event'} at turn ${e.turn}): ${e.reason}`);
    }
    const outcome = firstDifference(line.outcome, replayed.value, 'outcome');
    if (outcome) return fail('invalid-file', `${named}: ${outcome} (the event log's end)`);
    if (line.metrics !== undefined) {
      const metrics = computeMarketMetrics(line.scenario, line.events, job.optimalWelfare);
      const wrong = MARKET_METRIC_NAMES.find((k) => !close(line.metrics?.[k], metrics[k]));
      if (wrong) return fail('invalid-file', `${named}: metrics.${wrong} is ${JSON.stringify(line.metrics[wrong] ?? null)} but the event log gives ${metrics[wrong]}`);
    }
    const { metrics: _dropped, ...kept } = line;
    ordered.push(kept);
  }
  return ok({ run, lines: ordered });
}

/** Reads a market run file and checks all of it; the markets come back in plan order, without metrics. */
export function readMarketFile(text: string, size: number = text.length): Step<CheckedMarketRun> {
  const tooLarge = sizeProblem(size);
  if (tooLarge) return err(tooLarge);
  const parsed = parseFile(text);
  return parsed.ok ? checkRun(parsed.value) : parsed;
}

/** Standings over a run's markets in plan order (the live run and an import give the same). */
export function marketStandings(config: MarketRunConfig, lines: readonly MarketLine[]): MarketStandingRow[] | null {
  if (lines.length === 0) return null;
  const optimal = new Map<string, number>();
  const aggregator = new MarketAggregator();
  for (const line of lines) {
    const metrics = computeMarketMetrics(line.scenario, line.events, optimal.get(line.scenario.id));
    optimal.set(line.scenario.id, metrics.optimalWelfare);
    aggregator.add(line.config, line.heldOut, line.seller, metrics);
  }
  return aggregator.standings({ samples: config.samples, seed: config.seed });
}

async function snapshot(db: ParleyDb, runId: string): Promise<{ run: MarketRunRecord; lines: string[] }> {
  return db.transaction('r', db.marketRuns, db.marketBatches, async () => {
    const run = await db.marketRuns.get(runId);
    if (!run) throw new Error(`no market run with id ${runId}`);
    // Each line carries its metrics, as the CLI's lines do.
    const lines = (await loadMarkets(db, runId)).map((l) => JSON.stringify({ ...l, metrics: computeMarketMetrics(l.scenario, l.events) }));
    return { run: runRecordOf(run, lines.length), lines };
  });
}

export async function exportMarketJson(db: ParleyDb, runId: string): Promise<string> {
  const { run, lines } = await snapshot(db, runId);
  return jsonFile({ format: MARKET_EXPORT_FORMAT, version: MARKET_EXPORT_VERSION, run }, 'markets', lines);
}

export async function exportMarketJsonl(db: ParleyDb, runId: string): Promise<string> {
  const { run, lines } = await snapshot(db, runId);
  return jsonlFile({ format: MARKET_EXPORT_FORMAT_JSONL, version: MARKET_EXPORT_VERSION, run }, lines);
}


/**
 * Checks a market run file and stores it as a new run, in one transaction (nothing is written when
 * anything is wrong). A run whose id is taken, by a market run or a bilateral one, comes in as a
 * copy under a new id. Standings are recomputed.
 */
export async function importMarketRun(
  db: ParleyDb,
  text: string,
  opts: { now: number; size?: number; newId?: () => string },
): Promise<Step<MarketRunRow>> {
  const file = readMarketFile(text, opts.size);
  if (!file.ok) return file;
  const { run, lines } = file.value;
  const standings = marketStandings(run.config, lines);
  const newId = opts.newId ?? randomId;
  try {
    const stored = await db.transaction('rw', idTables(db), async () => {
      const { id, name } = await importedIdentity(db, run, newId);
      const row: MarketRunRow = {
        ...run,
        id,
        name,
        message: run.message ?? null,
        updatedAt: opts.now,
        status: run.done === run.planned ? 'done' : 'cancelled',
        standings,
      };
      await db.marketRuns.add(row);
      await addMarketBatches(db, id, 0, lines);
      return row;
    });
    return ok(stored);
  } catch (e) {
    throw asStorageError(e);
  }
}
