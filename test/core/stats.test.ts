import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import { bootstrapRatios, quantile } from '../../src/core/stats';

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
