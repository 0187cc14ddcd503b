/**
 * Two runs' leaderboards side by side: per agent and role, each rate in run A and run B, the
 * difference B − A, and whether the two 95% intervals overlap.
 */
import { RATE_NAMES, type LeaderboardRow, type RateName } from '../games/bilateral/aggregate';
import { RATE_INFO } from './rates';
import type { Interval } from '../engine/stats';
import { ROLES, type Role } from '../games/bilateral/scenario';

/** `differ`: the intervals are disjoint; `null`: one side has no value or no interval. */
export type Overlap = 'overlap' | 'differ';

export interface RateComparison {
  rate: RateName;
  a: number | null;
  b: number | null;
  /** B − A, where both are known. */
  diff: number | null;
  /** The 95% intervals, where stored. */
  ciA: Interval | null;
  ciB: Interval | null;
  overlap: Overlap | null;
}

export interface ComparedSeat {
  agent: string;
  role: Role;
  /** Negotiations in this seat; `null` where the agent did not play it in that run. */
  nA: number | null;
  nB: number | null;
  rates: RateComparison[];
}

/**
 * A stored row: runs stored before some rates existed lack them (or their intervals), so every
 * field past the agent and role is read as possibly missing.
 */
export type StoredLeaderboardRow = Pick<LeaderboardRow, 'agent' | 'role'> & Partial<Omit<LeaderboardRow, 'agent' | 'role'>>;

const finite = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

function valueOf(row: StoredLeaderboardRow | undefined, rate: RateName): number | null {
  return row ? finite(row[rate]) : null;
}

function intervalOf(row: StoredLeaderboardRow | undefined, rate: RateName): Interval | null {
  const ci: unknown = row?.ci?.[rate];
  if (!Array.isArray(ci) || ci.length !== 2) return null;
  const low = finite(ci[0]);
  const high = finite(ci[1]);
  return low === null || high === null ? null : [low, high];
}

/** Closed intervals overlap when neither lies wholly above the other. */
export const overlaps = ([aLow, aHigh]: Interval, [bLow, bHigh]: Interval): boolean => aLow <= bHigh && bLow <= aHigh;

export function compareRate(a: StoredLeaderboardRow | undefined, b: StoredLeaderboardRow | undefined, rate: RateName): RateComparison {
  const va = valueOf(a, rate);
  const vb = valueOf(b, rate);
  const ia = intervalOf(a, rate);
  const ib = intervalOf(b, rate);
  const known = va !== null && vb !== null;
  return {
    rate,
    a: va,
    b: vb,
    diff: known ? vb - va : null,
    ciA: va === null ? null : ia,
    ciB: vb === null ? null : ib,
    overlap: known && ia && ib ? (overlaps(ia, ib) ? 'overlap' : 'differ') : null,
  };
}

/** Every agent and role present in either run: agents in order of first appearance (A, then B), buyer before seller. */
export function compareLeaderboards(
  a: readonly StoredLeaderboardRow[] | null | undefined,
  b: readonly StoredLeaderboardRow[] | null | undefined,
): ComparedSeat[] {
  const key = (agent: string, role: Role) => `${role}\u0000${agent}`;
  const index = (rows: readonly StoredLeaderboardRow[]) => new Map(rows.map((r) => [key(r.agent, r.role), r]));
  const rowsA = index(a ?? []);
  const rowsB = index(b ?? []);
  const agents = [...new Set([...(a ?? []), ...(b ?? [])].map((r) => r.agent))];
  const out: ComparedSeat[] = [];
  for (const agent of agents) {
    for (const role of ROLES) {
      const ra = rowsA.get(key(agent, role));
      const rb = rowsB.get(key(agent, role));
      if (!ra && !rb) continue;
      out.push({
        agent,
        role,
        nA: ra ? finite(ra.n) : null,
        nB: rb ? finite(rb.n) : null,
        rates: RATE_NAMES.map((rate) => compareRate(ra, rb, rate)),
      });
    }
  }
  return out;
}

/** Each rate's label, from the one table of rate words. */
export const RATE_LABELS: Record<RateName, string> = Object.fromEntries(Object.entries(RATE_INFO).map(([key, info]) => [key, info.label])) as Record<
  RateName,
  string
>;
