/**
 * The oracle reference (DESIGN.md): the most a seat could have got on one scenario against the
 * exact policy of a deterministic counterpart. Such a counterpart's moves depend only on the
 * history, so the game can be searched; the search knows the whole scenario (both values and the
 * real turn limit), as an analyst looking back does.
 *
 * Two kinds of counterpart:
 * - scheduled: its offer at a turn, and the least favourable price (for it) it accepts then, depend
 *   only on the clock (time-based strategies, the hardliner, the haggler, the accommodator). The
 *   oracle seat can then do no better than wait, and at one of its turns take the counterpart's
 *   standing offer or name the price it accepts at its next turn: the search over those is exact.
 * - reactive: its moves answer the oracle seat's offers (tit-for-tat). The search plays the protocol
 *   with the counterpart itself over a family of plans — wait, or open at the seat's extreme and
 *   then name one price from a grid — and at every later turn of each plan tries taking the standing
 *   offer or the best price the counterpart accepts then (found by bisection). It is a lower bound
 *   of the true best; callers add what the seat actually got (`atLeast`), also a lower bound.
 */
import { opponentOf, priceRangeOf, type PriceRange, type Role, type Scenario } from './scenario';
import { roundCents } from '../../engine/money';
import type { Move } from './moves';
import { bilateral, MAX_OFFER_LIST_MULTIPLE, MIN_OFFER_PRICE, type BilateralObservation, type BilateralState } from './protocol';
import type { BilateralAgent } from './tournament';

/** What a scheduled counterpart does at one of its turns. */
export interface ScheduledMove {
  /** The price it offers, or null where it walks away. */
  offer: number | null;
  /** The least favourable price for it that it accepts at this turn (a cent), or null where it accepts none. */
  accepts: number | null;
}

export type OracleCounterpart = { kind: 'scheduled'; at(obs: BilateralObservation): ScheduledMove } | { kind: 'reactive'; agent: BilateralAgent };

export interface OracleOutcome {
  /** The seat's best utility against the counterpart: 0 when no deal beats none. */
  utility: number;
  /** The price of the deal that gets it (null when none does), the turn of the seat's move that makes it, and how. */
  price: number | null;
  turn: number | null;
  how: 'accept' | 'offer' | null;
}

const NONE: OracleOutcome = { utility: 0, price: null, turn: null, how: null };

/** The seat's utility from a deal at `price`. */
const utilityOf = (s: Scenario, seat: Role, price: number): number => (seat === 'buyer' ? s.buyerValue - price : price - s.sellerCost);

/** Keeps the better of two outcomes (the earlier one on a tie). */
const better = (a: OracleOutcome, b: OracleOutcome): OracleOutcome => (b.utility > a.utility + 1e-9 ? b : a);

/** The oracle seat's best outcome against `counterpart` on scenario `s`. */
export function oracleOutcome(s: Scenario, seat: Role, counterpart: OracleCounterpart): OracleOutcome {
  return counterpart.kind === 'scheduled' ? scheduledOracle(s, seat, counterpart.at) : reactiveOracle(s, seat, counterpart.agent);
}

// ---- scheduled counterparts: exact, on the clock alone ---------------------------------------

/**
 * A counterpart's view at a turn of a negotiation in which the other side has made no offer: all a
 * scheduled strategy reads (the clock, its reservation, the public range). Its lists are empty.
 */
class ClockObservation implements BilateralObservation {
  readonly pending = null;
  readonly ownStanding = null;
  readonly ownOffers: readonly number[] = [];
  readonly opponentOffers: readonly number[] = [];
  readonly transcript = [];
  pastTurn(): undefined {
    return undefined;
  }
  readonly reservation: number;
  readonly turnLimit: number | null;
  readonly turnRange: { readonly min: number; readonly max: number };
  readonly ownTurns: number;
  turn = 0;

