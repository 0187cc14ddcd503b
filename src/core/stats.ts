import type { Rng } from './rng';

export type Interval = [low: number, high: number];

/** Value at quantile q of an ascending list (linear interpolation between order statistics). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

/**
 * Several ratio-of-sums statistics over the same units, with percentile bootstrap intervals.
 * Unit i contributes num[k][i] / den[k][i] to statistic k; a unit with den 0 does not count
 * towards statistic k. One resampling of units serves every statistic, so they stay paired.
 */
export function bootstrapRatios(
  num: readonly Float64Array[],
  den: readonly Float64Array[],
  n: number,
  rng: Rng,
  samples: number,
  level = 0.95,
): { value: number | null; ci: Interval | null }[] {
  const k = num.length;
  const width = 2 * k;
  const data = new Float64Array(n * width);
  for (let i = 0; i < n; i++)
    for (let s = 0; s < k; s++) {
      data[i * width + 2 * s] = (num[s] as Float64Array)[i] as number;
      data[i * width + 2 * s + 1] = (den[s] as Float64Array)[i] as number;
    }
  return bootstrapInterleaved(data, k, n, rng, samples, level);
}

/**
 * `bootstrapRatios` over units stored interleaved: unit i's numerator and denominator of statistic
 * s at `data[i·2k + 2s]` and `data[i·2k + 2s + 1]` (one resampled unit is one contiguous read).
 */
export function bootstrapInterleaved(
  data: Float64Array,
  k: number,
  n: number,
  rng: Rng,
  samples: number,
  level = 0.95,
): { value: number | null; ci: Interval | null }[] {
  const width = 2 * k;
  const totals = new Float64Array(width);
  for (let i = 0, base = 0; i < n; i++, base += width)
    for (let w = 0; w < width; w++) totals[w] = (totals[w] as number) + (data[base + w] as number);
  const point = Array.from({ length: k }, (_, s) => {
    const b = totals[2 * s + 1] as number;
    return b > 0 ? (totals[2 * s] as number) / b : null;
  });
  if (n === 0 || samples <= 0) return point.map((value) => ({ value, ci: null }));
  const draws = point.map(() => new Float64Array(samples));
  const filled = new Int32Array(k);
  const sums = new Float64Array(width);
  const counts = new Int32Array(n);
  const scale = n / 4294967296;
  // n × samples draws: an inlined xorshift32 stream seeded from rng, counting how often each unit is drawn.
  let x = Math.floor(rng.next() * 4294967295) | 1;
  for (let b = 0; b < samples; b++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      const j = ((x >>> 0) * scale) | 0;
      counts[j] = (counts[j] as number) + 1;
    }
    sums.fill(0);
    for (let i = 0, base = 0; i < n; i++, base += width) {
      const c = counts[i] as number;
      if (c === 0) continue;
      for (let w = 0; w < width; w++) sums[w] = (sums[w] as number) + c * (data[base + w] as number);
    }
    for (let s = 0; s < k; s++) {
      const d = sums[2 * s + 1] as number;
      if (d > 0) {
        (draws[s] as Float64Array)[filled[s] as number] = (sums[2 * s] as number) / d;
        filled[s] = (filled[s] as number) + 1;
      }
    }
  }
  const alpha = (1 - level) / 2;
  return point.map((value, s) => {
    if (value === null || (filled[s] as number) === 0) return { value, ci: null };
    const sorted = (draws[s] as Float64Array).subarray(0, filled[s]).sort();
    return { value, ci: [quantile(sorted, alpha), quantile(sorted, 1 - alpha)] as Interval };
  });
}
