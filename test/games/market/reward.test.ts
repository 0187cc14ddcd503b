import { describe, expect, it } from 'vitest';
import { DEFAULT_MARKET_REWARD_WEIGHTS, marketReward } from '../../../src/games/market/reward';
import { ACCEPT_OFFER, counterOffer, REJECT_OFFER, sellerMove } from '../../../src/games/market/moves';
import { handMarket, playMarket, scripted } from './helpers';

// handMarket: values b1 (30, 12, 9), b2 (25, 14, 2); costs 10, 5, 8; optimal welfare 29.
describe('marketReward: each term by hand', () => {
  it('the optimal allocation with one refused move in five: adherence −1/5, extraction 20/29, allocation 0.5 × 1', () => {
    const log = playMarket(
      handMarket(),
      scripted(sellerMove('b1', 'p1', 28), sellerMove('b1', 'p1', 24), sellerMove('b1', 'p2', 12), sellerMove('b2', 'p2', 12), sellerMove('b2', 'p2', 11)),
      scripted(counterOffer(24), ACCEPT_OFFER, REJECT_OFFER, ACCEPT_OFFER),
    );
    const r = marketReward(handMarket(), log);
    expect(r.terms.adherence).toBeCloseTo(-0.2, 12);
    expect(r.terms.extraction).toBeCloseTo(20 / 29, 12);
    expect(r.terms.allocation).toBe(0.5);
    expect(r.total).toBeCloseTo(-0.2 + 20 / 29 + 0.5, 12);
    expect(r.counts).toEqual({ constraintAdherence: 0.8, extraction: 20 / 29, allocationQuality: 1, validMoves: 4, invalidMoves: 1 });
  });

  it('a mismatched allocation: welfare 22 of 29 and surplus 16, every move valid', () => {
    const log = playMarket(handMarket(), scripted(sellerMove('b1', 'p2', 11), sellerMove('b2', 'p1', 20)), scripted(ACCEPT_OFFER));
    const r = marketReward(handMarket(), log);
    expect(r.terms).toEqual({ adherence: 0, extraction: 16 / 29, allocation: 0.5 * (22 / 29) });
    expect(r.total).toBeCloseTo(16 / 29 + 11 / 29, 12);
  });

  it('weights scale each term; a seller whose every move is refused pays the whole adherence weight and earns nothing', () => {
    const s = handMarket({ budget: 2 });
    const log = playMarket(s, scripted(sellerMove('b1', 'p9', 20)), scripted(ACCEPT_OFFER), 1);
    expect(marketReward(s, log).terms).toEqual({ adherence: -1, extraction: 0, allocation: 0 });
    expect(marketReward(s, log, { adherence: 2.5 }).total).toBe(-2.5);
    const good = playMarket(handMarket(), scripted(sellerMove('b1', 'p2', 11), sellerMove('b2', 'p1', 20)), scripted(ACCEPT_OFFER));
    expect(marketReward(handMarket(), good, { extraction: 2, allocation: 0 }).terms).toEqual({ adherence: 0, extraction: 32 / 29, allocation: 0 });
    expect(DEFAULT_MARKET_REWARD_WEIGHTS).toEqual({ adherence: 1, extraction: 1, allocation: 0.5 });
  });

  it('clamps: a sale below cost and value earns no negative extraction or allocation, only what the terms allow', () => {
    const s = handMarket({ allowBelowCost: true });
    const log = playMarket(s, scripted(sellerMove('b2', 'p3', 6)), scripted(ACCEPT_OFFER, REJECT_OFFER));
    const r = marketReward(s, log);
    expect(r.counts.extraction).toBeCloseTo(-2 / 29, 12);
    expect(r.counts.allocationQuality).toBeCloseTo(-6 / 29, 12);
    // The scripted seller then offers b2 again, who is served: 3 turns × 3 refused answers, 1 valid of 10.
    expect(r.counts).toMatchObject({ validMoves: 1, invalidMoves: 9 });
    expect(r.terms).toEqual({ adherence: -0.9, extraction: 0, allocation: 0 });
  });

  it('with no gains from trade anywhere, only adherence counts; a seller that does nothing earns 0', () => {
    const s = handMarket({
      buyers: [
        { id: 'b1', values: [1, 1, 1] },
        { id: 'b2', values: [2, 2, 2] },
      ],
    });
    const r = marketReward(s, playMarket(s, scripted(sellerMove('b1', 'p1', 20)), scripted(REJECT_OFFER)));
    expect(r.terms).toEqual({ adherence: 0, extraction: 0, allocation: 0 });
    expect(Object.is(r.total, 0)).toBe(true);
  });
});
