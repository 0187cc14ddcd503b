/**
 * A bilateral run file checked beyond its schemas (see run-file.ts for the envelope): unique ids;
 * each negotiation a job of the run's own plan (index, agents and scenario as the plan makes them);
 * each event log replayed through the protocol, ending where the protocol ends; each scripted seat's
 * moves those of its strategy; oracle figures, where a line carries them, the search's own; counts
 * that match the plan. Rows come back in plan order.
 */
import { ok } from '../engine/result';
import { replayLog } from '../games/bilateral/replay';
import { arenaSeat, plannedCount } from '../games/bilateral/tournament';
import { Seat } from '../engine/seat';
import { Aggregator } from '../games/bilateral/aggregate';
import type { Scenario } from '../games/bilateral/scenario';
import { OracleScorer, scoredMetrics } from '../games/bilateral/oracle-agents';
import { sameStoredGame } from './content';
import { fail, quote, type Step } from './file-format';
import type { FileRun, GameFiles, ParsedFile } from './games/store';
import { planProblem } from './run-plan';
import { ExportedLineSchema, RunRecordSchema, type ExportedLine, type ExportedNegotiation, type RunRecord, type RunRow } from './schema';
import { scriptedSeatProblem } from './scripted-replay';

/** The version a run's file is written as: 3 with a scenario list of its own, 2 otherwise. */
export const exportVersionOf = (run: Pick<RunRecord, 'config'>): 2 | 3 =>
  run.config.kind === 'tournament' && run.config.tournament.scenarios !== undefined ? 3 : 2;

export function checkBilateralFile(file: ParsedFile<RunRow, ExportedLine>): Step<FileRun<RunRow, ExportedNegotiation>> {
  const { run, lines: rows, jsonl, at } = file;
  const jobs = new Map<string, string>();
  const indexes = new Map<number, string>();
  const scenarios = new Map<number, Scenario>();
  const scorer = new OracleScorer();
  for (const { value: row, where } of rows) {
    const otherJob = jobs.get(row.jobId);
    if (otherJob) return fail('invalid-file', `${where}: jobId "${row.jobId}" is already used at ${otherJob}`);
    jobs.set(row.jobId, where);
    const otherIndex = indexes.get(row.index);
    if (otherIndex) return fail('invalid-file', `${where}: index ${row.index} is already used at ${otherIndex}`);
    indexes.set(row.index, where);
    const last = row.events.length - 1;
    const end = row.events.findIndex((e) => e.type === 'end');
    if (end !== last)
      return fail('invalid-file', end < 0 ? `${where}: events: the log has no "end" event` : `${where}: events[${end}]: an "end" event before the last event`);
    const ending = row.events[last];
    if (ending?.type === 'end' && ending.outcome.kind !== row.outcome) {
      const ended = `the event log ends in "${ending.outcome.kind}" (events[${last}].outcome.kind)`;
      return fail('invalid-file', `${where}: outcome is "${row.outcome}" but ${ended}`);
    }
    if (row.tier !== row.scenario.tier) return fail('invalid-file', `${where}: tier is ${row.tier} but scenario.tier is ${row.scenario.tier}`);
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
  if (rows.length > run.done) return fail('invalid-file', `${at}run.done says ${run.done} negotiations but the file holds ${rows.length}`);
  if (run.planned < run.done) return fail('invalid-file', `${at}run.planned (${run.planned}) is less than run.done (${run.done})`);
  const config = run.config;
  const plans = config.kind === 'tournament' ? plannedCount(config.tournament) : 1;
  if (run.planned !== plans) {
    const what = config.kind === 'tournament' ? 'its tournament config plans' : 'an Arena run plays';
    return fail('invalid-file', `${at}run.planned is ${run.planned} but ${what} ${plans}`);
  }
  const sorted = [...rows].sort((a, b) => a.value.index - b.value.index);
  // Every row is a distinct job of the plan; a run that can resume holds the plan's first ones.
  const gap = sorted.findIndex((r, i) => r.value.index !== i);
  if (gap >= 0) {
    const { value: row, where } = sorted[gap] as (typeof sorted)[number];
    return fail(
      'invalid-file',
      `${where}: plan index ${gap} is missing before index ${row.index}; a run holds the first negotiations of its plan, so that resuming it plays each of the others once`,
    );
  }
  // The oracle figures are derived: checked above, then left out, as the metrics are.
  return ok({ run, lines: sorted.map(({ value: { oracle: _derived, ...kept } }) => kept) });
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
    if (!same) return `oracle.${seat} is ${JSON.stringify(given)} but the oracle search gives ${JSON.stringify(expected)}`;
  }
  return null;
}

/** Bootstrap resamples for the standings an import recomputes (the CLI's default). */
export const IMPORT_BOOTSTRAP_SAMPLES = 1000;

/** Standings over a run's negotiations, as an import stores them. */
export function bilateralStandings(run: RunRecord, rows: readonly ExportedNegotiation[]): RunRow['standings'] {
  if (rows.length === 0) return null;
  const aggregator = new Aggregator();
  const scorer = new OracleScorer();
  for (const row of rows) aggregator.add(row.buyer, row.seller, row.scenario, scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer));
  const seed = run.config.kind === 'tournament' ? run.config.tournament.seed : 0;
  return aggregator.standings({ samples: IMPORT_BOOTSTRAP_SAMPLES, seed });
}

/** The bilateral game's file part (games/store.ts). */
export const bilateralFiles: GameFiles<RunRow, ExportedNegotiation, ExportedLine> = {
  fileVersion: exportVersionOf,
  // A negotiation is exported as it is stored.
  exportLine: (json) => json,
  fileRecord: RunRecordSchema,
  fileLine: ExportedLineSchema,
  checkFile: checkBilateralFile,
  standings: bilateralStandings,
  // An unfinished tournament resumes by its plan (the file was checked against it); an Arena game
  // cannot resume, so one that never finished stays as it is.
  importedStatus: (run) => (run.done === run.planned ? 'done' : run.config.kind === 'tournament' ? 'interrupted' : 'cancelled'),
  // An Arena game counts once in a class's ranking; a tournament imported back is a copy, as it was.
  sameStored: (db, run, lines) => (run.config.kind === 'arena' ? sameStoredGame(db, run, lines) : Promise.resolve(null)),
};
