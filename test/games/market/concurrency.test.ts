/**
 * Market tournaments through the engine: several markets at a time, handed on in plan order
 * whatever order they finish in, equal to the same tournament played one by one; a slot is refilled
 * as soon as its market ends; and a resume skips the stored markets by id, wherever they stand.
 */
import { describe, expect, it } from 'vitest';
import { makeMarketAgent } from '../../../src/games/market';
import { runTournament, type TournamentOptions } from '../../../src/engine/tournament';
import { marketGame } from '../../../src/games/market/game';
import { MARKET_PRESETS } from '../../../src/games/market/scenario';
import {
  marketJobInPlan,
  planMarketJobs,
  type MarketAgentFactory,
  type MarketTournamentConfig,
  type MarketTournamentResult,
} from '../../../src/games/market/tournament';
import { hashString } from '../../../src/engine/rng';

const CONFIG: MarketTournamentConfig = {
  sellers: ['greedy', 'random', 'explore'],
  buyer: 'random',
  configs: [MARKET_PRESETS[0]!, MARKET_PRESETS[2]!],
  marketsPerConfig: 4,
  seed: 9,
};

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The scripted agents, each move held back a few event-loop turns that vary by market, so markets finish out of order. */
const uneven: MarketAgentFactory = (spec, role, seat) => {
  const agent = makeMarketAgent(spec, role, seat);
  const turns = hashString(seat.jobId) % 5;
  return {
    act: async (observation, signal, retry) => {
      for (let i = 0; i < turns; i++) await nextTurn();
      return agent.act(observation, signal, retry);
    },
  };
};

const play = async (factory: MarketAgentFactory, opts: TournamentOptions<MarketTournamentResult> = {}) => {
  const results: MarketTournamentResult[] = [];
  const summary = await runTournament(marketGame, CONFIG, factory, { ...opts, onResult: (r) => void results.push(r) });
  return { results, summary };
};

describe('market tournaments several markets at a time', () => {
  it('hand results on in plan order, equal to the one-by-one run', async () => {
    const one = await play(makeMarketAgent);
    const many = await play(uneven, { concurrency: 5 });
    expect(many.results.map((r) => r.index)).toEqual(one.results.map((r) => r.index));
    expect(many.results.map((r) => [r.id, r.events, r.metrics])).toEqual(one.results.map((r) => [r.id, r.events, r.metrics]));
    expect(many.summary).toEqual({ planned: 24, played: 24, skipped: 0, cancelled: false });
  });

  it('refill a slot as soon as its market ends, while an earlier market is still playing', async () => {
    const first = [...planMarketJobs(CONFIG)][0]!.id;
    const built = new Set<string>();
    let builtWhenFirstMoved = 0;
    // The first market's seller waits until six markets have been started, or 200 event-loop turns.
    // With concurrency 3, a runner that waited on its oldest market would have started only three.
    const factory: MarketAgentFactory = (spec, role, seat) => {
      built.add(seat.jobId);
      const agent = makeMarketAgent(spec, role, seat);
      if (seat.jobId !== first || role !== 'seller') return { act: async (o, signal, retry) => agent.act(o, signal, retry) };
      let waited = false;
      return {
        act: async (observation, signal, retry) => {
          for (let turn = 0; !waited && built.size < 6 && turn < 200; turn++) await nextTurn();
          if (!waited) builtWhenFirstMoved = built.size;
          waited = true;
          return agent.act(observation, signal, retry);
        },
      };
    };
    const one = await play(makeMarketAgent);
    const many = await play(factory, { concurrency: 3 });
    expect(builtWhenFirstMoved).toBeGreaterThanOrEqual(6);
    expect(many.results.map((r) => [r.id, r.events])).toEqual(one.results.map((r) => [r.id, r.events]));
  });

  it('resume by plan: a non-prefix set of stored ids plays exactly the missing markets, as the unbroken run did', async () => {
    const whole = await play(makeMarketAgent);
    const stored = new Set(whole.results.filter((r) => r.index % 3 === 1 || r.index >= 20).map((r) => r.id));
    for (const concurrency of [1, 4]) {
      const rest = await play(concurrency === 1 ? makeMarketAgent : uneven, { concurrency, skip: new Set([...stored, 'no-such-market-0-0']) });
      expect(rest.results.map((r) => r.id)).toEqual(whole.results.filter((r) => !stored.has(r.id)).map((r) => r.id));
      expect(rest.results.map((r) => [r.events, r.metrics])).toEqual(whole.results.filter((r) => !stored.has(r.id)).map((r) => [r.events, r.metrics]));
      expect(rest.summary).toEqual({ planned: 24, played: 24 - stored.size, skipped: stored.size, cancelled: false });
    }
  });

  it('knows the ids of its plan and no others', () => {
    for (const job of planMarketJobs(CONFIG)) expect(marketJobInPlan(CONFIG, job.id)).toBe(true);
    const name = CONFIG.configs[0]!.name;
    for (const id of [`${name}-4-0`, `${name}-0-3`, `${name}-01-0`, `nowhere-0-0`, `${name}-0`, '']) expect(marketJobInPlan(CONFIG, id)).toBe(false);
  });
});
