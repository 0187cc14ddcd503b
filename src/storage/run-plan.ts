import { planJob } from '../games/bilateral/plan-job';
import type { Scenario } from '../games/bilateral/scenario';
import { firstDifference, quote } from './file-format';
import type { ExportedNegotiation, RunRecord } from './schema';

/** How a run file's negotiations are checked against the run's own plan (see run-file.ts). */

/** Whether a row is the job of the run's plan that its id names: index, agents and scenario. */
export function planProblem(run: RunRecord, row: ExportedNegotiation, scenarios: Map<number, Scenario>): string | null {
  const config = run.config;
  if (config.kind === 'arena') {
    if (row.jobId !== '0' || row.index !== 0) return `an Arena run holds one negotiation, job "0" at index 0; this one is at index ${row.index}`;
    if (row.buyer !== config.buyer) return `buyer is ${quote(row.buyer)} but the run's buyer is ${quote(config.buyer)}`;
    if (row.seller !== config.seller) return `seller is ${quote(row.seller)} but the run's seller is ${quote(config.seller)}`;
    const changed = firstDifference(row.scenario, config.scenario, 'scenario');
    return changed && `${changed}: not the run's scenario (run.config.scenario)`;
  }
  const t = config.tournament;
  const job = planJob(t, row.jobId, scenarios);
  if (job === null) {
    const pairs = `${t.agents.length} agents${t.selfPlay ? ' with self-play' : ''}`;
    return `not a job of the run's plan (${pairs}, ${t.scenariosPerPair} scenarios per pair; jobs are named buyer-seller-scenario)`;
  }
  if (row.index !== job.index) return `index is ${row.index} but the run's plan puts this job at ${job.index}`;
  if (row.buyer !== job.buyer) return `buyer is ${quote(row.buyer)} but the run's plan has ${quote(job.buyer)} buy in this job`;
  if (row.seller !== job.seller) return `seller is ${quote(row.seller)} but the run's plan has ${quote(job.seller)} sell in this job`;
  const changed = firstDifference(row.scenario, job.scenario, 'scenario');
  const source = t.scenarios ? `run.config.tournament.scenarios[${job.scenarioIndex}], from a scenario file` : `${t.preset}, seed ${t.seed}`;
  return changed && `${changed}: not scenario ${job.scenarioIndex} of the run's config (${source})`;
}
