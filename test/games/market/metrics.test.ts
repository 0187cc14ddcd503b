import { describe, expect, it } from 'vitest';
import { computeMarketMetrics, salesOf } from '../../../src/games/market/metrics';
import { ACCEPT_OFFER, counterOffer, REJECT_OFFER, sellerMove } from '../../../src/games/market/moves';
import type { MarketAgent } from '../../../src/games/market/tournament';
import type { CallRecord } from '../../../src/engine/session';
import { handMarket, playMarket, scripted } from './helpers';

describe('market metrics on hand-made markets', () => {
  // Values b1 (30, 12, 9), b2 (25, 14, 2); costs 10, 5, 8; optimal welfare 29 (b1–p1, b2–p2).
  it('the optimal allocation, realised: allocation quality 1, extraction = seller surplus / 29, one refused move in five', () => {
    const log = playMarket(
      handMarket(),
      scripted(sellerMove('b1', 'p1', 28), sellerMove('b1', 'p1', 24), sellerMove('b1', 'p2', 12), sellerMove('b2', 'p2', 12), sellerMove('b2', 'p2', 11)),
      scripted(counterOffer(24), ACCEPT_OFFER, REJECT_OFFER, ACCEPT_OFFER),
    );
    expect(salesOf(log)).toEqual([
      { buyer: 'b1', product: 'p1', price: 24, turn: 3 },
      { buyer: 'b2', product: 'p2', price: 11, turn: 7 },
    ]);
    const m = computeMarketMetrics(handMarket(), log);
    expect(m).toMatchObject({
      outcome: 'no_buyers',
      constraintAdherence: 4 / 5,
      sellerSurplus: 14 + 6,
      buyerSurplus: 6 + 3,
      optimalWelfare: 29,
      realisedWelfare: 29,
      extraction: 20 / 29,
      allocationQuality: 1,
      sellThrough: 2 / 3,
      budgetUsed: 4 / 4,
      sales: 2,
      turnsUsed: 8,
    });
    expect(m.seller).toMatchObject({ moves: 4, invalidMoves: 1, forfeits: 0 });
    expect(m.buyer).toMatchObject({ moves: 4, invalidMoves: 0 });
  });

  it('a mismatched allocation: each buyer gets the other’s best product, so welfare 22 of 29', () => {
    const log = playMarket(handMarket(), scripted(sellerMove('b1', 'p2', 11), sellerMove('b2', 'p1', 20)), scripted(ACCEPT_OFFER));
    const m = computeMarketMetrics(handMarket(), log);
    expect(m.sellerSurplus).toBe(6 + 10);
    expect(m.buyerSurplus).toBe(1 + 5);
    expect(m.realisedWelfare).toBe(22);
    expect(m.allocationQuality).toBeCloseTo(22 / 29, 12);
    expect(m.extraction).toBeCloseTo(16 / 29, 12);
    expect(m.budgetUsed).toBe(2 / 4);
    expect(m.constraintAdherence).toBe(1);
  });

  it('a seller whose every move is refused: adherence 0, forfeited turns spend the budget, nothing sold', () => {
    const log = playMarket(handMarket({ budget: 2 }), scripted(sellerMove('b1', 'p9', 20)), scripted(ACCEPT_OFFER), 1);
    const m = computeMarketMetrics(handMarket({ budget: 2 }), log);
    expect(m).toMatchObject({
      constraintAdherence: 0,
      budgetUsed: 1,
      sellThrough: 0,
      sellerSurplus: 0,
      extraction: 0,
      allocationQuality: 0,
      outcome: 'budget_spent',
    });
    expect(m.seller).toMatchObject({ moves: 0, invalidMoves: 4, forfeits: 2 });
  });

  it('a sale below value and cost counts its loss: welfare Σ(v − c) may fall below zero', () => {
    const s = handMarket({ allowBelowCost: true });
    const log = playMarket(s, scripted(sellerMove('b2', 'p3', 6)), scripted(ACCEPT_OFFER, REJECT_OFFER));
    const m = computeMarketMetrics(s, log);
    // p3 costs 8 and b2 values it at 2: seller −2, buyer −4
    expect(m.sellerSurplus).toBe(-2);
    expect(m.buyerSurplus).toBe(-4);
    expect(m.realisedWelfare).toBe(-6);
    expect(m.allocationQuality).toBeCloseTo(-6 / 29, 12);
  });

  it('with no gains from trade anywhere, extraction and allocation quality are undefined (null)', () => {
    const s = handMarket({
      buyers: [
        { id: 'b1', values: [1, 1, 1] },
        { id: 'b2', values: [2, 2, 2] },
      ],
    });
    const m = computeMarketMetrics(s, playMarket(s, scripted(sellerMove('b1', 'p1', 20)), scripted(REJECT_OFFER)));
    expect(m.optimalWelfare).toBe(0);
    expect(m.extraction).toBeNull();
    expect(m.allocationQuality).toBeNull();
    expect(m.realisedWelfare).toBe(0);
  });

  it('sell-through counts units: two units of one product, one sold, is one of four', () => {
    const s = handMarket({
      products: [
        { id: 'p1', name: 'Alpha', cost: 10, listPrice: 20, stock: 2 },
        { id: 'p2', name: 'Beta', cost: 5, listPrice: 10, stock: 2 },
      ],
      buyers: [
        { id: 'b1', values: [30, 12] },
        { id: 'b2', values: [25, 14] },
      ],
    });
    const m = computeMarketMetrics(s, playMarket(s, scripted(sellerMove('b1', 'p1', 20), sellerMove('b2', 'p1', 40)), scripted(ACCEPT_OFFER, REJECT_OFFER)));
    expect(m.sellThrough).toBe(1 / 4);
    // optimal: both buyers take p1 (20 + 15)
    expect(m.optimalWelfare).toBe(35);
  });

  it('adds up each seat’s model calls; a market that ended in an error is still scored from what happened', () => {
    const call: CallRecord = { backend: 'fake', model: 'm', latencyMs: 5, tokensIn: 10, tokensOut: 3 };
    let n = 0;
    const seller: MarketAgent = {
      act: () => {
        if (n++ === 0) return { kind: 'move', move: sellerMove('b1', 'p1', 20), call };
        throw new Error('lost');
      },
    };
    const log = playMarket(handMarket(), seller, { act: () => ({ kind: 'move', move: ACCEPT_OFFER, call }) });
    const m = computeMarketMetrics(handMarket(), log);
    expect(m.outcome).toBe('error');
    expect(m.sales).toBe(1);
    expect(m.seller).toMatchObject({ calls: 1, tokensIn: 10, tokensOut: 3, latencyMs: 5 });
    expect(m.buyer).toMatchObject({ calls: 1 });
  });

  it('refuses a log without an end', () => {
    expect(() => computeMarketMetrics(handMarket(), [])).toThrow(/without an end/);
  });
});
