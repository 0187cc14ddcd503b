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

/** A ratio-of-sums statistic's value, Σa/Σb: null where no unit has a denominator (Σb is 0). */
export const ratioOfSums = (a: number, b: number): number | null => (b > 0 ? a / b : null);

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
 * `strata` splits the units into consecutive blocks of those sizes (summing to n); each resample
 * draws every block's own size from that block alone, so the blocks' sizes stay as they were.
 */
export function bootstrapInterleaved(
  data: Float64Array,
  k: number,
  n: number,
  rng: Rng,
  samples: number,
  level = 0.95,
  strata: readonly number[] = [n],
): { value: number | null; ci: Interval | null }[] {
  const width = 2 * k;
  const totals = new Float64Array(width);
  for (let i = 0, base = 0; i < n; i++, base += width) for (let w = 0; w < width; w++) totals[w] = (totals[w] as number) + (data[base + w] as number);
  const point = Array.from({ length: k }, (_, s) => ratioOfSums(totals[2 * s] as number, totals[2 * s + 1] as number));
  if (n === 0 || samples <= 0) return point.map((value) => ({ value, ci: null }));
  const draws = point.map(() => new Float64Array(samples));
  const filled = new Int32Array(k);
  const sums = new Float64Array(width);
  const counts = new Int32Array(n);
  // n × samples draws: an inlined xorshift32 stream seeded from rng, counting how often each unit is drawn.
  let x = Math.floor(rng.next() * 4294967295) | 1;
  for (let b = 0; b < samples; b++) {
    counts.fill(0);
    for (let h = 0, start = 0; h < strata.length; h++) {
      const size = strata[h] as number;
      const scale = size / 4294967296;
      for (let i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const j = start + (((x >>> 0) * scale) | 0);
        counts[j] = (counts[j] as number) + 1;
      }
      start += size;
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

/** Below this many units with a denominator, a statistic's interval comes from the bootstrap. */
export const ANALYTIC_MIN_UNITS = 30;

const Z95 = 1.959963984540054;

/** The normal quantile for a two-sided `level` (0.95 → 1.96), by bisection on erf's series. */
function zFor(level: number): number {
  if (level === 0.95) return Z95;
  const cdf = (x: number) => {
    // Abramowitz–Stegun 7.1.26, enough for a quantile to 1e-6
    const t = 1 / (1 + 0.3275911 * Math.abs(x / Math.SQRT2));
    const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
    return x >= 0 ? (1 + y) / 2 : (1 - y) / 2;
  };
  let lo = 0;
  let hi = 10;
  const target = 1 - (1 - level) / 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Slots per stratum of one statistic: Σa, Σb (every unit), Σa², Σb², Σab and the count m (units with b > 0). */
const STRATUM_SLOTS = 6;

/**
 * What one ratio-of-sums statistic needs from its units (scenarios), gathered one unit at a time in
 * constant memory: the sums Σa, Σb, Σa², Σb², Σab over the m units with b > 0, in total and per
 * stratum (a unit's stratum is fixed by the design, e.g. which role opened its scenario), and
 * those units themselves only while there are fewer than ANALYTIC_MIN_UNITS of them (for the
 * bootstrap).
 */
export class RatioMoments {
  a = 0;
  b = 0;
  aa = 0;
  bb = 0;
  ab = 0;
  m = 0;
  /** Per stratum h, at STRATUM_SLOTS·h: [Σa, Σb, Σa², Σb², Σab, m], as the totals above. */
  readonly byStratum: Float64Array;
  /** [a₀, b₀, a₁, b₁, …] while m < ANALYTIC_MIN_UNITS; dropped after. */
  few: number[] | null = [];
  /** The stratum of each unit in `few`. */
  fewStrata: number[] | null = [];

  constructor(readonly strata = 1) {
    this.byStratum = new Float64Array(STRATUM_SLOTS * strata);
  }

  add(a: number, b: number, stratum = 0): void {
    this.a += a;
    this.b += b;
    const h = STRATUM_SLOTS * stratum;
    const by = this.byStratum;
    by[h] = (by[h] as number) + a;
    by[h + 1] = (by[h + 1] as number) + b;
    if (b <= 0) return;
    this.aa += a * a;
    this.bb += b * b;
    this.ab += a * b;
    this.m++;
    by[h + 2] = (by[h + 2] as number) + a * a;
    by[h + 3] = (by[h + 3] as number) + b * b;
    by[h + 4] = (by[h + 4] as number) + a * b;
    by[h + 5] = (by[h + 5] as number) + 1;
    if (this.few !== null) {
      if (this.m < ANALYTIC_MIN_UNITS) {
        this.few.push(a, b);
        (this.fewStrata as number[]).push(stratum);
      } else {
        this.few = null;
        this.fewStrata = null;
      }
    }
  }
}

/**
 * `count` RatioMoments side by side in typed arrays, for a hot path that adds one unit to all of
 * them at once (the aggregator adds each scenario's sums to every rate of a cell). The same sums,
 * in the same order, as `count` RatioMoments would hold; `at(k)` gives the k-th as one.
 */
export class RatioMomentsBlock {
  /** [Σa, Σb, Σa², Σb², Σab, m] per stratum and statistic, stratum-major. */
  private readonly sums: Float64Array;
  /** [Σa, Σb] per statistic over every stratum, summed in arrival order (so the point values are too). */
  private readonly totals: Float64Array;
  /** Per statistic, its units with b > 0 over every stratum. */
  private readonly units: Int32Array;
  /** Per statistic, its first units' [a, b, stratum] while there are fewer than ANALYTIC_MIN_UNITS. */
  private readonly few: Float64Array;

  constructor(
    readonly count: number,
    readonly strata = 1,
    from?: RatioMomentsBlock,
  ) {
    this.sums = from ? from.sums.slice() : new Float64Array(STRATUM_SLOTS * strata * count);
    this.totals = from ? from.totals.slice() : new Float64Array(2 * count);
    this.units = from ? from.units.slice() : new Int32Array(count);
    this.few = from ? from.few.slice() : new Float64Array(3 * ANALYTIC_MIN_UNITS * count);
  }

  /** Adds one unit of `stratum` to every statistic: `pairs` is [a₀, b₀, a₁, b₁, …], one pair per statistic. */
  add(pairs: Float64Array, stratum = 0): void {
    const { sums, totals, units, few } = this;
    const base = STRATUM_SLOTS * this.count * stratum;
    for (let s = 0; s < this.count; s++) {
      const a = pairs[2 * s] as number;
      const b = pairs[2 * s + 1] as number;
      totals[2 * s] = (totals[2 * s] as number) + a;
      totals[2 * s + 1] = (totals[2 * s + 1] as number) + b;
      const o = base + STRATUM_SLOTS * s;
      sums[o] = (sums[o] as number) + a;
      sums[o + 1] = (sums[o + 1] as number) + b;
      if (b <= 0) continue;
      sums[o + 2] = (sums[o + 2] as number) + a * a;
      sums[o + 3] = (sums[o + 3] as number) + b * b;
      sums[o + 4] = (sums[o + 4] as number) + a * b;
      sums[o + 5] = (sums[o + 5] as number) + 1;
      const m = (units[s] as number) + 1;
      units[s] = m;
      if (m < ANALYTIC_MIN_UNITS) {
        const f = 3 * (ANALYTIC_MIN_UNITS * s + m - 1);
        few[f] = a;
        few[f + 1] = b;
        few[f + 2] = stratum;
      }
    }
  }

  at(s: number): RatioMoments {
    const r = new RatioMoments(this.strata);
    for (let h = 0; h < this.strata; h++) {
      const o = STRATUM_SLOTS * (this.count * h + s);
      for (let w = 0; w < STRATUM_SLOTS; w++) r.byStratum[STRATUM_SLOTS * h + w] = this.sums[o + w] as number;
      // A stratum without units adds zeros, so one stratum's totals are its sums bit for bit.
      r.aa += this.sums[o + 2] as number;
      r.bb += this.sums[o + 3] as number;
      r.ab += this.sums[o + 4] as number;
    }
    r.a = this.totals[2 * s] as number;
    r.b = this.totals[2 * s + 1] as number;
    r.m = this.units[s] as number;
    if (r.m < ANALYTIC_MIN_UNITS) {
      const start = 3 * ANALYTIC_MIN_UNITS * s;
      const few: number[] = [];
      const fewStrata: number[] = [];
      for (let i = 0; i < r.m; i++) {
        few.push(this.few[start + 3 * i] as number, this.few[start + 3 * i + 1] as number);
        fewStrata.push(this.few[start + 3 * i + 2] as number);
      }
      r.few = few;
      r.fewStrata = fewStrata;
    } else {
      r.few = null;
      r.fewStrata = null;
    }
    return r;
  }
}

export type IntervalSource = 'analytic' | 'bootstrap';

/**
 * Σ over strata of m_h/(m_h − 1) · Σ_{i∈h}(dᵢ − d̄_h)², dᵢ = aᵢ − R·bᵢ (the estimate of
 * Var(ΣA − R·ΣB) when the strata's sizes are fixed), and the unscaled sum beside it; `null` where
 * fewer than two strata have units, or one has a single unit (its spread is unknown): the pooled
 * variance is then the one to use.
 */
function stratifiedSpread(mom: RatioMoments, r: number): { within: number; scaled: number } | null {
  const by = mom.byStratum;
  let filled = 0;
  for (let h = 0; h < mom.strata; h++) {
    const m = by[STRATUM_SLOTS * h + 5] as number;
    if (m === 1) return null;
    if (m > 1) filled++;
  }
  if (filled < 2) return null;
  let within = 0;
  let scaled = 0;
  for (let h = 0; h < mom.strata; h++) {
    const o = STRATUM_SLOTS * h;
    const m = by[o + 5] as number;
    if (m === 0) continue;
    const d = (by[o] as number) - r * (by[o + 1] as number);
    const ss = Math.max(0, (by[o + 2] as number) - 2 * r * (by[o + 4] as number) + r * r * (by[o + 3] as number) - (d * d) / m);
    within += ss;
    scaled += (m / (m - 1)) * ss;
  }
  return { within, scaled };
}

/** The `few` units grouped by stratum (in arrival order within each), with each group's size. */
function fewByStratum(mom: RatioMoments): { data: Float64Array; sizes: number[] } {
  const few = mom.few as number[];
  const strata = mom.fewStrata as number[];
  const data = new Float64Array(few.length);
  const sizes: number[] = [];
  let at = 0;
  for (let h = 0; h < mom.strata; h++) {
    let size = 0;
    for (let i = 0; i < strata.length; i++)
      if (strata[i] === h) {
        data[at++] = few[2 * i] as number;
        data[at++] = few[2 * i + 1] as number;
        size++;
      }
    if (size > 0) sizes.push(size);
  }
  return { data, sizes };
}

/**
 * The ratio R = Σa/Σb over clustered units (here: the scenarios of a paired tournament) with an
 * interval that resamples nothing and so costs microseconds:
 * - R has the linearised (delta-method, cluster-robust) variance
 *   v = m/(m − 1) · Σ(aᵢ − R·bᵢ)² / (Σb)² over the m units with bᵢ > 0;
 * - where the units fall in strata of fixed sizes (the scenarios each role opened, where the plan
 *   alternates the opener), v = Σ_h m_h/(m_h − 1) · Σ_{i∈h}(dᵢ − d̄_h)² / (Σb)², dᵢ = aᵢ − R·bᵢ:
 *   the spread between strata is part of the design, not of the sampling; with one stratum this is
 *   the line above, exactly;
 * - a `bounded` statistic (a proportion, or a mean of values in [0, 1]) gets the Wilson score
 *   interval at the effective sample size R(1 − R)/v, which stays inside [0, 1] and holds near 0
 *   and 1; the others get R ± z·√v;
 * - where every unit gives the same ratio (within each stratum), v = 0 and the interval has zero width;
 * - with fewer than ANALYTIC_MIN_UNITS units, where the normal approximation is weak, the interval
 *   is the percentile bootstrap (`samples` resamples of those units, each stratum resampled within
 *   itself at its own size).
 */
export function ratioInterval(
  mom: RatioMoments,
  bounded: boolean,
  rng: Rng,
  samples: number,
  level = 0.95,
): { value: number | null; ci: Interval | null; method: IntervalSource | null } {
  if (mom.b <= 0) return { value: null, ci: null, method: null };
  const r = mom.a / mom.b;
  if (mom.m < ANALYTIC_MIN_UNITS) {
    if (samples <= 0) return { value: r, ci: null, method: 'bootstrap' };
    const { data, sizes } = fewByStratum(mom);
    const ci = (bootstrapInterleaved(data, 1, data.length / 2, rng, samples, level, sizes)[0] as { ci: Interval | null }).ci;
    return { value: r, ci, method: 'bootstrap' };
  }
  const z = zFor(level);
  // Cancellation in the sums leaves crumbs where every unit (of a stratum) has the same ratio.
  const tiny = 1e-12 * Math.max(mom.aa, r * r * mom.bb);
  const strata = stratifiedSpread(mom, r);
  let v: number;
  if (strata === null) {
    const ss = mom.aa - 2 * r * mom.ab + r * r * mom.bb;
    if (!(ss > tiny)) return { value: r, ci: [r, r], method: 'analytic' };
    v = ((mom.m / (mom.m - 1)) * ss) / (mom.b * mom.b);
  } else {
    if (!(strata.within > tiny)) return { value: r, ci: [r, r], method: 'analytic' };
    v = strata.scaled / (mom.b * mom.b);
  }
  if (bounded && r > 0 && r < 1) {
    const eff = (r * (1 - r)) / v;
    const z2 = (z * z) / eff;
    const centre = (r + z2 / 2) / (1 + z2);
    const half = (z / (1 + z2)) * Math.sqrt((r * (1 - r)) / eff + (z * z) / (4 * eff * eff));
    return { value: r, ci: [Math.max(0, centre - half), Math.min(1, centre + half)], method: 'analytic' };
  }
  const half = z * Math.sqrt(v);
  return { value: r, ci: [r - half, r + half], method: 'analytic' };
}

/**
 * `ratioInterval` for each of k statistics over n units stored interleaved as in
 * `bootstrapInterleaved`; `strata`, where given, is unit i's stratum (0, 1, …).
 */
export function pairedIntervals(
  data: Float64Array,
  k: number,
  n: number,
  bounded: readonly boolean[],
  rng: Rng,
  samples: number,
  level = 0.95,
  strata?: ArrayLike<number>,
): { value: number | null; ci: Interval | null; method: IntervalSource | null }[] {
  let count = 1;
  if (strata) for (let i = 0; i < n; i++) count = Math.max(count, (strata[i] as number) + 1);
  return Array.from({ length: k }, (_, s) => {
    const mom = new RatioMoments(count);
    for (let i = 0, base = 2 * s; i < n; i++, base += 2 * k) mom.add(data[base] as number, data[base + 1] as number, strata ? (strata[i] as number) : 0);
    return ratioInterval(mom, bounded[s] as boolean, rng, samples, level);
  });
}
