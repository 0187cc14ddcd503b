import { hasGainsFromTrade, type Role, type Scenario } from './scenario';
import { roundCents } from '../../engine/money';
import { countSeatEvent, type SeatTally } from '../../engine/seat-tally';
import type { BilateralEvent, BilateralResult } from './events';
import { turnsFor } from './protocol';

/** Patience counts own turns until cumulative concession first exceeds this share of the range. */
export const PATIENCE_THRESHOLD = 0.05;

/** One side's measures, and its moves, invalid answers, forfeits and model calls (the SeatTally). */
export interface SideMetrics extends SeatTally {
  utility: number;
  /**
   * Share of the zone `v − c` captured, in [0, 1]; only on a deal with gains from trade. A deal
   * outside the zone gives the side that gained all of it (1) and the side that lost none (0): what
   * lies beyond the zone is the loser's `irLoss` and the winner's `windfall`, measured apart.
   */
  share: number | null;
  irViolation: boolean;
  /** What a deal that broke this side's individual rationality cost it (−utility), over list price; 0 otherwise, null without a deal. */
  irLoss: number | null;
  /**
   * The part of this side's utility that came from the other side's IR violation (the least of its
   * own gain and the other's loss), over list price; 0 otherwise, null without a deal.
   */
  windfall: number | null;
  /**
   * The oracle reference (games/bilateral/oracle.ts): the largest share of the gains this side could
   * have got on this scenario against the other side's exact policy, and that minus the share it got
   * (0 without a deal). Null where the other side is not a deterministic scripted strategy or there
   * were no gains from trade; `computeMetrics` leaves them null, the oracle scorer fills them in.
   */
  oracleShare: number | null;
  oracleGap: number | null;
  /** `opening`: the first own offer over list price. */
  opening: number | null;
  /**
   * First own offer minus the last own position (its last offer, or the price it accepted), in
   * own-utility terms, over list price.
   */
  totalConcession: number | null;
  /**
   * `concession`: how far the last own position (its last offer, or the price it accepted) moved
   * from the first offer toward the reservation, over that range (0 if the first was the reservation).
   */
  concession: number | null;
  /**
   * `patience`: the fraction of this side's own turns (under the turn limit) that passed before its
   * cumulative concession first exceeded 5% of the opening-to-reservation range; 1 if it never did,
   * 0 if it opened at its reservation. Accepting counts as moving to the accepted price, so an
   * early acceptance is an early concession; a side that accepts before it has made any offer
   * conceded then (patience: its own turns before that one, over its own turns).
   */
  patience: number | null;
}

export interface NegotiationMetrics {
  gft: boolean;
  deal: boolean;
  price: number | null;
  outcome: BilateralResult['kind'];
  turnsUsed: number;
  buyer: SideMetrics;
  seller: SideMetrics;
}

/** A utility below this (a rounding error's worth of dollars) is a loss. */
const IR_EPS = 1e-9;

/**
 * The share of the zone `[c, v]` a deal at `price` gives `role`, in [0, 1]: the price is moved into
 * the zone first, so a deal beyond it gives the side that gained everything and the other nothing.
 * Only for a scenario with gains from trade (`v > c`). Every surplus share Parley shows is this one.
 */
export function surplusShare(s: Pick<Scenario, 'buyerValue' | 'sellerCost'>, price: number, role: Role): number {
  const v = s.buyerValue;
  const c = s.sellerCost;
  const p = price < c ? c : price > v ? v : price;
  return role === 'seller' ? (p - c) / (v - c) : (v - p) / (v - c);
}

/** Where a deal at `price` lies in the zone, (p − c)/(v − c): below 0 or above 1 when it breaks one side's individual rationality. */
export const zonePosition = (s: Pick<Scenario, 'buyerValue' | 'sellerCost'>, price: number): number => (price - s.sellerCost) / (s.buyerValue - s.sellerCost);

/** Seller gains from a higher price, buyer from a lower one. */
const gainDirection = (role: Role): number => (role === 'seller' ? 1 : -1);

/**
 * What the fold gathers for one side: its offers over list price (in order), its first offer and
 * last position, the own time at which its concession first passed the patience threshold, and
 * its counts.
 */
class SideTally implements SeatTally {
  /** Own offers so far. */
  offers = 0;
  first = 0;
  /** The last position: its last offer, or the price it accepted. */
  last = 0;
  /** first − reservation: the range patience and concession are measured over. */
  range = 0;
  /** How far the last position had moved from the first offer toward the reservation, as a fraction of the range. */
  conceded = 0;
  /** Own turns (interpolated within the crossing step) before the patience threshold was passed; -1 while it has not been. */
  crossedAt = -1;
  /** The turn it accepted the other side's offer, -1 if it did not. */
  accepted = -1;
  moves = 0;
  invalidMoves = 0;
  forfeits = 0;
  calls = 0;
  tokensIn = 0;
  tokensOut = 0;
  latencyMs = 0;

  private reservation = 0;

  /** Starts a fold for a side with this reservation (the fold is synchronous, so two tallies serve every negotiation). */
  reset(reservation: number): this {
    this.reservation = reservation;
    this.offers = 0;
    this.first = 0;
    this.last = 0;
    this.range = 0;
    this.conceded = 0;
    this.crossedAt = -1;
    this.accepted = -1;
    this.moves = 0;
    this.invalidMoves = 0;
    this.forfeits = 0;
    this.calls = 0;
    this.tokensIn = 0;
    this.tokensOut = 0;
    this.latencyMs = 0;
    return this;
  }

  offer(price: number, turn: number): void {
    if (this.offers === 0) {
      this.first = price;
      this.range = price - this.reservation;
    } else this.moveTo(price, turn);
    this.last = price;
    this.offers++;
  }

