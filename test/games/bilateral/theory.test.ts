import { describe, expect, test } from 'vitest';
import {
  addGains,
  doubleAuction,
  emptyGains,
  finiteHorizonShare,
  finiteHorizonShareCommon,
  firstBestGains,
  lastWord,
  MS_TRADE_GAP,
  nashPrice,
  powerPrice,
  realisedShare,
  rubinsteinShare,
  secondBestEfficiency,
  secondBestGains,
  sellerShareOf,
  uniformGainsAbove,
  uniformTradeProbability,
} from '../../../src/games/bilateral/theory';
import { createRng } from '../../../src/engine/rng';

describe('splitting a zone of agreement', () => {
  test('the Nash price is the midpoint, and bargaining power moves it from cost (α = 0) to value (α = 1)', () => {
    expect(nashPrice(120, 80)).toBe(100);
    expect(powerPrice(120, 80, 0.5)).toBe(nashPrice(120, 80));
    expect(powerPrice(120, 80, 0)).toBe(80);
    expect(powerPrice(120, 80, 1)).toBe(120);
    expect(powerPrice(120, 80, 0.25)).toBe(90);
    expect(() => powerPrice(120, 80, 1.5)).toThrow();
  });
});

describe('alternating offers (Rubinstein)', () => {
  test('infinite horizon: (1 − δ₂)/(1 − δ₁δ₂), 1/(1 + δ) with a common discount', () => {
    expect(rubinsteinShare(0.9, 0.9)).toBeCloseTo(1 / 1.9, 12);
    expect(rubinsteinShare(0.9, 0.8)).toBeCloseTo(0.2 / 0.28, 12);
    expect(rubinsteinShare(0.5, 0)).toBe(1); // an impatient responder takes anything
    expect(rubinsteinShare(0, 0.5)).toBe(0.5);
    expect(rubinsteinShare(1, 1)).toBeNull();
  });

  test('finite horizon, by hand: T = 1 is the ultimatum; T = 2, 3, 4 with δ₁ = 0.9, δ₂ = 0.8', () => {
    expect(finiteHorizonShare(1, 0.9, 0.8)).toBe(1);
    // T = 2: the responder proposes last and would take all, worth δ₂ = 0.8 to it now.
    expect(finiteHorizonShare(2, 0.9, 0.8)).toBeCloseTo(0.2, 12);
    // T = 3: at offer 2 the second proposer must give δ₁ × 1 = 0.9 and keeps 0.1; at offer 1 the first gives it 0.8 × 0.1.
    expect(finiteHorizonShare(3, 0.9, 0.8)).toBeCloseTo(0.92, 12);
    // T = 4: offer 3 gives the first 1 − 0.8 = 0.2; offer 2 the second 1 − 0.9 × 0.2 = 0.82; offer 1 the first 1 − 0.8 × 0.82.
    expect(finiteHorizonShare(4, 0.9, 0.8)).toBeCloseTo(0.344, 12);
  });

  test('a common discount matches (1 − (−δ)^T)/(1 + δ), and without discounting the last proposer takes all', () => {
    for (const delta of [0, 0.3, 0.9, 0.99])
      for (const T of [1, 2, 3, 7, 20]) expect(finiteHorizonShare(T, delta, delta)).toBeCloseTo(finiteHorizonShareCommon(T, delta), 12);
    expect(finiteHorizonShare(20, 1, 1)).toBe(0);
    expect(finiteHorizonShare(21, 1, 1)).toBe(1);
  });

  test('the finite-horizon split converges to the infinite one as T grows', () => {
    const limit = rubinsteinShare(0.9, 0.8) as number;
    const gap = (T: number) => Math.abs(finiteHorizonShare(T, 0.9, 0.8) - limit);
    expect(gap(10)).toBeLessThan(gap(4));
    expect(gap(40)).toBeLessThan(gap(10));
    expect(gap(200)).toBeLessThan(1e-9);
  });

  test('the last word: odd T to the first proposer, even T to the other', () => {
    expect(lastWord(1, 'seller')).toBe('seller');
    expect(lastWord(20, 'seller')).toBe('buyer');
    expect(lastWord(21, 'buyer')).toBe('buyer');
    expect(sellerShareOf(0.7, 'seller')).toBe(0.7);
    expect(sellerShareOf(0.7, 'buyer')).toBeCloseTo(0.3, 12);
  });
});

describe('Myerson–Satterthwaite on the unit square', () => {
  test('first best 1/6; the best mechanism trades only when v − c ≥ 1/4 and realises 9/64, 27/32 of first best', () => {
    expect(MS_TRADE_GAP).toBe(0.25);
    expect(firstBestGains()).toBeCloseTo(1 / 6, 15);
    expect(secondBestGains()).toBeCloseTo(9 / 64, 15);
    expect(secondBestEfficiency()).toBeCloseTo(27 / 32, 15);
    expect(uniformTradeProbability(0)).toBe(0.5);
    expect(uniformTradeProbability(0.25)).toBeCloseTo(9 / 32, 15);
    expect(uniformGainsAbove(1)).toBeCloseTo(0, 15);
  });

  test('the double auction trades exactly when v − c ≥ 1/4, at the midpoint of bid and ask', () => {
    expect(doubleAuction(0.8, 0.5).price).not.toBeNull(); // gap 0.3
    expect(doubleAuction(0.7, 0.5).price).toBeNull(); // gap 0.2: gains left on the table
    const { bid, ask, price } = doubleAuction(0.75, 0.5);
    expect(bid).toBeCloseTo(ask, 12);
    expect(price).toBeCloseTo(7 / 12, 12);
  });

  test('a sample tally approaches 1/6 and 9/64 per scenario, and realises what the deals carried', () => {
    const rng = createRng(5);
    const tally = emptyGains();
    const mechanism = emptyGains();
    for (let i = 0; i < 200_000; i++) {
      const v = rng.next() * 50;
      const c = rng.next() * 50;
      addGains(tally, v, c, 50, v > c);
      addGains(mechanism, v, c, 50, doubleAuction(v / 50, c / 50).price !== null);
    }
    expect(tally.firstBest / tally.scenarios).toBeCloseTo(1 / 6, 2);
    expect(tally.secondBest / tally.scenarios).toBeCloseTo(9 / 64, 2);
    expect(realisedShare(tally)).toBeCloseTo(1, 12);
    expect(realisedShare(mechanism)).toBeCloseTo(27 / 32, 2);
    const none = emptyGains();
    addGains(none, 10, 20, 100, true); // a deal without gains from trade loses them
    expect(none.realised).toBeCloseTo(-0.1, 12);
    expect(realisedShare(none)).toBeNull();
  });
});
