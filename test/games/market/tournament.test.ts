import { describe, expect, it } from 'vitest';
import { MarketAggregator } from '../../../src/games/market/aggregate';
import type { MarketMetrics } from '../../../src/games/market/metrics';
import { ACCEPT_OFFER, REJECT_OFFER, sellerMove } from '../../../src/games/market/moves';
import { HELD_OUT_CONFIGS, MARKET_PRESETS } from '../../../src/games/market/scenario';
import {
  planMarketJobs,
  plannedMarkets,
  type MarketAgentFactory,
  type MarketTournamentConfig,
  type MarketTournamentResult,
} from '../../../src/games/market/tournament';
import { runTournament } from '../../../src/engine/tournament';
import { marketGame } from '../../../src/games/market/game';

/** Sellers that offer the first in-stock product to the first active buyer at list price (`list`) or at cost (`cost`). */
const factory: MarketAgentFactory = (spec, role) => ({
  act: (obs) => {
    if (obs.role === 'buyer') return { kind: 'move', move: spec === 'yes' ? ACCEPT_OFFER : REJECT_OFFER };
    if (obs.role !== 'seller') throw new Error('unreachable');
    const product = obs.products.find((p) => p.stock > 0)!;
    const buyer = obs.buyers.find((b) => b.active)!;
    void role;
    return { kind: 'move', move: sellerMove(buyer.id, product.id, spec === 'list' ? product.listPrice : product.cost) };
  },
});

const config: MarketTournamentConfig = {
  sellers: ['list', 'cost'],
  buyer: 'yes',
  configs: [MARKET_PRESETS[0]!, HELD_OUT_CONFIGS[0]!],
  marketsPerConfig: 3,
  seed: 4,
};

describe('market tournaments', () => {
  it('plans every seller on the same markets of every configuration', () => {
    const jobs = [...planMarketJobs(config)];
    expect(jobs).toHaveLength(plannedMarkets(config));
    expect(jobs).toHaveLength(2 * 3 * 2);
    const byMarket = new Map<string, string[]>();
    for (const j of jobs) byMarket.set(j.scenario.id, [...(byMarket.get(j.scenario.id) ?? []), j.seller]);
    expect([...byMarket.values()].every((s) => s.join() === 'list,cost')).toBe(true);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(jobs.length);
    expect(jobs.filter((j) => j.config.heldOut)).toHaveLength(6);
  });

  it('plays them, scores them and gathers standings per configuration, held-out ones marked, with intervals', async () => {
    const results: MarketTournamentResult[] = [];
    const summary = await runTournament(marketGame, config, factory, { onResult: (r) => void results.push(r) });
    expect(summary).toEqual({ planned: 12, played: 12, skipped: 0, cancelled: false });
    const agg = new MarketAggregator();
    for (const r of results) agg.add(r.config.name, r.config.heldOut, r.seller, r.metrics);
    const rows = agg.standings({ samples: 200, seed: 1 });
    const cell = (config: string, seller: string) => rows.find((r) => r.config === config && r.seller === seller)!;
    const small = cell('small', 'cost');
    expect(small).toMatchObject({ scope: 'config', heldOut: false, n: 3, errors: 0 });
    // Selling at cost to whoever accepts leaves the seller nothing.
    expect(small.metrics.sellerSurplus.value).toBe(0);
    expect(small.metrics.extraction.value).toBe(0);
    expect(cell('small', 'list').metrics.extraction.value).toBeGreaterThan(0);
    const mean = (seller: string) =>
      results.filter((r) => r.config.name === 'small' && r.seller === seller).reduce((s, r) => s + r.metrics.sellerSurplus, 0) / 3;
    expect(cell('small', 'list').metrics.sellerSurplus.value).toBeCloseTo(mean('list'), 9);
    const [low, high] = cell('small', 'list').metrics.sellerSurplus.ci!;
    expect(low).toBeLessThanOrEqual(mean('list'));
    expect(high).toBeGreaterThanOrEqual(mean('list'));
    expect(cell(HELD_OUT_CONFIGS[0]!.name, 'list').heldOut).toBe(true);
    expect(cell('held-out', 'list')).toMatchObject({ scope: 'held-out', heldOut: true, n: 3 });
    expect(cell('presets', 'cost')).toMatchObject({ scope: 'presets', n: 3 });
    expect(rows.findIndex((r) => r.scope !== 'config')).toBe(4);
  });

  it('counts an errored market only in errors, and stops when cancelled', async () => {
    const agg = new MarketAggregator();
    agg.add('small', false, 's', { outcome: 'error' } as MarketMetrics);
    expect(agg.standings({ samples: 0, seed: 1 })[0]).toMatchObject({ n: 0, errors: 1, metrics: { sellerSurplus: { value: null, ci: null } } });
    const stop = new AbortController();
    let played = 0;
    const summary = await runTournament(marketGame, config, factory, {
      signal: stop.signal,
      onResult: () => {
        if (++played === 5) stop.abort();
      },
    });
    expect(summary).toEqual({ planned: 12, played: 5, skipped: 0, cancelled: true });
  });
});
