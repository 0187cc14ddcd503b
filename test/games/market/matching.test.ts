import { describe, expect, it } from 'vitest';
import { maxWeightMatching, optimalAllocation } from '../../../src/games/market/matching';
import { generateMarket, marketConfig, VALUATIONS, type MarketScenario } from '../../../src/games/market/scenario';
import { createRng } from '../../../src/engine/rng';

/** Every partial assignment of rows to distinct columns (or none), by exhaustive search: the best total. */
function bruteForce(weights: number[][], capacity?: number[]): number {
  const cols = weights[0]?.length ?? 0;
  const left = capacity ? capacity.slice() : Array.from({ length: cols }, () => 1);
  const go = (row: number): number => {
    if (row === weights.length) return 0;
    let best = go(row + 1); // this row takes nothing
    for (let j = 0; j < cols; j++) {
      if ((left[j] as number) === 0) continue;
      left[j] = (left[j] as number) - 1;
      best = Math.max(best, Math.max(0, (weights[row] as number[])[j] as number) + go(row + 1));
      left[j] = (left[j] as number) + 1;
    }
    return best;
  };
  return go(0);
}

describe('maxWeightMatching', () => {
  it('equals brute force on every size up to 6 × 6, ten seeds each (360 matrices), with negative and tied weights', () => {
    let checked = 0;
    for (let rows = 1; rows <= 6; rows++)
      for (let cols = 1; cols <= 6; cols++)
        for (let seed = 0; seed < 10; seed++) {
          const rng = createRng(1000 * rows + 100 * cols + seed);
          // Whole numbers in [-20, 80] make ties common, which is where a faulty augmenting path shows.
          const w = Array.from({ length: rows }, () => Array.from({ length: cols }, () => rng.int(101) - 20));
          const m = maxWeightMatching(w);
          expect(m.total, `${rows}×${cols} seed ${seed}`).toBe(bruteForce(w));
          // The pairs are a matching whose weights add up to the total.
          expect(new Set(m.pairs.map(([r]) => r)).size).toBe(m.pairs.length);
          expect(new Set(m.pairs.map(([, c]) => c)).size).toBe(m.pairs.length);
          expect(m.pairs.reduce((s, [r, c]) => s + ((w[r] as number[])[c] as number), 0)).toBe(m.total);
          for (const [r, c] of m.pairs) expect((w[r] as number[])[c]).toBeGreaterThan(0);
          checked++;
        }
    expect(checked).toBe(360);
  });

  it('equals brute force on generated markets of every size up to 6 × 6 in every valuation model from 300 seeds, stock 1 and 2', () => {
    for (let seed = 0; seed < 300; seed++) {
      const buyers = 1 + (seed % 6);
      const products = 1 + (Math.floor(seed / 6) % 6);
      const stock = seed % 5 === 0 ? 2 : 1;
      // Each run of 36 seeds covers every size once, in one valuation model; every model gets a whole run.
      const valuation = VALUATIONS[Math.floor(seed / 36) % VALUATIONS.length] as (typeof VALUATIONS)[number];
      const s = generateMarket(marketConfig({ buyers, products, stock, valuation }), seed);
      const weights = s.buyers.map((b) => b.values.map((v, j) => v - (s.products[j] as MarketScenario['products'][number]).cost));
      const best = bruteForce(
        weights,
        s.products.map((p) => p.stock),
      );
      expect(optimalAllocation(s).welfare, `${buyers}×${products} stock ${stock} seed ${seed}`).toBeCloseTo(best, 6);
    }
  });

  it('handles empty and one-sided matrices, and takes no edge worth nothing', () => {
    expect(maxWeightMatching([])).toEqual({ pairs: [], total: 0 });
    expect(maxWeightMatching([[]])).toEqual({ pairs: [], total: 0 });
    expect(maxWeightMatching([[-5, 0]])).toEqual({ pairs: [], total: 0 });
    expect(maxWeightMatching([[1], [3], [2]])).toEqual({ pairs: [[1, 0]], total: 3 });
  });

  it('gives up the greedy edge when two others are worth more', () => {
    // greedy takes 10 (b0–p0) and is left with 1; the optimum is 9 + 9
    expect(
      maxWeightMatching([
        [10, 9],
        [9, 1],
      ]),
    ).toEqual({
      pairs: [
        [0, 1],
        [1, 0],
      ],
      total: 18,
    });
  });
});

describe('optimalAllocation', () => {
  it('names buyers and products, with each pair’s welfare v − c, summing to the welfare', () => {
    const s: MarketScenario = {
      id: 'hand',
      products: [
        { id: 'p1', name: 'A', cost: 10, listPrice: 20, stock: 1 },
        { id: 'p2', name: 'B', cost: 5, listPrice: 10, stock: 2 },
      ],
      buyers: [
        { id: 'b1', values: [30, 12] },
        { id: 'b2', values: [25, 14] },
        { id: 'b3', values: [8, 4] },
      ],
      budget: 6,
      valuation: 'independent',
      allowBelowCost: false,
    };
    const a = optimalAllocation(s);
    // b1–p1 (20) + b2–p2 (9), b3 values nothing above cost
    expect(a.welfare).toBe(29);
    expect(a.assignments).toEqual([
      { buyer: 'b1', product: 'p1', welfare: 20 },
      { buyer: 'b2', product: 'p2', welfare: 9 },
    ]);
  });
});
