/**
 * Which rows of a run comparison to show: every rate, only the rates whose values differ (as the
 * page prints them, to 0.1 point), or only those whose 95% intervals do not overlap.
 */
import type { RateName } from '../games/bilateral/aggregate';
import { assertNever } from '../engine/result';
import type { ComparedSeat, RateComparison } from './compare';

export const COMPARE_VIEWS = ['all', 'values', 'intervals'] as const;
export type CompareView = (typeof COMPARE_VIEWS)[number];

export const COMPARE_VIEW_LABELS: Record<CompareView, string> = {
  all: 'Every rate',
  values: 'Differences only (the values differ)',
  intervals: 'Clear differences only (the intervals do not overlap)',
};

/** Half the last digit the page prints (0.1 point): a difference below it reads 0.0 pp, no difference. */
const PRINTED = 0.0005;

/** Whether a row differs in the sense of `view`: a rate known in one run only differs in value. */
export function differs(row: RateComparison, view: CompareView): boolean {
  switch (view) {
    case 'all':
      return true;
    case 'values':
      return row.diff === null ? (row.a === null) !== (row.b === null) : Math.abs(row.diff) >= PRINTED;
    case 'intervals':
      return row.overlap === 'differ';
    default:
      return assertNever(view);
  }
}

export interface ShownSeat {
  seat: ComparedSeat;
  rows: RateComparison[];
}

/** The seats with the rows to show (of `rates`, in `view`); a seat with none is left out. */
export function shownSeats(seats: readonly ComparedSeat[], view: CompareView, rates: readonly RateName[]): ShownSeat[] {
  return seats.flatMap((seat) => {
    const rows = seat.rates.filter((r) => rates.includes(r.rate) && differs(r, view));
    return rows.length ? [{ seat, rows }] : [];
  });
}
