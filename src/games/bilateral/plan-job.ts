import type { Scenario } from './scenario';
import { scenarioCount, scenarioOf, type NegotiationJob, type TournamentConfig } from './tournament';

/** Buyer, seller and scenario indexes of a job id of this plan, or null when it names none. */
export function jobPosition(config: TournamentConfig, jobId: string): { b: number; s: number; k: number } | null {
  const m = /^(0|[1-9]\d{0,8})-(0|[1-9]\d{0,8})-(0|[1-9]\d{0,8})$/.exec(jobId);
  if (!m) return null;
  const [b, s, k] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const n = config.agents.length;
  if (b >= n || s >= n || k >= scenarioCount(config) || (b === s && !config.selfPlay)) return null;
  return { b, s, k };
}

/**
 * The job of a tournament's plan that has this id, made on its own (as `planJobs` would make it,
 * without walking the plan), or null when the id names no job of the plan. Ids are
 * `<buyer>-<seller>-<scenario>` in their plain decimal form, so each job has exactly one.
 * `scenarios` keeps the scenarios made, by index, for callers that look up many jobs of one plan.
 */
export function planJob(config: TournamentConfig, jobId: string, scenarios?: Map<number, Scenario>): NegotiationJob | null {
  const at = jobPosition(config, jobId);
  if (at === null) return null;
  const { b, s, k } = at;
  const n = config.agents.length;
  // planJobs walks scenarios, then buyers, then sellers, skipping b = s without self-play.
  const pairs = config.selfPlay ? n * n : n * (n - 1);
  const pair = config.selfPlay ? b * n + s : b * (n - 1) + (s > b ? s - 1 : s);
  let scenario = scenarios?.get(k);
  if (scenario === undefined) {
    scenario = scenarioOf(config, k);
    scenarios?.set(k, scenario);
  }
  return {
    id: jobId,
    index: k * pairs + pair,
    scenarioIndex: k,
    buyer: config.agents[b] as string,
    seller: config.agents[s] as string,
    scenario,
  };
}
