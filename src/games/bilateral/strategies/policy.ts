/**
 * Small acceptance and offering policies that the scripted strategies are assembled from, in the
 * manner of NegMAS's gb/components. Everything here is arithmetic on one observation: no state,
 * no prices held, nothing allocated beyond the reply itself.
 */
import { ACCEPT, WALK_AWAY, type Move } from '../moves';
import type { ScheduledMove } from '../oracle';
import type { BilateralObservation } from '../protocol';
import type { BilateralAgent } from '../tournament';
import type { Role } from '../scenario';
import { roundCents } from '../../../engine/money';
import type { AgentReply } from '../../../engine/session';
import type { ParamInfo } from '../../../agents/specs';

export type Reply = AgentReply<Move>;

/** The lowest price the protocol takes: one cent. */
export const MIN_PRICE = 0.01;

export const ACCEPT_REPLY: Reply = { kind: 'move', move: ACCEPT };
export const WALK_AWAY_REPLY: Reply = { kind: 'move', move: WALK_AWAY };
export const offerReply = (price: number): Reply => ({ kind: 'move', move: { action: { type: 'offer', price } } });

// ---- preferences, read from the observation -------------------------------------------------

/** True when `a` is at least as good as `b` for `role` (the seller gains from higher prices). */
export const atLeastAsGood = (role: Role, a: number, b: number): boolean => (role === 'seller' ? a >= b : a <= b);

/** A deal at `price` would not cost this side money: buyer `price ≤ v`, seller `price ≥ c`. */
export const withinReservation = (obs: BilateralObservation, price: number): boolean => atLeastAsGood(obs.role, price, obs.reservation);

/** The last own turn, known to be the last: only a fixed deadline tells a side that. */
export const isKnownLastOwnTurn = (obs: BilateralObservation): boolean => obs.turnLimit !== null && obs.ownTurn >= obs.ownTurns - 1;

/**
 * The opening anchor of the hardliner: how far from its own reservation it asks, as a fraction of
 * the list price. A seller asks `c + anchor × list`, a buyer offers `v − anchor × list` (at least
 * one cent).
 */
export const anchorParam = (value: number): ParamInfo => ({
  default: value,
  min: 0,
  max: 5,
  doc: 'distance of its price from its own reservation, as a fraction of list price (seller: cost + anchor × list; buyer: value − anchor × list)',
});

/** The reservation moved `anchor` list prices in this side's favour (at least one cent). */
export function aspiration(obs: BilateralObservation, anchor: number): number {
  const margin = anchor * obs.item.listPrice;
  if (obs.role === 'seller') return obs.reservation + margin;
  const price = obs.reservation - margin;
  return price < MIN_PRICE ? Math.min(MIN_PRICE, obs.reservation) : price;
}

/** `x` moved into the closed interval between `a` and `b`, whichever order they come in. */
export function clampBetween(x: number, a: number, b: number): number {
  const lo = a < b ? a : b;
  const hi = a < b ? b : a;
  return x < lo ? lo : x > hi ? hi : x;
}

/**
 * A target price as an offer a rational side may make: rounded to cents, at least one cent and
 * never beyond the reservation. `null` when there is none (a buyer who values the item under a cent).
 */
export function rationalPrice(obs: BilateralObservation, target: number): number | null {
  const r = obs.reservation;
  if (obs.role === 'seller') {
    let p = roundCents(target > r ? target : r);
    if (p < r) p = roundCents(p + 0.01); // rounding fell below an off-cent cost
    return p < MIN_PRICE ? MIN_PRICE : p;
  }
  if (r < MIN_PRICE) return null;
  let p = roundCents(target < r ? target : r);
  if (p > r) p = roundCents(p - 0.01); // rounding rose above an off-cent value
  return p < MIN_PRICE ? MIN_PRICE : p; // a target under a cent (a range from $0) is the least offer
}

// ---- the clock and the price range both sides share (NegMAS's time-based negotiators) --------

/**
 * The number of turns the shared clock runs over: the turn limit when it is fixed (as NegMAS's
 * `n_steps`), the middle of the range when it is uncertain (the expected limit).
 */
export const horizon = (obs: BilateralObservation): number => obs.turnLimit ?? (obs.turnRange.min + obs.turnRange.max) / 2;

/**
 * NegMAS's relative time, `(turn + 1) / (T + 1)`: one clock for both sides, whoever moves, so the
 * side that opens has no head start. Within a fixed limit it never reaches 1, so no time-based
 * strategy ever offers its own reservation; past the middle of an uncertain range it stays at 1.
 */
export function relativeTime(obs: BilateralObservation): number {
  const t = (obs.turn + 1) / (horizon(obs) + 1);
  return t < 1 ? t : 1;
}

