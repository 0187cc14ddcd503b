/**
 * The welfare-optimal allocation of a market: a maximum-weight bipartite matching of buyers to
 * units of stock, by the Hungarian algorithm (Kuhn–Munkres with potentials, O(n²·m)).
 * See docs/market-metrics.md, "Optimal welfare".
 */
import type { MarketScenario } from './scenario';

export interface Matching {
  /** Matched (row, column) pairs with positive weight, by row. */
  pairs: [row: number, col: number][];
  total: number;
}

/**
 * A maximum-weight matching of a rows × cols weight matrix (weights below 0 count as 0: an edge
 * worth nothing is never taken). Rows and columns may be unequal in number.
 */
export function maxWeightMatching(weights: readonly (readonly number[])[]): Matching {
  const rows = weights.length;
  const cols = rows === 0 ? 0 : (weights[0] as readonly number[]).length;
  if (rows === 0 || cols === 0) return { pairs: [], total: 0 };
  // The algorithm assigns every row of an n × m matrix with n ≤ m; a taller matrix is solved transposed.
  const transpose = rows > cols;
  const n = transpose ? cols : rows;
  const m = transpose ? rows : cols;
  // Costs to minimise (negated weights), 1-indexed as in the textbook form, flat for speed.
  const cost = new Float64Array((n + 1) * (m + 1));
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) {
      const w = transpose ? (weights[j - 1] as readonly number[])[i - 1] : (weights[i - 1] as readonly number[])[j - 1];
      cost[i * (m + 1) + j] = w !== undefined && w > 0 ? -w : 0;
    }
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1); // p[j]: the row assigned to column j (0: none)
  const way = new Int32Array(m + 1);
  const minv = new Float64Array(m + 1);
  const used = new Uint8Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0] as number;
      const base = i0 * (m + 1);
      const ui0 = u[i0] as number;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = (cost[base + j] as number) - ui0 - (v[j] as number);
        if (cur < (minv[j] as number)) {
          minv[j] = cur;
          way[j] = j0;
        }
        if ((minv[j] as number) < delta) {
          delta = minv[j] as number;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          const r = p[j] as number;
          u[r] = (u[r] as number) + delta;
          v[j] = (v[j] as number) - delta;
        } else minv[j] = (minv[j] as number) - delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0] as number;
      p[j0] = p[j1] as number;
      j0 = j1;
    } while (j0 !== 0);
  }
  const pairs: [number, number][] = [];
  let total = 0;
  for (let j = 1; j <= m; j++) {
    const i = p[j] as number;
    if (i === 0) continue;
    const w = -(cost[i * (m + 1) + j] as number);
    if (w <= 0) continue;
    total += w;
    pairs.push(transpose ? [j - 1, i - 1] : [i - 1, j - 1]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return { pairs, total };
}

export interface Allocation {
  /** Which buyer gets which product (one unit each), with the pair's welfare v − c. */
  assignments: { buyer: string; product: string; welfare: number }[];
  welfare: number;
}

/**
 * The welfare-optimal allocation: buyers matched to units of stock to maximise Σ(v − c) over pairs
 * with v > c (a product with stock k is k columns). Unsold units and unserved buyers add 0.
 */
export function optimalAllocation(scenario: MarketScenario): Allocation {
  const unitProduct: number[] = [];
  scenario.products.forEach((p, j) => {
    for (let k = 0; k < p.stock; k++) unitProduct.push(j);
  });
  const weights = scenario.buyers.map((b) => unitProduct.map((j) => (b.values[j] as number) - (scenario.products[j] as { cost: number }).cost));
  const { pairs } = maxWeightMatching(weights);
  const assignments = pairs.map(([b, unit]) => {
    const j = unitProduct[unit] as number;
    const product = scenario.products[j] as MarketScenario['products'][number];
    return { buyer: (scenario.buyers[b] as { id: string }).id, product: product.id, welfare: (weights[b] as number[])[unit] as number };
  });
  // Summed over the pairs as the realised welfare is, so equal allocations give equal sums.
  const welfare = assignments.reduce((s, a) => s + a.welfare, 0);
  return { assignments, welfare };
}
