/** The bilateral negotiation as the engine plays it: a round robin of buyers and sellers (see tournament.ts). */
import type { GameDef } from '../../engine/game';
import { ROLES, type Role } from './scenario';
import { andThen, playSession } from '../../engine/session';
import type { BilateralRecord } from './events';
import { computeMetrics } from './metrics';
import { jobPosition } from './plan-job';
import { bilateral } from './protocol';
import { plannedCount, planJobs, type BilateralAgent, type NegotiationJob, type NegotiationResult, type TournamentConfig } from './tournament';

const resultOf = (job: NegotiationJob, { events, outcome }: BilateralRecord): NegotiationResult => ({
  id: job.id,
  index: job.index,
  scenarioIndex: job.scenarioIndex,
  buyer: job.buyer,
  seller: job.seller,
  scenario: job.scenario,
  events,
  outcome,
  metrics: computeMetrics(job.scenario, events),
});

export const bilateralGame: GameDef<TournamentConfig, NegotiationJob, Role, BilateralAgent, NegotiationResult> = {
  name: 'bilateral',
  roles: ROLES,
  plan: planJobs,
  plannedCount,
  inPlan: (config, id) => jobPosition(config, id) !== null,
  seatSpec: (job, role) => job[role],
  play: (job, agents, opts) => andThen(playSession(bilateral, job.scenario, agents, opts), (record) => resultOf(job, record)),
  isCancelled: (result) => result.outcome.kind === 'cancelled',
};
