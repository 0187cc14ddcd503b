import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed, hashString } from '../../src/engine/rng';

const draws = (seed: number, n: number): number[] => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => rng.next());
};

describe('createRng', () => {
  it('gives the same stream for the same seed', () => {
    expect(draws(42, 100)).toEqual(draws(42, 100));
  });

  it('gives different streams for different seeds, including neighbouring ones', () => {
    const a = draws(1, 20);
    for (const seed of [0, 2, 3, 1000, 0xffffffff]) {
      const b = draws(seed, 20);
      expect(b).not.toEqual(a);
      // Not merely shifted or mostly equal: almost every position differs.
      expect(b.filter((x, i) => x === a[i]).length).toBeLessThanOrEqual(1);
    }
  });

  it('keeps next() in [0, 1)', () => {
    const xs = draws(7, 20_000);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    // Uses the lower range too, not only some sub-interval.
    expect(Math.min(...xs)).toBeLessThan(0.001);
    expect(Math.max(...xs)).toBeGreaterThan(0.999);
  });

  it('is roughly uniform: ten equal bins and the mean', () => {
    const n = 50_000;
    const bins = new Array(10).fill(0);
    let sum = 0;
    for (const x of draws(123, n)) {
      bins[Math.floor(x * 10)]++;
      sum += x;
    }
    const expected = n / 10;
    // Chi-square with 9 degrees of freedom: the 99.9th percentile is about 27.9.
    const chi2 = bins.reduce((acc, o) => acc + (o - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(27.9);
    for (const o of bins) expect(Math.abs(o - expected) / expected).toBeLessThan(0.05);
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.01);
  });

  it('has successive draws that are not correlated', () => {
    const xs = draws(99, 20_000);
    let cov = 0;
    for (let i = 1; i < xs.length; i++) cov += ((xs[i - 1] as number) - 0.5) * ((xs[i] as number) - 0.5);
    // Var of U(0,1) is 1/12; the lag-1 correlation of an honest stream is about 0 ± 0.02.
    expect(Math.abs(cov / (xs.length - 1) / (1 / 12))).toBeLessThan(0.03);
  });

  it('uniform(lo, hi) stays in [lo, hi) and covers the range', () => {
    const rng = createRng(5);
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < 5000; i++) {
      const x = rng.uniform(-3, 7);
      expect(x).toBeGreaterThanOrEqual(-3);
      expect(x).toBeLessThan(7);
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
    expect(min).toBeLessThan(-2.9);
    expect(max).toBeGreaterThan(6.9);
  });

  it('int(n) gives every integer in [0, n) and nothing else', () => {
    const rng = createRng(11);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const k = rng.int(6);
      expect(Number.isInteger(k)).toBe(true);
      expect(k).toBeGreaterThanOrEqual(0);
      expect(k).toBeLessThan(6);
      seen.add(k);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('pick returns members of the list, all of them eventually, and refuses an empty list', () => {
    const rng = createRng(3);
    const items = ['a', 'b', 'c', 'd'] as const;
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const x = rng.pick(items);
      expect(items).toContain(x);
      seen.add(x);
    }
    expect(seen.size).toBe(items.length);
    expect(() => rng.pick([])).toThrow();
  });

  it('the helpers draw from the same stream as next()', () => {
    const a = createRng(8);
    const b = createRng(8);
    expect(a.uniform(10, 20)).toBe(10 + 10 * b.next());
    expect(a.int(1000)).toBe(Math.floor(b.next() * 1000));
  });
});

describe('deriveSeed and hashString', () => {
  it('are deterministic', () => {
    expect(deriveSeed(1, 'scenario', 'standard', 3)).toBe(deriveSeed(1, 'scenario', 'standard', 3));
    expect(hashString('parley')).toBe(hashString('parley'));
  });

  it('give 32-bit unsigned integers', () => {
    for (const text of ['', 'a', 'parley', 'x'.repeat(1000)]) {
      const h = hashString(text);
      expect(Number.isInteger(h)).toBe(true);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(h).toBeLessThan(2 ** 32);
    }
  });

  it('is sensitive to every label, to their order and to the base seed', () => {
    const base = deriveSeed(1, 'scenario', 'standard', 0);
    expect(deriveSeed(1, 'scenario', 'standard', 1)).not.toBe(base);
    expect(deriveSeed(1, 'scenario', 'uniform', 0)).not.toBe(base);
    expect(deriveSeed(1, 'bootstrap', 'standard', 0)).not.toBe(base);
    expect(deriveSeed(2, 'scenario', 'standard', 0)).not.toBe(base);
    expect(deriveSeed(1, 'standard', 'scenario', 0)).not.toBe(base);
    expect(deriveSeed(1, 'scenario', 'standard')).not.toBe(base);
  });

  it('spreads many labels over distinct seeds and distinct streams', () => {
    const seeds = new Set<number>();
    for (let i = 0; i < 5000; i++) seeds.add(deriveSeed(9, 'job', i));
    expect(seeds.size).toBe(5000);
    const firsts = new Set([...seeds].slice(0, 200).map((s) => createRng(s).next()));
    expect(firsts.size).toBe(200);
  });
});