  constructor(
    private readonly s: Scenario,
    readonly role: Role,
    readonly priceRange: PriceRange,
  ) {
    this.reservation = role === 'buyer' ? s.buyerValue : s.sellerCost;
    this.turnLimit = s.turnRange ? null : s.turnLimit;
    this.turnRange = s.turnRange ?? { min: s.turnLimit, max: s.turnLimit };
    const sure = this.turnRange.min;
    this.ownTurns = role === s.firstMover ? Math.ceil(sure / 2) : Math.floor(sure / 2);
  }
  get item() {
    return this.s.item;
  }
  get firstMover(): Role {
    return this.s.firstMover;
  }
  get ownTurn(): number {
    return this.role === this.s.firstMover ? Math.ceil(this.turn / 2) : Math.floor(this.turn / 2);
  }
}

function scheduledOracle(s: Scenario, seat: Role, at: (obs: BilateralObservation) => ScheduledMove): OracleOutcome {
  const other = opponentOf(seat);
  const obs = new ClockObservation(s, other, priceRangeOf(s));
  const limit = s.turnLimit;
  // The counterpart's turns are every other turn from its first; its move at each is worked out once.
  const firstOther = s.firstMover === other ? 0 : 1;
  const moveAt = (turn: number): ScheduledMove => {
    obs.turn = turn;
    return at(obs);
  };
  let best = NONE;
  let standing: number | null = null;
  let next: ScheduledMove | null = firstOther === 0 ? moveAt(0) : null;
  for (let turn = 0; turn < limit; turn++) {
    if ((turn - firstOther) % 2 === 0) {
      const move = next as ScheduledMove;
      if (move.offer === null) break; // it walks away: nothing after
      standing = move.offer;
      continue;
    }
    // The seat's turn: take the standing offer, or name the price the counterpart takes next.
    if (standing !== null) best = better(best, { utility: utilityOf(s, seat, standing), price: standing, turn, how: 'accept' });
    next = turn + 1 < limit ? moveAt(turn + 1) : null;
    if (next !== null && next.accepts !== null) best = better(best, { utility: utilityOf(s, seat, next.accepts), price: next.accepts, turn, how: 'offer' });
  }
  return best;
}

// ---- reactive counterparts: a search over plans played with the counterpart itself -----------

/** Offers the oracle seat's plans make at its second own turn: this many, spaced over the prices that matter. */
export const ORACLE_GRID = 8;

const say: Move = { message: '…' };

/** The counterpart's reply at the current state, which must be its turn. */
function reply(agent: BilateralAgent, state: BilateralState, role: Role): Move | null {
  const r = agent.act(bilateral.observe(state, role), NEVER);
  if (r instanceof Promise || r.kind !== 'move') return null; // not a synchronous, valid strategy: nothing to search
  return r.move;
}
const NEVER = new AbortController().signal;

/**
 * One plan for the oracle seat: the moves of its first own turns (then it only talks), searched for
 * the best deviation at each own turn on the way: take the standing offer, or name the best price the
 * counterpart takes at once.
 */
function searchPlan(s: Scenario, seat: Role, agent: BilateralAgent, opening: readonly Move[], best: OracleOutcome): OracleOutcome {
  const other = opponentOf(seat);
  let state = bilateral.initialState(s);
  let own = 0;
  const whole = s.buyerValue - s.sellerCost - 1e-9;
  while (!bilateral.isTerminal(state) && best.utility < whole) {
    const actor = bilateral.currentActor(state);
    if (actor === other) {
      const move = reply(agent, state, other);
      if (move === null) return best;
      const next = bilateral.apply(state, other, move);
      if (!next.ok) return best;
      state = next.value;
      // It took an offer of the plan's.
      const end = state.outcome;
      if (end?.kind === 'deal') best = better(best, { utility: utilityOf(s, seat, end.price), price: end.price, turn: end.turn - 2, how: 'offer' });
      continue;
    }
    const turn = state.turn;
    const pending = state.standing !== null && state.standing.actor === other ? state.standing.action.price : null;
    if (pending !== null) best = better(best, { utility: utilityOf(s, seat, pending), price: pending, turn, how: 'accept' });
    if (turn + 1 < s.turnLimit) best = bestOffer(s, seat, agent, state, best);
    const planned = own < opening.length ? (opening[own] as Move) : say;
    own++;
    const next = bilateral.apply(state, seat, planned);
    if (!next.ok) return best;
    state = next.value;
  }
  return best;
}

