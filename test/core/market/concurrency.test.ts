/**
 * Market tournaments played several markets at a time: whatever order the markets finish in, they
 * are handed on in plan order, and the results are those of the same tournament played one by one;
 * `skip` leaves out the plan's first markets.
 */
import { describe, expect, it } from 'vitest';
import { makeMarketAgent } from '../../../src/agents/market';
import { MARKET_PRESETS } from '../../../src/core/market/scenario';
import { runMarketTournament, type MarketAgentFactory, type MarketTournamentConfig, type MarketTournamentResult } from '../../../src/core/market/tournament';
import { hashString } from '../../../src/core/rng';

const CONFIG: MarketTournamentConfig = { sellers: ['greedy', 'random', 'explore'], buyer: 'random', configs: [MARKET_PRESETS[0]!, MARKET_PRESETS[2]!], marketsPerConfig: 4, seed: 9 };

/** The scripted agents, each move held back a few event-loop turns that vary by market, so markets finish out of order. */
const uneven: MarketAgentFactory = (spec, role, seat) => {
  const agent = makeMarketAgent(spec, role, seat);
  const turns = hashString(seat.negotiationId) % 5;
  return {
    act: async (observation, signal, retry) => {
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      return agent.act(observation, signal, retry);
    },
  };
};

const play = async (factory: MarketAgentFactory, opts: { concurrency?: number; skip?: number } = {}) => {
  const results: MarketTournamentResult[] = [];
  const summary = await runMarketTournament(CONFIG, factory, { ...opts, onResult: (r) => void results.push(r) });
  return { results, summary };
};

describe('market tournaments several markets at a time', () => {
  it('hand results on in plan order, equal to the one-by-one run', async () => {
    const one = await play(makeMarketAgent);
    const many = await play(uneven, { concurrency: 5 });
    expect(many.results.map((r) => r.index)).toEqual(one.results.map((r) => r.index));
    expect(many.results.map((r) => [r.id, r.events, r.metrics])).toEqual(one.results.map((r) => [r.id, r.events, r.metrics]));
    expect(many.summary).toEqual({ planned: 24, played: 24, cancelled: false });
  });

  it('skip leaves out the plan’s first markets and plays the rest as before', async () => {
    const one = await play(makeMarketAgent);
    const rest = await play(uneven, { concurrency: 3, skip: 10 });
    expect(rest.results.map((r) => [r.id, r.events])).toEqual(one.results.slice(10).map((r) => [r.id, r.events]));
    expect(rest.summary.played).toBe(14);
  });
});
