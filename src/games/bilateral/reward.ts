/**
 * A verifiable reward for one seat of a finished bilateral negotiation: a fold over the event log,
 * like the metrics, for trainers (GRPO and the like) and the environment server. Every term is
 * computed from the log and the scenario alone, so any trajectory can be scored again later.
 *
 *   total = compliance + consistency + surplus + irPenalty + walkAwayCredit
 *
 * - `compliance` = −invalidMove × (the seat's invalid answers). Each refused answer costs; a
 *   forfeit costs nothing more than the three refused answers that led to it.
 * - `consistency` = −inconsistency × (retreats + crossings). A retreat is an own offer that moves
 *   away from the other side: a buyer's offer below its previous one, a seller's above it. A
 *   crossing is an own offer worse for the seat than the other side's offer on the table (a buyer
 *   bidding above the seller's standing ask, a seller asking below the buyer's standing bid): the
 *   seat turned down a better price than the one it then named. Parley keeps one offer on the table
 *   at a time, so this is how "accepting worse than one's own standing offer" shows in its log: the
 *   seat's own price and the price it could take meet at the moment it names its own.
 * - `surplus` = surplus × the seat's share of v − c on a deal with gains from trade, in [0, 1] as
 *   `surplusShare` (metrics.ts) defines it (a loss is priced by the IR penalty; a deal beyond the
 *   zone, when the other side took a loss, earns no more than the whole surplus). 0 without a deal,
 *   or on a deal without gains from trade.
 * - `irPenalty` = −irViolation when the deal left the seat with a loss (negative utility).
 * - `walkAwayCredit` = +walkAwayNoGft when there were no gains from trade (v ≤ c) and the seat
 *   itself walked away: so "accept at a loss" (−1 by default) and "walk away rationally" (+0.5) no
 *   longer score the same, and both differ from letting the clock run out (0).
 *
 * A negotiation that ended in an error or was cancelled scores its compliance and consistency
 * terms only (no deal, no walk-away).
 */
import { z } from 'zod';
import { hasGainsFromTrade, opponentOf, type Role, type Scenario } from './scenario';
import { roundCents } from '../../engine/money';
import type { BilateralEvent } from './events';
import { surplusShare } from './metrics';

export const RewardWeightsSchema = z.object({
  /** Cost of each invalid answer. */
  invalidMove: z.number().finite().min(0).max(100),
  /** Cost of each retreat or crossing. */
  inconsistency: z.number().finite().min(0).max(100),
  /** Weight of the surplus share (0–1). */
  surplus: z.number().finite().min(0).max(100),
  /** Cost of a deal at a loss. */
  irViolation: z.number().finite().min(0).max(100),
  /** Credit for walking away when there were no gains from trade. */
  walkAwayNoGft: z.number().finite().min(0).max(100),
});
export type RewardWeights = z.infer<typeof RewardWeightsSchema>;

export const DEFAULT_REWARD_WEIGHTS: Readonly<RewardWeights> = Object.freeze({
  invalidMove: 0.1,
  inconsistency: 0.1,
  surplus: 1,
  irViolation: 1,
  walkAwayNoGft: 0.5,
});

/** Each term's contribution to the total (weights applied); they sum to `total`. */
export interface RewardTerms {
  compliance: number;
  consistency: number;
  surplus: number;
  irPenalty: number;
  walkAwayCredit: number;
}
export type RewardTerm = keyof RewardTerms;
export const REWARD_TERMS = ['compliance', 'consistency', 'surplus', 'irPenalty', 'walkAwayCredit'] as const satisfies readonly RewardTerm[];

/** What the terms were computed from, unweighted. */
export interface RewardCounts {
  invalidMoves: number;
  retreats: number;
  crossings: number;
  /** The seat's share of v − c on a deal with gains from trade (`surplusShare`, in [0, 1]); null otherwise. */
  share: number | null;
  irViolation: boolean;
  walkedAwayWithoutGains: boolean;
}

export interface Reward {
  total: number;
  terms: RewardTerms;
  counts: RewardCounts;
}

/** Whether `price` is worse for `seat` than `than` (a buyer pays more, a seller gets less). */
const worseFor = (seat: Role, price: number, than: number): boolean => (seat === 'buyer' ? price > than : price < than);

/** The reward of `seat` over a finished log (it must end in an `end` event). Pure. */
export function bilateralReward(scenario: Scenario, events: readonly BilateralEvent[], seat: Role, weights: Partial<RewardWeights> = {}): Reward {
  const w: RewardWeights = { ...DEFAULT_REWARD_WEIGHTS, ...definedOnly(weights) };
  const other = opponentOf(seat);
  let invalidMoves = 0;
  let retreats = 0;
  let crossings = 0;
  let lastOwn: number | null = null;
  // The one offer on the table, replayed from the log as the protocol keeps it.
  let pending: { by: Role; price: number } | null = null;
  let end: Extract<BilateralEvent, { type: 'end' }> | null = null;
  for (const e of events) {
    if (e.type === 'end') {
      end = e;
      break;
    }
    if (e.type === 'forfeit') continue;
    if (e.type === 'invalid') {
      if (e.actor === seat) invalidMoves++;
      continue;
    }
    const action = e.move.action;
    if (action === undefined) continue;
    switch (action.type) {
      case 'offer': {
        const price = roundCents(action.price);
        if (e.actor === seat) {
          if (lastOwn !== null && worseFor(other, price, lastOwn)) retreats++;
          if (pending !== null && pending.by === other && worseFor(seat, price, pending.price)) crossings++;
          lastOwn = price;
        }
        pending = { by: e.actor, price };
        break;
      }
      case 'reject':
        pending = null;
        break;
      case 'accept':
      case 'walk_away':
        break;
    }
  }
  if (end === null) throw new Error('the reward of an event log without an end');

  const outcome = end.outcome;
  const gft = hasGainsFromTrade(scenario);
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  let share: number | null = null;
  let irViolation = false;
  if (outcome.kind === 'deal') {
    const utility = seat === 'buyer' ? v - outcome.price : outcome.price - c;
    irViolation = utility < -1e-9;
    if (gft) share = surplusShare(scenario, outcome.price, seat);
  }
  const walkedAwayWithoutGains = !gft && outcome.kind === 'walk_away' && outcome.by === seat;
  const terms: RewardTerms = {
    compliance: -w.invalidMove * invalidMoves,
    consistency: -w.inconsistency * (retreats + crossings),
    surplus: share === null ? 0 : w.surplus * share,
    irPenalty: irViolation ? -w.irViolation : 0,
    walkAwayCredit: walkedAwayWithoutGains ? w.walkAwayNoGft : 0,
  };
  // Negative zero reads oddly in JSON and in tests; every term is a plain number.
  for (const key of REWARD_TERMS) terms[key] = terms[key] + 0;
  const total = terms.compliance + terms.consistency + terms.surplus + terms.irPenalty + terms.walkAwayCredit;
  return { total, terms, counts: { invalidMoves, retreats, crossings, share, irViolation, walkedAwayWithoutGains } };
}

function definedOnly(weights: Partial<RewardWeights>): Partial<RewardWeights> {
  return Object.fromEntries(Object.entries(weights).filter(([, x]) => x !== undefined)) as Partial<RewardWeights>;
}