  /** Accepting the other side's offer at `price`: its last position (DESIGN.md: accepting is conceding). */
  accept(price: number, turn: number): void {
    this.accepted = turn;
    if (this.offers === 0) return;
    this.moveTo(price, turn);
    this.last = price;
  }

  /**
   * A new position at `turn`. The side held its previous one through its own turns before this
   * one, so a crossing of the threshold happened during the step to this own turn: it counts the
   * own turns before it plus the part of the step that reached the threshold.
   */
  private moveTo(price: number, turn: number): void {
    if (this.crossedAt >= 0 || this.range === 0) return;
    // (o₁ − p)/(o₁ − R) is the fraction of the way from the opening to the reservation, for either role.
    const conceded = (this.first - price) / this.range;
    if (conceded > PATIENCE_THRESHOLD) {
      // Own turn index: each side moves every other turn, so turn t is its floor(t/2)-th own turn.
      const ownTurn = Math.floor(turn / 2);
      this.crossedAt = ownTurn - 1 + (PATIENCE_THRESHOLD - this.conceded) / (conceded - this.conceded);
    } else this.conceded = conceded;
  }
}

/** Whether the other side ended the negotiation while this side had own turns left and had not yet conceded: its patience is not observed. */
function cutShort(role: Role, result: BilateralResult, scenario: Scenario): boolean {
  const byOther =
    (result.kind === 'deal' && result.acceptedBy !== role) ||
    (result.kind === 'walk_away' && result.by !== role) ||
    result.kind === 'error' ||
    result.kind === 'cancelled';
  if (!byOther) return false;
  // Own turns taken: the turns before the end that were this side's.
  const taken = role === scenario.firstMover ? Math.ceil(result.turn / 2) : Math.floor(result.turn / 2);
  return taken < turnsFor(role, scenario.firstMover, scenario.turnLimit);
}

/** One side's metrics, the behaviour measures written straight into the result (it is the hot path). */
function sideMetrics(role: Role, t: SideTally, scenario: Scenario, result: BilateralResult, gft: boolean): SideMetrics {
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  const listPrice = scenario.item.listPrice;
  const price = result.kind === 'deal' ? result.price : null;
  const utility = price === null ? 0 : role === 'buyer' ? v - price : price - c;
  const other = price === null ? 0 : role === 'buyer' ? price - c : v - price;
  const m: SideMetrics = {
    utility,
    share: price !== null && gft ? surplusShare(scenario, price, role) : null,
    irViolation: price !== null && utility < -IR_EPS,
    irLoss: price === null ? null : utility < -IR_EPS ? -utility / listPrice : 0,
    windfall: price === null ? null : other < -IR_EPS && utility > 0 ? (utility < -other ? utility : -other) / listPrice : 0,
    oracleShare: null,
    oracleGap: null,
    opening: null,
    totalConcession: null,
    concession: null,
    patience: null,
    moves: t.moves,
    invalidMoves: t.invalidMoves,
    forfeits: t.forfeits,
    calls: t.calls,
    tokensIn: t.tokensIn,
    tokensOut: t.tokensOut,
    latencyMs: t.latencyMs,
  };
  // No offer, no opening to measure from (a side that accepted before offering has none either).
  if (t.offers === 0) return m;
  const { first, last, range } = t;
  m.opening = first / listPrice;
  m.totalConcession = (gainDirection(role) * (first - last)) / listPrice;
  if (range === 0) {
    m.concession = 0;
    m.patience = 0;
    return m;
  }
  m.concession = (first - last) / range;
  if (t.crossedAt >= 0) m.patience = t.crossedAt / turnsFor(role, scenario.firstMover, scenario.turnLimit);
  else if (!cutShort(role, result, scenario)) m.patience = 1;
  return m;
}

/** A side's offers over list price, in order (rounded to cents first, as the protocol takes them): for the inspector. */
export function offersOverList(scenario: Scenario, events: readonly BilateralEvent[], role: Role): number[] {
  const list = scenario.item.listPrice;
  const out: number[] = [];
  for (const e of events) if (e.type === 'move' && e.actor === role && e.move.action?.type === 'offer') out.push(roundCents(e.move.action.price) / list);
  return out;
}

const BUYER_TALLY = new SideTally();
const SELLER_TALLY = new SideTally();

/** Per-negotiation metrics: a fold over the event log, exactly as defined in DESIGN.md. */
export function computeMetrics(scenario: Scenario, events: readonly BilateralEvent[]): NegotiationMetrics {
  const gft = hasGainsFromTrade(scenario);
  const buyer = BUYER_TALLY.reset(scenario.buyerValue);
  const seller = SELLER_TALLY.reset(scenario.sellerCost);
  let result: BilateralResult | null = null;
  let turnsUsed = 0;
  // The standing offer (the last one made, until a rejection clears it): the price an accept takes.
  let pending: number | null = null;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as BilateralEvent;
    if (e.type === 'end') {
      result = e.outcome;
      turnsUsed = e.turn;
      continue;
    }
    const side = e.actor === 'buyer' ? buyer : seller;
    countSeatEvent(side, e);
    if (e.type !== 'move') continue;
    const action = e.move.action;
    if (action?.type === 'offer') {
      side.offer(roundCents(action.price), e.turn);
      pending = action.price;
    } else if (action?.type === 'accept' && pending !== null) side.accept(roundCents(pending), e.turn);
    else if (action?.type === 'reject') pending = null;
  }
  if (result === null) throw new Error('metrics of an event log without an end');
  const price = result.kind === 'deal' ? result.price : null;
  return {
    gft,
    deal: price !== null,
    price,
    outcome: result.kind,
    turnsUsed,
    buyer: sideMetrics('buyer', buyer, scenario, result, gft),
    seller: sideMetrics('seller', seller, scenario, result, gft),
  };
}
