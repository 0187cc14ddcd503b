/**
 * Small acceptance and offering policies that the scripted strategies are assembled from, in the
 * manner of NegMAS's gb/components. Everything here is arithmetic on one observation: no state,
 * no prices held, nothing allocated beyond the reply itself.
 */
import { ACCEPT, WALK_AWAY, type Move } from '../../core/bilateral/moves';
import type { BilateralObservation } from '../../core/bilateral/protocol';
import type { BilateralAgent } from '../../core/bilateral/tournament';
import { roundCents, type Role } from '../../core/scenario';
import type { AgentReply } from '../../core/session';
import type { ParamInfo } from './types';

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
export const withinReservation = (obs: BilateralObservation, price: number): boolean =>
  atLeastAsGood(obs.role, price, obs.reservation);

/** The last own turn this side is sure to get (with an uncertain deadline there may be more). */
export const isLastOwnTurn = (obs: BilateralObservation): boolean => obs.ownTurn >= obs.ownTurns - 1;

/** The last own turn, known to be the last: only a fixed deadline tells a side that. */
export const isKnownLastOwnTurn = (obs: BilateralObservation): boolean => obs.turnLimit !== null && isLastOwnTurn(obs);

/**
 * The opening anchor: how far from its own reservation a side opens, as a fraction of the list
 * price. A seller opens at `c + anchor × list`, a buyer at `v − anchor × list` (at least one cent).
 * Measured from the reservation, not from the list price, so no preset leaves a side opening at its
 * own reservation while it has room, and both roles open equally far from their reservations.
 */
export const anchorParam = (value: number): ParamInfo => ({
  default: value,
  min: 0,
  max: 5,
  doc: 'opening distance from own reservation, as a fraction of list price (seller: cost + anchor × list; buyer: value − anchor × list)',
});

/** The opening aspiration price: the reservation moved `anchor` list prices in this side's favour. */
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
  let p = roundCents(target < r ? target : r);
  if (p > r) p = roundCents(p - 0.01); // rounding rose above an off-cent value
  return p < MIN_PRICE ? null : p;
}

// ---- offering policies: observation → target price (before rounding) ------------------------

/** Own time in [0, 1]: 0 at the first own turn, 1 at the last one this side is sure to get. */
export function ownTime(obs: BilateralObservation): number {
  const turns = obs.ownTurns;
  return turns <= 1 ? 1 : Math.min(1, obs.ownTurn / (turns - 1));
}

/** Fraction of the aspiration-to-reservation range conceded at time t: κ + (1 − κ)·t^(1/β). */
export const concession = (t: number, beta: number, kappa: number): number => kappa + (1 - kappa) * t ** (1 / beta);

/** Time-dependent offering (Faratin et al.): from the aspiration to the reservation over own turns. */
export function timeDependentTarget(obs: BilateralObservation, anchor: number, beta: number, kappa: number): number {
  const start = aspiration(obs, anchor);
  return start + concession(ownTime(obs), beta, kappa) * (obs.reservation - start);
}

// ---- acceptance policies ---------------------------------------------------------------------

/** AC_next: take the pending offer if it is within reservation and no worse than my next offer. */
export function acceptNext(obs: BilateralObservation, next: number): boolean {
  const pending = obs.pending;
  return pending !== null && withinReservation(obs, pending) && atLeastAsGood(obs.role, pending, next);
}

/** Take any pending offer within reservation. */
export function acceptAnyWithinReservation(obs: BilateralObservation): boolean {
  const pending = obs.pending;
  return pending !== null && withinReservation(obs, pending);
}

// ---- composition -----------------------------------------------------------------------------

export interface Policies {
  /** The price this side would offer now, before rounding and the reservation clamp. */
  offer(obs: BilateralObservation): number;
  /** Whether to take the pending offer, given the price this side would offer instead. */
  accept(obs: BilateralObservation, next: number): boolean;
  /** Walk away at the last own turn, when the deadline says it is the last, instead of an offer that cannot be answered in time. */
  walkAwayAtEnd?: boolean;
}

/**
 * One rational agent from an offering and an acceptance policy: accept if the acceptance policy
 * says so, otherwise offer (or walk away where there is no rational offer to make).
 */
export function composeAgent(policies: Policies): BilateralAgent {
  const { offer, accept } = policies;
  const walkAwayAtEnd = policies.walkAwayAtEnd ?? false;
  return {
    act(obs) {
      const price = rationalPrice(obs, offer(obs));
      if (obs.pending !== null && accept(obs, price ?? obs.reservation)) return ACCEPT_REPLY;
      if (price === null || (walkAwayAtEnd && isKnownLastOwnTurn(obs))) return WALK_AWAY_REPLY;
      return offerReply(price);
    },
  };
}
