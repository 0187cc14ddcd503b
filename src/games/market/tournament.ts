/**
 * Market tournaments: every seller plays the same markets of every configuration (common random
 * numbers), against one buyer strategy. The engine plays them (game.ts); here are the plan and
 * one market's play.
 */
import type { AgentFactory } from '../../engine/seat';
import { andThen, playSession, type Agent, type RunOptions } from '../../engine/session';
import type { MarketEvent, MarketResult } from './events';
import { optimalAllocation } from './matching';
import { computeMarketMetrics, type MarketMetrics } from './metrics';
import type { MarketMove, MarketRole } from './moves';
import { market, type MarketObservation } from './protocol';
import { generateMarket, type MarketScenario, type NamedMarketConfig } from './scenario';

export type MarketAgent = Agent<MarketObservation, MarketMove>;

/** Builds the agent for one seat of one market. */
export type MarketAgentFactory = AgentFactory<MarketRole, MarketAgent>;

export interface MarketPlayOptions extends RunOptions<MarketRole, MarketMove, MarketResult> {
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
  return andThen(playSession(market, scenario, agents, run), score);
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

export const plannedMarkets = (config: MarketTournamentConfig): number => config.configs.length * config.marketsPerConfig * config.sellers.length;

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

/** Whether `id` names a market of this plan: `<configuration>-<market>-<seller>`, numbers in plain decimal. */
export function marketJobInPlan(config: MarketTournamentConfig, id: string): boolean {
  const m = /^(.+)-(0|[1-9]\d{0,8})-(0|[1-9]\d{0,8})$/.exec(id);
  if (!m) return false;
  const [name, k, s] = [m[1], Number(m[2]), Number(m[3])];
  return k < config.marketsPerConfig && s < config.sellers.length && config.configs.some((c) => c.name === name);
}
