import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/engine/rng';
import { ANALYTIC_MIN_UNITS, bootstrapInterleaved, bootstrapRatios, pairedIntervals, quantile, RatioMoments, ratioInterval } from '../../src/engine/stats';

const col = (xs: number[]) => Float64Array.from(xs);
/** n units, the first `hits` of them with numerator 1, every denominator 1. */
const proportion = (hits: number, n: number) => ({
  num: col(Array.from({ length: n }, (_, i) => (i < hits ? 1 : 0))),
  den: col(new Array(n).fill(1)),
});

describe('quantile', () => {
  it('interpolates linearly between order statistics', () => {
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(quantile([10, 20, 30, 40, 50], 0.1)).toBeCloseTo(14, 12);
    expect(quantile([10, 20, 30, 40, 50], 0.975)).toBeCloseTo(49, 12);
  });

  it('gives the extremes at q = 0 and q = 1, the only value of a singleton, NaN for nothing', () => {
    const xs = col([-3, 0, 2, 9]);
    expect(quantile(xs, 0)).toBe(-3);
    expect(quantile(xs, 1)).toBe(9);
    expect(quantile([7], 0.3)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('bootstrapRatios', () => {
  it('gives ratio-of-sums point values, not means of ratios', () => {
    // Unit ratios 1/1 and 9/10: mean of ratios 0.95, ratio of sums 10/11.
    const [r] = bootstrapRatios([col([1, 9])], [col([1, 10])], 2, createRng(1), 0);
    expect(r!.value).toBeCloseTo(10 / 11, 12);
    expect(r!.ci).toBeNull();
  });

  it('uses only the first n units', () => {
    const [r] = bootstrapRatios([col([1, 1, 0, 0])], [col([1, 1, 1, 1])], 2, createRng(1), 0);
    expect(r!.value).toBe(1);
  });

  it('gives null value and interval when the denominator sums to 0', () => {
    const [r, s] = bootstrapRatios([col([0, 0, 0]), col([1, 0, 1])], [col([0, 0, 0]), col([1, 1, 1])], 3, createRng(1), 200);
    expect(r).toEqual({ value: null, ci: null });
    expect(s!.value).toBeCloseTo(2 / 3, 12);
    expect(s!.ci).not.toBeNull();
  });

  it('gives no intervals for zero units or zero samples', () => {
    expect(bootstrapRatios([col([])], [col([])], 0, createRng(1), 100)).toEqual([{ value: null, ci: null }]);
    expect(bootstrapRatios([col([1])], [col([2])], 1, createRng(1), 0)).toEqual([{ value: 0.5, ci: null }]);
  });

  it('gives an interval that contains the point value and has the right width for a proportion', () => {
    const { num, den } = proportion(120, 400);
    const [r] = bootstrapRatios([num], [den], 400, createRng(7), 2000);
    const [lo, hi] = r!.ci!;
    expect(r!.value).toBe(0.3);
    expect(lo).toBeLessThan(0.3);
    expect(hi).toBeGreaterThan(0.3);
    // Normal approximation: ±1.96·sqrt(0.3·0.7/400) ≈ ±0.045.
    expect(hi - lo).toBeGreaterThan(0.07);
    expect(hi - lo).toBeLessThan(0.11);
    expect(Math.abs((lo + hi) / 2 - 0.3)).toBeLessThan(0.01);
  });

  it('keeps intervals inside the range of the unit ratios', () => {
    const { num, den } = proportion(3, 10);
    const [r] = bootstrapRatios([num], [den], 10, createRng(3), 1000);
    expect(r!.ci![0]).toBeGreaterThanOrEqual(0);
    expect(r!.ci![1]).toBeLessThanOrEqual(1);
  });

  it('is deterministic for a seeded rng, and depends on the seed', () => {
    const { num, den } = proportion(13, 40);
    const a = bootstrapRatios([num], [den], 40, createRng(5), 500);
    const b = bootstrapRatios([num], [den], 40, createRng(5), 500);
    const c = bootstrapRatios([num], [den], 40, createRng(6), 500);
    expect(a).toEqual(b);
    expect(c[0]!.value).toBe(a[0]!.value);
    expect(c[0]!.ci).not.toEqual(a[0]!.ci);
  });

  it('gives narrower intervals with more data', () => {
    const width = (hits: number, n: number) => {
      const { num, den } = proportion(hits, n);
      const [r] = bootstrapRatios([num], [den], n, createRng(2), 1000);
      return r!.ci![1] - r!.ci![0];
    };
    const small = width(10, 20);
    const large = width(250, 500);
    expect(large).toBeLessThan(small / 3);
  });

  it('gives narrower intervals at a lower level', () => {
    const { num, den } = proportion(50, 100);
    const [wide] = bootstrapRatios([num], [den], 100, createRng(4), 1000, 0.95);
    const [narrow] = bootstrapRatios([num], [den], 100, createRng(4), 1000, 0.5);
    expect(narrow!.ci![1] - narrow!.ci![0]).toBeLessThan(wide!.ci![1] - wide!.ci![0]);
    expect(narrow!.ci![0]).toBeGreaterThan(wide!.ci![0]);
    expect(narrow!.ci![1]).toBeLessThan(wide!.ci![1]);
  });

  it('gives a zero-width interval when every unit has the same ratio', () => {
    const [r] = bootstrapRatios([col([2, 4, 6])], [col([4, 8, 12])], 3, createRng(1), 300);
    expect(r).toEqual({ value: 0.5, ci: [0.5, 0.5] });
  });

  it('resamples the same units for every statistic, so identical columns get identical intervals', () => {
    const { num, den } = proportion(7, 30);
    const other = proportion(20, 30);
    const [a, b, c] = bootstrapRatios([num, other.num, num], [den, other.den, den], 30, createRng(9), 400);
    expect(a).toEqual(c);
    expect(b!.ci).not.toEqual(a!.ci);
    // Complementary statistics move together: p and 1 − p resampled jointly mirror each other.
    const flipped = col(Array.from(num, (x) => 1 - x));
    const [p, q] = bootstrapRatios([num, flipped], [den, den], 30, createRng(9), 400);
    expect(p!.ci![0] + q!.ci![1]).toBeCloseTo(1, 12);
    expect(p!.ci![1] + q!.ci![0]).toBeCloseTo(1, 12);
  });

  it('ignores units with a zero denominator in a sparse statistic', () => {
    // Only units 0–3 count for this statistic: 1 hit in 4 → 0.25, whatever the other units hold.
    const num = col([1, 0, 0, 0, 0, 0, 0, 0]);
    const den = col([1, 1, 1, 1, 0, 0, 0, 0]);
    const [r] = bootstrapRatios([num], [den], 8, createRng(1), 500);
    expect(r!.value).toBe(0.25);
    expect(r!.ci![0]).toBeGreaterThanOrEqual(0);
    expect(r!.ci![1]).toBeLessThanOrEqual(1);
    expect(r!.ci![1]).toBeGreaterThan(0.25);
  });
});

describe('pairedIntervals: analytic intervals over clustered units, bootstrap for small cells', () => {
  /** Interleaves per-unit [num, den] pairs of one statistic. */
  const units = (pairs: [number, number][]) => Float64Array.from(pairs.flat());
  /** m scenarios, each with `size` negotiations of which a seeded number succeed with probability p. */
  function clustered(m: number, size: number, p: number, seed: number): Float64Array {
    const rng = createRng(seed);
    const pairs: [number, number][] = [];
    for (let i = 0; i < m; i++) {
      // Scenarios differ: each has its own success chance around p.
      const q = Math.min(1, Math.max(0, p + (rng.next() - 0.5) * 0.4));
      let hits = 0;
      for (let j = 0; j < size; j++) if (rng.next() < q) hits++;
      pairs.push([hits, size]);
    }
    return units(pairs);
  }

  it('gives a zero-width interval where every unit has the same ratio', () => {
    const data = units(Array.from({ length: 50 }, () => [4, 5] as [number, number]));
    const [r] = pairedIntervals(data, 1, 50, [true], createRng(1), 500);
    expect(r).toEqual({ value: 0.8, ci: [0.8, 0.8], method: 'analytic' });
  });

  it('lands within a point of the percentile bootstrap on a large clustered sample', () => {
    for (const [p, seed] of [
      [0.3, 1],
      [0.7, 2],
      [0.5, 3],
    ] as const) {
      const data = clustered(400, 5, p, seed);
      const [analytic] = pairedIntervals(data, 1, 400, [true], createRng(9), 1000);
      const [boot] = bootstrapInterleaved(data, 1, 400, createRng(9), 4000);
      expect(analytic!.method).toBe('analytic');
      expect(Math.abs(analytic!.ci![0] - boot!.ci![0])).toBeLessThan(0.01);
      expect(Math.abs(analytic!.ci![1] - boot!.ci![1])).toBeLessThan(0.01);
    }
  });

  it('covers the true rate about 95% of the time, near the middle and near 0', () => {
    for (const p of [0.5, 0.04]) {
      let covered = 0;
      const trials = 300;
      for (let t = 0; t < trials; t++) {
        // Independent scenarios of one negotiation each, so the true rate is exactly p.
        const rng = createRng(1000 + t);
        const pairs: [number, number][] = Array.from({ length: 200 }, () => [rng.next() < p ? 1 : 0, 1]);
        const [r] = pairedIntervals(units(pairs), 1, 200, [true], createRng(t), 200);
        if (r!.ci && r!.ci[0] <= p && p <= r!.ci[1]) covered++;
      }
      expect(covered / trials).toBeGreaterThan(0.9);
      expect(covered / trials).toBeLessThan(0.99);
    }
  });

  it('keeps a rate near 0 inside [0, 1] (Wilson), where R ± 1.96·sd would go below 0', () => {
    const pairs: [number, number][] = Array.from({ length: 100 }, (_, i) => [i === 0 ? 1 : 0, 1]);
    const [r] = pairedIntervals(units(pairs), 1, 100, [true], createRng(1), 500);
    expect(r!.value).toBe(0.01);
    expect(r!.ci![0]).toBeGreaterThanOrEqual(0);
    expect(r!.ci![0]).toBeLessThanOrEqual(0.01);
    expect(r!.ci![1]).toBeGreaterThan(0.03);
    // An unbounded measure on the same data gets the symmetric normal interval.
    const [u] = pairedIntervals(units(pairs), 1, 100, [false], createRng(1), 500);
    expect(u!.ci![0]).toBeLessThan(0);
    expect(u!.ci![0] + u!.ci![1]).toBeCloseTo(2 * 0.01, 12);
  });

  it(`falls back to the bootstrap below ${ANALYTIC_MIN_UNITS} units with a denominator`, () => {
    const data = clustered(ANALYTIC_MIN_UNITS - 1, 3, 0.4, 5);
    const [r] = pairedIntervals(data, 1, ANALYTIC_MIN_UNITS - 1, [true], createRng(4), 300);
    const [b] = bootstrapInterleaved(data, 1, ANALYTIC_MIN_UNITS - 1, createRng(4), 300);
    expect(r!.method).toBe('bootstrap');
    expect(r!.ci).toEqual(b!.ci);
    expect(r!.value).toBe(b!.value);
    expect(r!.ci![1] - r!.ci![0]).toBeGreaterThan(0);
  });

  it('leaves a statistic without any denominator null, and counts only units with one', () => {
    // Two statistics: the second has a denominator in only 10 units, so it takes the bootstrap.
    const pairs: number[] = [];
    for (let i = 0; i < 40; i++) pairs.push(i % 2, 1, i < 10 ? 1 : 0, i < 10 ? 1 : 0, 0, 0);
    const [a, b, c] = pairedIntervals(Float64Array.from(pairs), 3, 40, [true, true, true], createRng(2), 200);
    expect(a!.method).toBe('analytic');
    expect(b!.method).toBe('bootstrap');
    expect(b!.value).toBe(1);
    expect(c).toEqual({ value: null, ci: null, method: null });
  });
});

describe('intervals stratified by a fixed design (the opener of each scenario)', () => {
  const Z = 1.959963984540054;
  /** Interleaved [a, b] pairs and each unit's stratum. */
  const split = (units: [a: number, b: number, stratum: number][]) => ({
    data: Float64Array.from(units.flatMap(([a, b]) => [a, b])),
    strata: units.map(([, , h]) => h),
    n: units.length,
  });
  /** 16 units of stratum 0 (12 hits) and 16 of stratum 1 (4 hits), one trial each, arriving alternately. */
  const twelveAndFour = () =>
    split(Array.from({ length: 32 }, (_, i) => [i % 2 === 0 ? (i < 24 ? 1 : 0) : i < 8 ? 1 : 0, 1, i % 2] as [number, number, number]));
  /** Wilson's score interval for a proportion p at effective sample size n (the textbook form). */
  const wilson = (p: number, n: number): [number, number] => {
    const centre = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
    const half = (Z / (1 + (Z * Z) / n)) * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
    return [centre - half, centre + half];
  };

  it('by hand: Var(ΣA − R·ΣB) = Σ m_h·s²_h of d = a − R·b, not the pooled spread', () => {
    const { data, strata, n } = twelveAndFour();
    // R = 16/32 = 0.5. Stratum 0: mean 0.75, s² = (12·0.25² + 4·0.75²)/15 = 0.2; stratum 1 likewise 0.2.
    // v = (16·0.2 + 16·0.2)/32² = 1/160. Pooled: 32/31 · Σ(a − 0.5)² / 32² = 32/31 · 8/1024.
    const [r] = pairedIntervals(data, 1, n, [false], createRng(1), 200, 0.95, strata);
    expect(r!.method).toBe('analytic');
    expect(r!.value).toBe(0.5);
    expect(r!.ci![0]).toBeCloseTo(0.5 - Z * Math.sqrt(1 / 160), 12);
    expect(r!.ci![1]).toBeCloseTo(0.5 + Z * Math.sqrt(1 / 160), 12);
    const [pooled] = pairedIntervals(data, 1, n, [false], createRng(1), 200);
    expect(pooled!.ci![1]).toBeCloseTo(0.5 + Z * Math.sqrt(((32 / 31) * 8) / 1024), 12);
    // A rate: Wilson at the effective sample size R(1 − R)/v = 0.25 · 160 = 40.
    const [w] = pairedIntervals(data, 1, n, [true], createRng(1), 200, 0.95, strata);
    const [lo, hi] = wilson(0.5, 40);
    expect(w!.ci![0]).toBeCloseTo(lo, 12);
    expect(w!.ci![1]).toBeCloseTo(hi, 12);
  });

  it('matches a two-pass computation with uneven strata and denominators', () => {
    const rng = createRng(17);
    const units: [number, number, number][] = [];
    for (let i = 0; i < 37; i++) {
      const h = i < 23 ? 0 : 1;
      const b = 1 + rng.int(5);
      let a = 0;
      for (let j = 0; j < b; j++) if (rng.next() < (h === 0 ? 0.8 : 0.3)) a++;
      units.push([a, b, h]);
    }
    units.push([0, 0, 1]); // no denominator: counts nowhere
    // The oracle: d = a − R·b, each stratum's own mean of d removed, m_h/(m_h − 1) per stratum.
    const counted = units.filter(([, b]) => b > 0);
    const R = counted.reduce((t, [a]) => t + a, 0) / counted.reduce((t, [, b]) => t + b, 0);
    const B = counted.reduce((t, [, b]) => t + b, 0);
    let total = 0;
    for (const h of [0, 1]) {
      const d = counted.filter(([, , g]) => g === h).map(([a, b]) => a - R * b);
      const mean = d.reduce((t, x) => t + x, 0) / d.length;
      total += (d.length / (d.length - 1)) * d.reduce((t, x) => t + (x - mean) ** 2, 0);
    }
    const sd = Math.sqrt(total / (B * B));
    const { data, strata, n } = split(units);
    const [r] = pairedIntervals(data, 1, n, [false], createRng(1), 200, 0.95, strata);
    expect(r!.value).toBeCloseTo(R, 12);
    expect(r!.ci![0]).toBeCloseTo(R - Z * sd, 12);
    expect(r!.ci![1]).toBeCloseTo(R + Z * sd, 12);
  });

  it('with one stratum, gives exactly the unstratified interval, analytic and bootstrap alike', () => {
    for (const m of [ANALYTIC_MIN_UNITS + 20, ANALYTIC_MIN_UNITS - 5]) {
      const rng = createRng(m);
      const units = Array.from({ length: m }, () => [rng.int(4), 3] as [number, number]);
      const data = Float64Array.from(units.flat());
      const plain = pairedIntervals(data, 1, m, [true], createRng(3), 300);
      // Every unit in stratum 1 (the buyer opened every scenario) of two.
      const second = pairedIntervals(data, 1, m, [true], createRng(3), 300, 0.95, new Array(m).fill(1));
      expect(second).toEqual(plain);
      expect(plain[0]!.method).toBe(m >= ANALYTIC_MIN_UNITS ? 'analytic' : 'bootstrap');
      const one = new RatioMoments();
      const two = new RatioMoments(2);
      for (const [a, b] of units) {
        one.add(a, b);
        two.add(a, b, 1);
      }
      expect(ratioInterval(two, false, createRng(4), 300)).toEqual(ratioInterval(one, false, createRng(4), 300));
    }
  });

  it('gives zero width where every unit of each stratum has that stratum’s ratio', () => {
    const { data, strata, n } = split(Array.from({ length: 40 }, (_, i) => [i % 2 === 0 ? 3 : 1, 4, i % 2] as [number, number, number]));
    const [r] = pairedIntervals(data, 1, n, [true], createRng(1), 200, 0.95, strata);
    expect(r).toEqual({ value: 0.5, ci: [0.5, 0.5], method: 'analytic' });
    const [pooled] = pairedIntervals(data, 1, n, [true], createRng(1), 200);
    expect(pooled!.ci![1] - pooled!.ci![0]).toBeGreaterThan(0.1);
  });

  it('falls back to the pooled variance where a stratum has a single unit (its spread is unknown)', () => {
    const units: [number, number, number][] = Array.from({ length: 40 }, (_, i) => [i % 3 === 0 ? 1 : 0, 1, 0]);
    units[7] = [1, 1, 1];
    const { data, strata, n } = split(units);
    expect(pairedIntervals(data, 1, n, [true], createRng(1), 200, 0.95, strata)).toEqual(pairedIntervals(data, 1, n, [true], createRng(1), 200));
  });

  it('bootstraps small cells within each stratum, keeping each stratum’s size', () => {
    // 10 units of each stratum, every one of stratum 0 a hit and none of stratum 1: any resample that
    // keeps 10 of each has ratio 0.5 exactly; resampling all 20 together does not.
    const units = split(Array.from({ length: 20 }, (_, i) => [i % 2 === 0 ? 1 : 0, 1, i % 2] as [number, number, number]));
    const [r] = pairedIntervals(units.data, 1, units.n, [true], createRng(5), 500, 0.95, units.strata);
    expect(r).toEqual({ value: 0.5, ci: [0.5, 0.5], method: 'bootstrap' });
    const [pooled] = pairedIntervals(units.data, 1, units.n, [true], createRng(5), 500);
    expect(pooled!.method).toBe('bootstrap');
    expect(pooled!.ci![1] - pooled!.ci![0]).toBeGreaterThan(0.3);
  });

  it('bootstrapInterleaved: one block of n is the plain bootstrap; blocks are resampled apart', () => {
    // Hits [1, 0, 1, 1] then [0, 0, 0, 0], every denominator 1.
    const data = Float64Array.from([1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    expect(bootstrapInterleaved(data, 1, 8, createRng(2), 400, 0.95, [8])).toEqual(bootstrapInterleaved(data, 1, 8, createRng(2), 400));
    // As blocks of 4 and 4, every resample holds 4 draws of the hitless block: never above 4/8. The
    // pooled bootstrap draws 5 or more from the first block in about a fifth of its resamples.
    const [blocks] = bootstrapInterleaved(data, 1, 8, createRng(2), 2000, 0.95, [4, 4]);
    const [pooled] = bootstrapInterleaved(data, 1, 8, createRng(2), 2000, 0.95);
    expect(blocks!.value).toBe(3 / 8);
    expect(blocks!.ci![1]).toBeLessThanOrEqual(4 / 8);
    expect(pooled!.ci![1]).toBeGreaterThan(4 / 8);
  });

  it('covers about 95% in simulated tournaments with a strong opener effect, narrower than the pooled interval', () => {
    // 120 scenarios, opened alternately; 5 negotiations each, dealing with chance around 0.85 where
    // the seller opened and 0.25 where the buyer did. With the strata's sizes fixed, the true rate is 0.55.
    const truth = 0.55;
    const trials = 400;
    let covered = 0;
    let coveredPooled = 0;
    let width = 0;
    let widthPooled = 0;
    for (let t = 0; t < trials; t++) {
      const rng = createRng(5000 + t);
      const units: [number, number, number][] = [];
      for (let i = 0; i < 120; i++) {
        const p = (i % 2 === 0 ? 0.85 : 0.25) + 0.2 * (rng.next() - 0.5);
        let hits = 0;
        for (let j = 0; j < 5; j++) if (rng.next() < p) hits++;
        units.push([hits, 5, i % 2]);
      }
      const { data, strata, n } = split(units);
      const [r] = pairedIntervals(data, 1, n, [true], createRng(t), 100, 0.95, strata);
      const [q] = pairedIntervals(data, 1, n, [true], createRng(t), 100);
      if (r!.ci![0] <= truth && truth <= r!.ci![1]) covered++;
      if (q!.ci![0] <= truth && truth <= q!.ci![1]) coveredPooled++;
      width += r!.ci![1] - r!.ci![0];
      widthPooled += q!.ci![1] - q!.ci![0];
    }
    expect(covered / trials).toBeGreaterThan(0.92);
    expect(covered / trials).toBeLessThan(0.975);
    // The pooled interval counts the split between openers as noise: it covers nearly always.
    expect(coveredPooled / trials).toBeGreaterThan(0.99);
    expect(width / widthPooled).toBeLessThan(0.7);
  });
});