/** Where this side opens: the end of the public price range best for it, never beyond its reservation. */
export function rangeStart(obs: BilateralObservation): number {
  const { lo, hi } = obs.priceRange;
  const r = obs.reservation;
  return obs.role === 'seller' ? (hi > r ? hi : r) : lo < r ? lo : r;
}

/**
 * NegMAS's tolerance around an aspiration, in dollars: its 1e-4 of normalised utility over the price
 * range. Read off NegMAS's own outcomes (test/fixtures/negmas): every offer there lies within
 * 1.00990e-4 to 1.01021e-4 of the range from its target, so the range is normalised a hundredth
 * short of its width (1e-4 / 0.99).
 */
export const NEGMAS_TOLERANCE = 1e-4 / 0.99;
export const tolerance = (obs: BilateralObservation): number => NEGMAS_TOLERANCE * (obs.priceRange.hi - obs.priceRange.lo);

/** Whole cents in `dollars`, with float noise below a millionth of a cent removed first. */
const cents = (dollars: number): number => Math.round(dollars * 1e8) / 1e6;

/**
 * NegMAS's offer for a target price: the cent worst for this side whose utility is still within
 * the tolerance of the target (a seller's lowest such price, a buyer's highest), never beyond its
 * reservation and at least one cent. `null` when there is none (a buyer who values the item under a cent).
 */
export const worstCentWithin = (obs: BilateralObservation, target: number): number | null => worstCent(obs.role, obs.reservation, target, tolerance(obs));

/** `worstCentWithin` on the numbers it reads (a time-based agent reads each once per turn). */
export function worstCent(role: Role, r: number, target: number, tol: number): number | null {
  if (role === 'seller') {
    const p = Math.ceil(cents(target - tol)) / 100;
    // A cent at or above the reservation is within it; below, the reservation's own cent (rounded up).
    const price = p >= r ? p : Math.ceil(cents(r)) / 100;
    return price < MIN_PRICE ? MIN_PRICE : price;
  }
  if (r < MIN_PRICE) return null;
  const p = Math.floor(cents(target + tol)) / 100;
  const price = p <= r ? p : Math.floor(cents(r)) / 100;
  return price < MIN_PRICE ? MIN_PRICE : price; // NegMAS may offer $0.00, which the protocol refuses
}

// ---- offering policies: observation → target price (before rounding) ------------------------

/**
 * The fraction of the way conceded at time t, `t^e` with `e = 1/β`: the exponents NegMAS names
 * (4, 1, 1/4) by multiplication and square roots, which are many times faster than a general power
 * and reproduce NegMAS's outcomes as exactly (test/agents/negmas-parity).
 */
export function conceded(t: number, e: number): number {
  if (e === 1) return t;
  if (e === 4) {
    const u = t * t;
    return u * u;
  }
  if (e === 0.25) return Math.sqrt(Math.sqrt(t));
  return t ** e;
}

/**
 * Time-based offering as in NegMAS's `TimeBasedConcedingNegotiator`: from the best end of the
 * price range to the reservation as `κ + (1 − κ)·t^e` on the shared clock (`e = 1/β`; β = 1/4, 1,
 * 4 are NegMAS's Boulware, Linear and Conceder exponents 4, 1 and 1/4).
 */
export function timeBasedTarget(obs: BilateralObservation, e: number, kappa: number): number {
  const start = rangeStart(obs);
  return start + (kappa + (1 - kappa) * conceded(relativeTime(obs), e)) * (obs.reservation - start);
}

/**
 * A time-based strategy as one agent: NegMAS's offer (`timeBasedTarget`, then `worstCentWithin`)
 * and its acceptance (`acceptWithinTolerance`, or any offer within the reservation), the numbers
 * of the observation read once a turn (it is the engine's hottest path). `schedule` composes the
 * same policies for the oracle.
 */
export function timeBasedAgent(beta: number, kappa: number, acceptAny: boolean): ScriptedAgent {
  const e = 1 / beta;
  const composed = composeAgent({
    offer: (obs) => timeBasedTarget(obs, e, kappa),
    price: worstCentWithin,
    accept: acceptAny ? acceptAnyWithinReservation : acceptWithinTolerance,
  });
  return {
    act(obs) {
      const role = obs.role;
      const r = obs.reservation;
      const { lo, hi } = obs.priceRange;
      const seller = role === 'seller';
      const start = seller ? (hi > r ? hi : r) : lo < r ? lo : r;
      const turnLimit = obs.turnLimit;
      let horizon: number;
      if (turnLimit !== null) horizon = turnLimit;
      else {
        const range = obs.turnRange;
        horizon = (range.min + range.max) / 2;
      }
      const t0 = (obs.turn + 1) / (horizon + 1);
      const target = start + (kappa + (1 - kappa) * conceded(t0 < 1 ? t0 : 1, e)) * (r - start);
      const tol = NEGMAS_TOLERANCE * (hi - lo);
      const price = worstCent(role, r, target, tol);
      const pending = obs.pending;
      if (pending !== null && (seller ? pending >= r : pending <= r) && (acceptAny || (seller ? pending >= target - tol : pending <= target + tol)))
        return ACCEPT_REPLY;
      return price === null ? WALK_AWAY_REPLY : offerReply(price);
    },
    schedule: composed.schedule,
  };
}

