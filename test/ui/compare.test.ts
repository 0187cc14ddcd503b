import { describe, expect, test } from 'vitest';
import { RATE_NAMES, type LeaderboardRow, type RateName } from '../../src/games/bilateral/aggregate';
import { compareLeaderboards, compareRate, overlaps, type StoredLeaderboardRow } from '../../src/ui/compare';

/** A row with every rate `value` and interval `[value − half, value + half]`, then `changes`. */
function row(agent: string, role: 'buyer' | 'seller', value: number, half = 0.05, changes: Partial<LeaderboardRow> = {}): LeaderboardRow {
  const rates = Object.fromEntries(RATE_NAMES.map((r) => [r, value])) as Record<RateName, number>;
  const ci = Object.fromEntries(RATE_NAMES.map((r) => [r, [value - half, value + half]])) as LeaderboardRow['ci'];
  return { agent, role, n: 10, errors: 0, ...rates, ci, ...changes };
}

describe('overlaps', () => {
  test('closed intervals: touching counts as overlapping', () => {
    expect(overlaps([0, 1], [1, 2])).toBe(true);
    expect(overlaps([0, 1], [0.2, 0.3])).toBe(true);
    expect(overlaps([0, 1], [1.01, 2])).toBe(false);
    expect(overlaps([3, 4], [1, 2])).toBe(false);
  });
});

describe('compareRate', () => {
  test('difference B − A, and overlap of the intervals', () => {
    const a = row('boulware', 'buyer', 0.5);
    expect(compareRate(a, row('boulware', 'buyer', 0.55), 'dealRate')).toEqual({
      rate: 'dealRate',
      a: 0.5,
      b: 0.55,
      diff: expect.closeTo(0.05, 12),
      ciA: [expect.closeTo(0.45, 12), expect.closeTo(0.55, 12)],
      ciB: [expect.closeTo(0.5, 12), expect.closeTo(0.6, 12)],
      overlap: 'overlap',
    });
    expect(compareRate(a, row('boulware', 'buyer', 0.3), 'surplusShare')).toMatchObject({ diff: expect.closeTo(-0.2, 12), overlap: 'differ' });
  });

  test('a missing value, a null rate or a missing interval gives no difference or no marker', () => {
    const a = row('x', 'buyer', 0.5);
    expect(compareRate(a, undefined, 'dealRate')).toMatchObject({ rate: 'dealRate', a: 0.5, b: null, diff: null, ciB: null, overlap: null });
    expect(compareRate(a, row('x', 'buyer', 0.5, 0.05, { noDealRateNoGft: null }), 'noDealRateNoGft')).toMatchObject({ b: null, diff: null, overlap: null });
    const noIntervals = row('x', 'buyer', 0.9, 0.05, { ci: { ...a.ci, dealRate: null } });
    expect(compareRate(a, noIntervals, 'dealRate')).toMatchObject({ diff: expect.closeTo(0.4, 12), ciB: null, overlap: null });
  });

  test('a row stored before the newer rates existed reads them as missing', () => {
    // An old row: no errors, no behaviour measures, the retired walkAwayRateNoGft, intervals for the old rates only.
    const old = { agent: 'x', role: 'seller', n: 8, dealRate: 0.75, walkAwayRateNoGft: 1, ci: { dealRate: [0.5, 1] } } as unknown as StoredLeaderboardRow;
    const now = row('x', 'seller', 0.6);
    expect(compareRate(old, now, 'dealRate')).toMatchObject({ a: 0.75, b: 0.6, overlap: 'overlap' });
    for (const rate of ['noDealRateNoGft', 'errorRate', 'opening', 'patience'] as const)
      expect(compareRate(old, now, rate)).toMatchObject({ a: null, b: 0.6, diff: null, overlap: null });
  });
});

describe('compareLeaderboards', () => {
  test('pairs rows by agent and role; agents in either run appear once per role played', () => {
    const a = [row('boulware', 'buyer', 0.4), row('boulware', 'seller', 0.6), row('linear', 'buyer', 0.5), row('linear', 'seller', 0.5)];
    const b = [row('linear', 'seller', 0.2), row('conceder', 'buyer', 0.3), row('linear', 'buyer', 0.5), row('boulware', 'buyer', 0.45)];
    const seats = compareLeaderboards(a, b);
    expect(seats.map((s) => [s.agent, s.role, s.nA, s.nB])).toEqual([
      ['boulware', 'buyer', 10, 10],
      ['boulware', 'seller', 10, null],
      ['linear', 'buyer', 10, 10],
      ['linear', 'seller', 10, 10],
      ['conceder', 'buyer', null, 10],
    ]);
    const linearSeller = seats[3]!.rates.find((r) => r.rate === 'expectedSurplusShare')!;
    expect(linearSeller).toMatchObject({ a: 0.5, b: 0.2, overlap: 'differ' });
    expect(linearSeller.diff).toBeCloseTo(-0.3, 12);
    expect(seats[1]!.rates.every((r) => r.b === null && r.diff === null && r.overlap === null)).toBe(true);
    expect(seats[0]!.rates.map((r) => r.rate)).toEqual([...RATE_NAMES]);
  });

  test('a run without standings contributes nothing', () => {
    expect(compareLeaderboards(null, undefined)).toEqual([]);
    expect(compareLeaderboards(null, [row('x', 'buyer', 0.5)])[0]).toMatchObject({ agent: 'x', nA: null, nB: 10 });
  });
});
