/**
 * The conformance suite over every scripted market agent: each seller paired with each buyer on
 * markets of every preset and held-out configuration. Whatever they do, every market must end by
 * the protocol's rules, its log must replay to the same sales, the same seed must give the same
 * log, and the rational strategies must stay rational and make no refused move.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MARKET_STRATEGIES, makeMarketAgent } from '../../../src/games/market';
import { salesOf } from '../../../src/games/market/metrics';
import type { BuyerMove, SellerMove } from '../../../src/games/market/moves';
import { market, MARKET_ENDS, type MarketState } from '../../../src/games/market/protocol';
import { ALL_MARKET_CONFIGS } from '../../../src/games/market/scenario';
import type { MarketTournamentResult } from '../../../src/games/market/tournament';
import { runTournament } from '../../../src/engine/tournament';
import { marketGame } from '../../../src/games/market/game';

const MARKETS_PER_CONFIG = 3;
const SEED = 20251201;
const sellers = MARKET_STRATEGIES.seller;
const buyers = MARKET_STRATEGIES.buyer;

async function play(buyer: string, seed = SEED): Promise<MarketTournamentResult[]> {
  const results: MarketTournamentResult[] = [];
  await runTournament(
    marketGame,
    { sellers: sellers.map((s) => s.name), buyer, configs: [...ALL_MARKET_CONFIGS], marketsPerConfig: MARKETS_PER_CONFIG, seed },
    makeMarketAgent,
    { onResult: (r) => void results.push(r) },
  );
  return results;
}

function replayProblems(r: MarketTournamentResult): string[] {
  const problems: string[] = [];
  let state: MarketState = market.initialState(r.scenario);
  for (const e of r.events) {
    if (e.type === 'end') {
      if (!market.isTerminal(state)) problems.push(`end logged at turn ${e.turn} before the market ended`);
      else if (JSON.stringify(market.outcome(state)) !== JSON.stringify(e.outcome))
        problems.push(`logged outcome ${JSON.stringify(e.outcome)} differs from replay`);
      if (JSON.stringify(state.sales) !== JSON.stringify(salesOf(r.events))) problems.push('the sales folded from the log differ from the replay');
      continue;
    }
    if (e.turn !== state.turn) problems.push(`event at turn ${e.turn} while the market is at turn ${state.turn}`);
    if (e.actor !== market.currentActor(state)) problems.push(`${e.actor} moved out of turn at ${e.turn}`);
    if (e.type === 'invalid') {
      if (e.reason.trim() === '') problems.push(`invalid move at turn ${e.turn} without a reason`);
    } else if (e.type === 'forfeit') state = market.forfeit(state, e.actor);
    else {
      const next = market.apply(state, e.actor, e.move);
      if (!next.ok) problems.push(`illegal move at turn ${e.turn}: ${next.error.reason}`);
      else state = next.value;
    }
  }
  return problems;
}

describe.each(buyers.map((b) => b.name))('every seller against the %s buyer', (buyer) => {
  const buyerDef = buyers.find((b) => b.name === buyer)!;
  let results: MarketTournamentResult[] = [];
  let again: MarketTournamentResult[] = [];

  beforeAll(async () => {
    results = await play(buyer);
    again = await play(buyer);
  });

  it('plays every seller on every configuration', () => {
    expect(results).toHaveLength(sellers.length * ALL_MARKET_CONFIGS.length * MARKETS_PER_CONFIG);
    expect(new Set(results.map((r) => r.seller))).toEqual(new Set(sellers.map((s) => s.name)));
  });

  it('ends every market by the protocol’s rules, within the budget, and the log replays to the same sales', () => {
    for (const r of results) {
      const where = `${r.seller} on ${r.scenario.id}`;
      expect(replayProblems(r), where).toEqual([]);
      expect(MARKET_ENDS as readonly string[]).toContain(r.outcome.kind);
      expect(r.events.filter((e) => e.type === 'end')).toHaveLength(1);
      expect(r.events.at(-1)?.type).toBe('end');
      expect(r.metrics.budgetUsed).toBeLessThanOrEqual(1);
      if (r.outcome.kind === 'budget_spent') expect(r.metrics.budgetUsed, where).toBe(1);
    }
  });

  it('gives identical logs from the same seed', () => {
    expect(again.map((r) => r.events)).toEqual(results.map((r) => r.events));
  });

  it('rational strategies make no refused move, never price below cost and never pay above value', () => {
    for (const r of results) {
      const sellerDef = sellers.find((s) => s.name === r.seller)!;
      for (const e of r.events) {
        if (e.type === 'invalid' || e.type === 'forfeit') {
          const def = e.actor === 'seller' ? sellerDef : buyerDef;
          expect(def.rational && def.deterministic, `${def.name} (${e.actor}) in ${r.scenario.id}: ${JSON.stringify(e)}`).toBe(false);
        }
        if (e.type === 'move' && e.actor === 'seller' && sellerDef.rational) {
          const move = e.move as SellerMove;
          expect(move.price).toBeGreaterThanOrEqual(r.scenario.products.find((p) => p.id === move.product)!.cost);
        }
      }
      if (buyerDef.rational)
        for (const sale of salesOf(r.events)) {
          const j = r.scenario.products.findIndex((p) => p.id === sale.product);
          expect(sale.price).toBeLessThanOrEqual(r.scenario.buyers.find((b) => b.id === sale.buyer)!.values[j]!);
        }
    }
  });

  it('the random seller is refused now and then, and every refusal says why; its adherence shows it', () => {
    const random = results.filter((r) => r.seller === 'random');
    const refused = random.flatMap((r) => r.events.filter((e) => e.type === 'invalid' && e.actor === 'seller'));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e.type === 'invalid' && /unknown buyer|already bought|out of stock|below the cost/.test(e.reason))).toBe(true);
    expect(random.some((r) => r.metrics.constraintAdherence < 1)).toBe(true);
    const buyerMoves = results.flatMap((r) => r.events.flatMap((e) => (e.type === 'move' && e.actor === 'buyer' ? [e.move as BuyerMove] : [])));
    expect(buyerMoves.length).toBeGreaterThan(0);
  });
});