// ---- acceptance policies ---------------------------------------------------------------------

/**
 * An acceptance policy: whether to take the pending offer, given the price this side would offer
 * instead and its target; and, for the oracle reference (games/bilateral/oracle.ts), the least
 * favourable price for this side that it takes at this turn (a cent; null where it takes none).
 */
export interface Acceptance {
  accepts(obs: BilateralObservation, next: number, target: number): boolean;
  threshold(obs: BilateralObservation, next: number, target: number): number | null;
}

/** The least favourable cent for this side at or beyond `price` in its favour, never beyond its reservation. */
function thresholdCent(obs: BilateralObservation, price: number): number | null {
  const r = obs.reservation;
  if (obs.role === 'seller') {
    const p = Math.ceil(cents(price > r ? price : r)) / 100;
    return p < MIN_PRICE ? MIN_PRICE : p;
  }
  const p = Math.floor(cents(price < r ? price : r)) / 100;
  return p < MIN_PRICE ? null : p;
}

/** AC_next: take the pending offer if it is within reservation and no worse than my next offer. */
export const acceptNext: Acceptance = {
  accepts: (obs, next) => {
    const pending = obs.pending;
    return pending !== null && withinReservation(obs, pending) && atLeastAsGood(obs.role, pending, next);
  },
  threshold: (obs, next) => thresholdCent(obs, next),
};

/** NegMAS's acceptance: the pending offer is within the reservation and within the tolerance of the target. */
export const acceptWithinTolerance: Acceptance = {
  accepts: (obs, _next, target) => {
    const pending = obs.pending;
    if (pending === null || !withinReservation(obs, pending)) return false;
    const tol = tolerance(obs);
    return obs.role === 'seller' ? pending >= target - tol : pending <= target + tol;
  },
  threshold: (obs, _next, target) => thresholdCent(obs, obs.role === 'seller' ? target - tolerance(obs) : target + tolerance(obs)),
};

/** Take any pending offer within reservation. */
export const acceptAnyWithinReservation: Acceptance = {
  accepts: (obs) => obs.pending !== null && withinReservation(obs, obs.pending),
  threshold: (obs) => thresholdCent(obs, obs.reservation),
};

// ---- composition -----------------------------------------------------------------------------

export interface Policies {
  /** The price this side aims at now, before rounding and the reservation clamp. */
  offer(obs: BilateralObservation): number;
  /** The offer a target makes (default: `rationalPrice`, the nearest cent within the reservation). */
  price?(obs: BilateralObservation, target: number): number | null;
  /** When to take the pending offer. */
  accept: Acceptance;
  /**
   * Its offers answer the other side's (tit-for-tat): the oracle then searches the game with the
   * agent itself. Otherwise they depend only on the clock, and the agent carries its `schedule`.
   */
  reactive?: boolean;
  /** Walk away at the last own turn, when the deadline says it is the last, instead of an offer that cannot be answered in time. */
  walkAwayAtEnd?: boolean;
}

/** A scripted agent; one whose moves depend only on the clock also says what it does at a turn, for the oracle. */
export interface ScriptedAgent extends BilateralAgent {
  schedule?: (obs: BilateralObservation) => ScheduledMove;
}

/**
 * One rational agent from an offering and an acceptance policy: accept if the acceptance policy
 * says so, otherwise offer (or walk away where there is no rational offer to make).
 */
export function composeAgent(policies: Policies): ScriptedAgent {
  const { offer, accept } = policies;
  const toPrice = policies.price ?? rationalPrice;
  const walkAwayAtEnd = policies.walkAwayAtEnd ?? false;
  const agent: ScriptedAgent = {
    act(obs) {
      const target = offer(obs);
      const price = toPrice(obs, target);
      if (obs.pending !== null && accept.accepts(obs, price ?? obs.reservation, target)) return ACCEPT_REPLY;
      if (price === null || (walkAwayAtEnd && isKnownLastOwnTurn(obs))) return WALK_AWAY_REPLY;
      return offerReply(price);
    },
  };
  if (!policies.reactive)
    agent.schedule = (obs) => {
      const target = offer(obs);
      const price = toPrice(obs, target);
      return {
        offer: price === null || (walkAwayAtEnd && isKnownLastOwnTurn(obs)) ? null : price,
        accepts: accept.threshold(obs, price ?? obs.reservation, target),
      };
    };
  return agent;
}
