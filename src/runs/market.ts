/** The market game's runs: every seller on the same markets of each configuration. */
import { createMarketAgentFactory, parseMarketSpec, parseMarketSpecs } from '../games/market';
import { MarketAggregator, type MarketStandingRow } from '../games/market/aggregate';
import { marketGame } from '../games/market/game';
import { computeMarketMetrics } from '../games/market/metrics';
import { marketLine, tournamentOf, type MarketRunConfig } from '../storage/market-schema';
import type { RunGameOver } from './game';

/** Why a run's seats cannot be played, or null. */
export function seatProblem(config: MarketRunConfig): string | null {
  const sellers = parseMarketSpecs(config.sellers, 'seller');
  if (!sellers.ok) return sellers.error.message;
  const buyer = parseMarketSpecs([config.buyer], 'buyer');
  return buyer.ok ? null : buyer.error.message;
}

export const seatsOf = (config: MarketRunConfig): string[] => [...config.sellers, config.buyer];

export const marketRuns: RunGameOver<'market', typeof marketGame, MarketRunConfig, MarketAggregator, MarketStandingRow[]> = {
  game: 'market',
  engine: marketGame,
  create: (settings) => {
    const problem = seatProblem(settings);
    if (problem) throw new Error(problem);
    return settings;
  },
  tournament: (config) => {
    if (config.game) throw new Error('a market game is not resumed; play it again on the Market page');
    return tournamentOf(config);
  },
  seats: seatsOf,
  anyRemote: (config) =>
    [...config.sellers.map((s) => parseMarketSpec(s, 'seller')), parseMarketSpec(config.buyer, 'buyer')].some((p) => p.ok && p.value.remote !== undefined),
  makeAgent: (config, remote, local) =>
    createMarketAgentFactory(remote, config.llm ?? {}, (spec) => (spec.webllm !== undefined ? local.webllm?.(spec.webllm) : undefined)),
  line: marketLine,
  tally: () => new MarketAggregator(),
  addLine: (tally, m) => tally.add(m.config, m.heldOut, m.seller, computeMarketMetrics(m.scenario, m.events)),
  addResult: (tally, r) => tally.add(r.config.name, r.config.heldOut, r.seller, r.metrics),
  standings: (tally, config, final) => tally.standings({ samples: final ? config.samples : 0, seed: config.seed }),
};
