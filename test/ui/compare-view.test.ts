import { describe, expect, test } from 'vitest';
import { RATE_NAMES, type LeaderboardRow, type RateName } from '../../src/games/bilateral/aggregate';
import { compareLeaderboards, compareRate } from '../../src/ui/compare';
import { differs, shownSeats } from '../../src/ui/compare-view';

/** A row with every rate `value` and interval `[value − half, value + half]`, then `changes`. */
function row(agent: string, role: 'buyer' | 'seller', value: number, half = 0.05, changes: Partial<LeaderboardRow> = {}): LeaderboardRow {
  const rates = Object.fromEntries(RATE_NAMES.map((r) => [r, value])) as Record<RateName, number>;
  const ci = Object.fromEntries(RATE_NAMES.map((r) => [r, [value - half, value + half]])) as LeaderboardRow['ci'];
  return { agent, role, n: 10, errors: 0, ...rates, ci, ...changes };
}

describe('which rows differ', () => {
  const a = row('x', 'buyer', 0.5);
  test('values: a difference the page prints (0.1 point or more), or a rate known in one run only', () => {
    expect(differs(compareRate(a, row('x', 'buyer', 0.5), 'dealRate'), 'values')).toBe(false);
    // 0.04 points prints as 0.0 pp: no difference.
    expect(differs(compareRate(a, row('x', 'buyer', 0.5004), 'dealRate'), 'values')).toBe(false);
    expect(differs(compareRate(a, row('x', 'buyer', 0.501), 'dealRate'), 'values')).toBe(true);
    expect(differs(compareRate(a, row('x', 'buyer', 0.5, 0.05, { oracleShare: null }), 'oracleShare'), 'values')).toBe(true);
    expect(
      differs(compareRate(row('x', 'buyer', 0.5, 0.05, { oracleShare: null }), row('x', 'buyer', 0.5, 0.05, { oracleShare: null }), 'oracleShare'), 'values'),
    ).toBe(false);
  });

  test('intervals: only where the two 95% intervals are apart', () => {
    expect(differs(compareRate(a, row('x', 'buyer', 0.58), 'dealRate'), 'intervals')).toBe(false);
    expect(differs(compareRate(a, row('x', 'buyer', 0.62), 'dealRate'), 'intervals')).toBe(true);
    expect(differs(compareRate(a, row('x', 'buyer', 0.62), 'dealRate'), 'all')).toBe(true);
  });

  test('seats keep only their differing rows among the rates asked for; a seat with none is left out', () => {
    const moved = row('boulware', 'buyer', 0.5, 0.05, { dealRate: 0.9, patience: 0.52 });
    moved.ci = { ...moved.ci, dealRate: [0.85, 0.95], patience: [0.47, 0.57] };
    const seats = compareLeaderboards(
      [row('boulware', 'buyer', 0.5), row('boulware', 'seller', 0.5), row('linear', 'buyer', 0.5)],
      [moved, row('boulware', 'seller', 0.5), row('linear', 'buyer', 0.5)],
    );
    const shown = (view: Parameters<typeof shownSeats>[1], rates: readonly RateName[] = RATE_NAMES) =>
      shownSeats(seats, view, rates).map(({ seat, rows }) => [`${seat.agent}|${seat.role}`, rows.map((r) => r.rate)]);
    expect(shown('values')).toEqual([['boulware|buyer', ['dealRate', 'patience']]]);
    expect(shown('intervals')).toEqual([['boulware|buyer', ['dealRate']]]);
    expect(shown('values', ['surplusShare'])).toEqual([]);
    expect(shown('all', ['surplusShare'])).toHaveLength(3);
  });
});
