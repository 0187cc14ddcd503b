/**
 * Market tournaments: every seller plays the same markets of every configuration (common random
 * numbers), against one buyer strategy. Plays one market at a time and hands each result on.
 */
import type { SeatInfo } from '../bilateral/tournament';
import { createRng, deriveSeed, type Rng } from '../rng';
import { isThenable, playSession, type Agent, type RunOptions } from '../session';
import type { MarketEvent, MarketResult } from './events';
import { optimalAllocation } from './matching';
import { computeMarketMetrics, type MarketMetrics } from './metrics';
import type { MarketMove, MarketRole } from './moves';
import { market, type MarketObservation } from './protocol';
import { generateMarket, type MarketScenario, type NamedMarketConfig } from './scenario';

export type MarketAgent = Agent<MarketObservation, MarketMove>;

/** Builds the agent for one seat of one market. */
export type MarketAgentFactory = (spec: string, role: MarketRole, ctx: SeatInfo) => MarketAgent;

export interface MarketPlayOptions {
  signal?: AbortSignal;
  maxRetries?: number;
  onEvent?: RunOptions<MarketRole, MarketMove, MarketResult>['onEvent'];
  /** The scenario's optimal welfare, when the caller has it already. */
  optimalWelfare?: number;
}

export interface PlayedMarket {
  events: MarketEvent[];
  outcome: MarketResult;
  metrics: MarketMetrics;
}

/** One market: run it through the session runner and score it. Synchronous when every agent is. */
export function playMarket(
  scenario: MarketScenario,
  agents: Record<MarketRole, MarketAgent>,
  opts: MarketPlayOptions = {},
): PlayedMarket | Promise<PlayedMarket> {
  const { optimalWelfare, ...run } = opts;
  const score = ({ events, outcome }: { events: MarketEvent[]; outcome: MarketResult }): PlayedMarket => ({
    events,
    outcome,
    metrics: computeMarketMetrics(scenario, events, optimalWelfare),
  });
  const record = playSession(market, scenario, agents, run);
  return isThenable(record) ? record.then(score) : score(record);
}

export interface MarketTournamentConfig {
  /** Seller specs; each is also the seller's name in the results. */
  sellers: string[];
  /** The buyer strategy every market's buyers play. */
  buyer: string;
  configs: NamedMarketConfig[];
  marketsPerConfig: number;
  seed: number;
}

export interface MarketJob {
  id: string;
  index: number;
  config: NamedMarketConfig;
  /** The market's index within its configuration. */
  marketIndex: number;
  seller: string;
  buyer: string;
  scenario: MarketScenario;
  optimalWelfare: number;
}

export interface MarketTournamentResult extends MarketJob, PlayedMarket {}

export const plannedMarkets = (config: MarketTournamentConfig): number =>
  config.configs.length * config.marketsPerConfig * config.sellers.length;

/** Configuration-major, then market, then seller: every seller meets each market once, made once. */
export function* planMarketJobs(config: MarketTournamentConfig): Generator<MarketJob> {
  let index = 0;
  for (const named of config.configs)
    for (let k = 0; k < config.marketsPerConfig; k++) {
      const scenario = generateMarket(named.config, config.seed, k, named.name);
      const optimalWelfare = optimalAllocation(scenario).welfare;
      for (const [s, seller] of config.sellers.entries())
        yield { id: `${named.name}-${k}-${s}`, index: index++, config: named, marketIndex: k, seller, buyer: config.buyer, scenario, optimalWelfare };
    }
}

/** The seat of `role` in market `jobId` of a run seeded `runSeed`: its seed, and its random stream made only when read. */
export const marketSeat = (runSeed: number, jobId: string, role: MarketRole): SeatInfo => new Seat(runSeed, jobId, role);

class Seat implements SeatInfo {
  private stream: Rng | null = null;
  readonly seed: number;
  constructor(runSeed: number, readonly negotiationId: string, role: MarketRole) {
    this.seed = deriveSeed(runSeed, negotiationId, role);
  }
  get rng(): Rng {
    return (this.stream ??= createRng(this.seed));
  }
}

export interface MarketTournamentOptions {
  signal?: AbortSignal;
  /** Jobs at the start of the plan already played (a resumed run's stored markets): not played again. */
  skip?: number;
  /** Markets in play at once (default 1): worth it for remote model seats, which wait on the network. */
  concurrency?: number;
  maxRetries?: number;
  /** Awaited before the next market is played. */
  onResult?: (result: MarketTournamentResult) => void | Promise<void>;
}

export interface MarketTournamentSummary {
  planned: number;
  played: number;
  cancelled: boolean;
}

/**
 * Plays the plan in order, `concurrency` markets at a time (default 1); results are handed on in
 * plan order whatever order they finish in, so what a caller stores is always a prefix of the plan.
 */
export async function runMarketTournament(
  config: MarketTournamentConfig,
  makeAgent: MarketAgentFactory,
  opts: MarketTournamentOptions = {},
): Promise<MarketTournamentSummary> {
  const { signal } = opts;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
  let played = 0;
  let stopped = false;
  const skip = opts.skip ?? 0;
  const play = (job: MarketJob): PlayedMarket | Promise<PlayedMarket> => {
    const agents = {
      seller: makeAgent(job.seller, 'seller', new Seat(config.seed, job.id, 'seller')),
      buyer: makeAgent(job.buyer, 'buyer', new Seat(config.seed, job.id, 'buyer')),
    };
    const run = {
      optimalWelfare: job.optimalWelfare,
      ...(signal && { signal }),
      ...(opts.maxRetries !== undefined && { maxRetries: opts.maxRetries }),
    };
    return playMarket(job.scenario, agents, run);
  };
  /** Hands one finished market on; false once the run stops (a cancelled market is not handed on). */
  const deliver = async (job: MarketJob, result: PlayedMarket): Promise<boolean> => {
    if (stopped || result.outcome.kind === 'cancelled') return !(stopped = true);
    const handed = opts.onResult?.({ ...job, ...result });
    if (handed !== undefined && isThenable(handed)) await handed;
    played++;
    return true;
  };
  const inFlight: { job: MarketJob; result: Promise<PlayedMarket> }[] = [];
  for (const job of planMarketJobs(config)) {
    if (signal?.aborted || stopped) break;
    if (job.index < skip) continue;
    const now = play(job);
    if (concurrency === 1) {
      if (!(await deliver(job, isThenable(now) ? await now : now))) break;
      continue;
    }
    inFlight.push({ job, result: Promise.resolve(now) });
    if (inFlight.length >= concurrency) {
      const first = inFlight.shift() as (typeof inFlight)[number];
      if (!(await deliver(first.job, await first.result))) break;
    }
  }
  // The markets still in flight finish (a cancel ends them at once) and are handed on in order.
  for (const { job, result } of inFlight) await deliver(job, await result);
  return { planned: plannedMarkets(config), played, cancelled: signal?.aborted ?? false };
}