/** Whether the counterpart takes an offer of `price` from the seat at `state` (the seat's turn). */
function takes(agent: BilateralAgent, state: BilateralState, seat: Role, price: number): boolean {
  const offered = bilateral.apply(state, seat, { action: { type: 'offer', price } });
  if (!offered.ok) return false;
  return reply(agent, offered.value, opponentOf(seat))?.action?.type === 'accept';
}

/**
 * The best price for the seat that the counterpart takes at once, if it beats `best`: first whether
 * it takes a price a cent better than `best` at all, then the best such price by bisection over
 * cents, between that and the counterpart's own reservation (a rational counterpart takes nothing
 * beyond it).
 */
function bestOffer(s: Scenario, seat: Role, agent: BilateralAgent, state: BilateralState, best: OracleOutcome): OracleOutcome {
  const cents = (p: number) => Math.round(p * 100);
  const lowest = cents(MIN_OFFER_PRICE);
  const highest = cents(roundCents(MAX_OFFER_LIST_MULTIPLE * s.item.listPrice));
  // In cents, the seat's favourable direction: a buyer wants lower prices, a seller higher.
  const sign = seat === 'buyer' ? -1 : 1;
  const reservation = seat === 'buyer' ? s.buyerValue : s.sellerCost;
  // The worst price the seat would still name: one a cent better than its best so far, or its own reservation.
  const floor = best.price !== null ? cents(best.price) + sign : seat === 'buyer' ? Math.floor(reservation * 100 + 1e-6) : Math.ceil(reservation * 100 - 1e-6);
  if (floor < lowest || floor > highest) return best;
  if (!takes(agent, state, seat, floor / 100)) return best;
  // The best end: the counterpart's reservation, which it takes nothing beyond.
  const theirs = seat === 'buyer' ? s.sellerCost : s.buyerValue;
  let far = seat === 'buyer' ? Math.max(lowest, Math.ceil(theirs * 100 - 1e-6)) : Math.min(highest, Math.floor(theirs * 100 + 1e-6));
  if (sign * (far - floor) < 0) far = floor;
  let taken = floor;
  if (takes(agent, state, seat, far / 100)) taken = far;
  else {
    let refused = far;
    while (Math.abs(refused - taken) > 1) {
      const mid = Math.trunc((refused + taken) / 2);
      if (takes(agent, state, seat, mid / 100)) taken = mid;
      else refused = mid;
    }
  }
  const price = taken / 100;
  return better(best, { utility: utilityOf(s, seat, price), price, turn: state.turn, how: 'offer' });
}

function reactiveOracle(s: Scenario, seat: Role, agent: BilateralAgent): OracleOutcome {
  // Plan 0: only talk. Then: open at the seat's extreme and name one price of a grid at the second
  // own turn, between its extreme and the counterpart's reservation (a counterpart that mirrors
  // concessions answers a long jump with a long one).
  // No plan can do better than the whole zone (a rational counterpart trades only inside it).
  const whole = s.buyerValue - s.sellerCost - 1e-9;
  let best = searchPlan(s, seat, agent, [], NONE);
  const extreme = seat === 'buyer' ? MIN_OFFER_PRICE : roundCents(MAX_OFFER_LIST_MULTIPLE * s.item.listPrice);
  const theirs = seat === 'buyer' ? s.sellerCost : s.buyerValue;
  for (let k = 1; k <= ORACLE_GRID; k++) {
    const jump = roundCents(extreme + ((theirs - extreme) * k) / ORACLE_GRID);
    if (jump < MIN_OFFER_PRICE) continue;
    const opening: Move[] = [{ action: { type: 'offer', price: extreme } }, { action: { type: 'offer', price: jump } }];
    if (best.utility >= whole) break;
    best = searchPlan(s, seat, agent, opening, best);
  }
  return best;
}

/** The oracle's share of the gains: its utility over `v − c`, in [0, 1]; null without gains from trade. */
export function oracleShare(s: Scenario, outcome: OracleOutcome): number | null {
  const gains = s.buyerValue - s.sellerCost;
  if (!(gains > 0)) return null;
  const share = outcome.utility / gains;
  return share < 0 ? 0 : share > 1 ? 1 : share;
}
