/**
 * A market run file checked beyond its schemas (see run-file.ts for the envelope): every market a
 * job of the run's own plan (configuration, index, seller, buyer and the scenario the plan
 * generates), the plan's first ones; every log replayed through the protocol; any metrics the file
 * carries equal to the log's; the counts. Markets come back in plan order, without metrics.
 */
import { MarketAggregator, type MarketStandingRow } from '../games/market/aggregate';
import { computeMarketMetrics, MARKET_METRIC_NAMES } from '../games/market/metrics';
import { replayMarketLog } from '../games/market/replay';
import { planMarketJobs, plannedMarkets } from '../games/market/tournament';
import { ok } from '../engine/result';
import { parseMarketSpec } from '../games/market/specs';
import type { z } from 'zod';
import { fail, firstDifference, quote, type Located, type Step } from './file-format';
import type { FileRun, GameFiles, ParsedFile } from './games/store';
import {
  MarketFileLineSchema,
  MarketRunRecordSchema,
  tournamentOf,
  type MarketFileLine,
  type MarketLine,
  type MarketRunConfig,
  type MarketRunRow,
} from './market-schema';

const close = (a: unknown, b: number | null): boolean =>
  b === null ? a === null : typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

export function checkMarketFile(file: ParsedFile<MarketRunRow, MarketFileLine>): Step<FileRun<MarketRunRow, MarketLine>> {
  const { run, lines, jsonl, at } = file;
  const c = run.config;
  const names = new Set<string>();
  for (const named of c.configs) {
    if (names.has(named.name)) return fail('invalid-file', `${at}run.config.configs: "${named.name}" is listed twice`);
    names.add(named.name);
  }
  for (const [role, specs] of [
    ['seller', c.sellers],
    ['buyer', [c.buyer]],
  ] as const)
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
  const byId = new Map<string, Located<MarketFileLine>>();
  for (const entry of lines) {
    const other = byId.get(entry.value.id);
    if (other) return fail('invalid-file', `${entry.where}: id "${entry.value.id}" is already used at ${other.where}`);
    byId.set(entry.value.id, entry);
  }
  // A run holds the first markets of its plan, in plan order.
  const ordered: MarketLine[] = [];
  for (const job of planMarketJobs(tournament)) {
    if (ordered.length === run.done) break;
    const entry = byId.get(job.id);
    if (!entry) {
      const planIds = new Set([...planMarketJobs(tournament)].slice(0, run.done).map((j) => j.id));
      const stray = lines.find((l) => !planIds.has(l.value.id));
      return fail(
        'invalid-file',
        `market ${quote(job.id)} of the run's plan is missing${stray ? ` (${stray.where} holds ${quote(stray.value.id)}, which is not among the plan's first ${run.done})` : ''}`,
      );
    }
    const { value: line, where } = entry;
    const named = `${where} (market ${quote(line.id)})`;
    const expect: [string, unknown, unknown][] = [
      // Files written before version 4 name no plan index: the plan gives it.
      ['index', line.index ?? job.index, job.index],
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
      if (wrong)
        return fail('invalid-file', `${named}: metrics.${wrong} is ${JSON.stringify(line.metrics[wrong] ?? null)} but the event log gives ${metrics[wrong]}`);
    }
    const { metrics: _derived, ...kept } = line;
    ordered.push({ ...kept, index: job.index });
  }
  return ok({ run, lines: ordered });
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

/** The market game's file part (games/store.ts). */
export const marketFiles: GameFiles<MarketRunRow, MarketLine, MarketFileLine> = {
  fileVersion: () => 4,
  // Each line of a file carries its metrics, as the CLI's lines do: derived data, checked on import.
  exportLine: (json) => {
    const line = JSON.parse(json) as MarketLine;
    return JSON.stringify({ ...line, metrics: computeMarketMetrics(line.scenario, line.events) });
  },
  fileRecord: MarketRunRecordSchema,
  // Parsed events are ones the runner could have written (events.ts checks it).
  fileLine: MarketFileLineSchema as unknown as z.ZodType<MarketFileLine>,
  checkFile: checkMarketFile,
  standings: (run, lines) => marketStandings(run.config, lines),
  // A market tournament resumes from the Runs page; a market game is never resumed.
  importedStatus: (run) => (run.done === run.planned ? 'done' : 'cancelled'),
  legacyFormats: { json: 'parley-market', jsonl: 'parley-market-jsonl', version: 1 },
};
