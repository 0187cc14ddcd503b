import { hasGainsFromTrade, roundCents, type Role, type Scenario } from '../scenario';
import { countSeatEvent, type SeatTally } from '../seat-tally';
import type { BilateralEvent, BilateralResult } from './events';
import { turnsFor } from './protocol';

/** Patience counts own turns until cumulative concession first exceeds this share of the range. */
export const PATIENCE_THRESHOLD = 0.05;

/** One side's measures, and its moves, invalid answers, forfeits and model calls (the SeatTally). */
export interface SideMetrics extends SeatTally {
  utility: number;
  /** Share of v − c captured; only on a deal with gains from trade. */
  share: number | null;
  irViolation: boolean;
  /** Own offers over list price, in order. */
  offers: number[];
  /** `opening`: the first own offer over list price. */
  opening: number | null;
  /** First own offer minus last own offer, in own-utility terms, over list price. */
  totalConcession: number | null;
  /** `concession`: how far the last own offer moved from the first toward the reservation, over that range (0 if the first was the reservation). */
  concession: number | null;
  /**
   * `patience`: the fraction of this side's own turns (under the turn limit) that passed before its
   * cumulative concession first exceeded 5% of the opening-to-reservation range; 1 if it never did,
   * 0 if it opened at its reservation.
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

/** Seller gains from a higher price, buyer from a lower one. */
const gainDirection = (role: Role): number => (role === 'seller' ? 1 : -1);

/**
 * What the fold gathers for one side: its offers over list price (in order), the first and last
 * offer, the turn at which its concession first passed the patience threshold, and its counts.
 */
class SideTally implements SeatTally {
  offers: number[] = [];
  first = 0;
  last = 0;
  /** first − reservation: the range patience and concession are measured over. */
  range = 0;
  /** The turn of the first offer past the patience threshold; -1 while there is none. */
  crossed = -1;
  moves = 0;
  invalidMoves = 0;
  forfeits = 0;
  calls = 0;
  tokensIn = 0;
  tokensOut = 0;
  latencyMs = 0;

  constructor(
    private readonly reservation: number,
    private readonly listPrice: number,
  ) {}

  offer(price: number, turn: number): void {
    if (this.offers.length === 0) {
      this.first = price;
      this.range = price - this.reservation;
    } else if (this.crossed < 0 && this.range !== 0 && (this.first - price) / this.range > PATIENCE_THRESHOLD) {
      // (o₁ − o)/(o₁ − R) is the fraction of the way from the opening to the reservation, for either role.
      this.crossed = turn;
    }
    this.last = price;
    this.offers.push(price / this.listPrice);
  }
}

/** One side's metrics, the behaviour measures written straight into the result (it is the hot path). */
function sideMetrics(role: Role, t: SideTally, scenario: Scenario, price: number | null, gft: boolean): SideMetrics {
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  const listPrice = scenario.item.listPrice;
  const utility = price === null ? 0 : role === 'buyer' ? v - price : price - c;
  const m: SideMetrics = {
    utility,
    share: price !== null && gft ? utility / (v - c) : null,
    irViolation: price !== null && utility < -1e-9,
    offers: t.offers,
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
  if (t.offers.length === 0) return m;
  const { first, last, range } = t;
  m.opening = first / listPrice;
  m.totalConcession = (gainDirection(role) * (first - last)) / listPrice;
  if (range === 0) {
    m.concession = 0;
    m.patience = 0;
    return m;
  }
  m.concession = (first - last) / range;
  // Own turn index: each side moves every other turn, so turn t is its floor(t/2)-th own turn.
  m.patience = t.crossed < 0 ? 1 : Math.floor(t.crossed / 2) / turnsFor(role, scenario.firstMover, scenario.turnLimit);
  return m;
}

/** Per-negotiation metrics: a fold over the event log, exactly as defined in DESIGN.md. */
export function computeMetrics(scenario: Scenario, events: readonly BilateralEvent[]): NegotiationMetrics {
  const gft = hasGainsFromTrade(scenario);
  const listPrice = scenario.item.listPrice;
  const buyer = new SideTally(scenario.buyerValue, listPrice);
  const seller = new SideTally(scenario.sellerCost, listPrice);
  let result: BilateralResult | null = null;
  let turnsUsed = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as BilateralEvent;
    if (e.type === 'end') {
      result = e.outcome;
      turnsUsed = e.turn;
      continue;
    }
    const side = e.actor === 'buyer' ? buyer : seller;
    countSeatEvent(side, e);
    if (e.type === 'move' && e.move.action?.type === 'offer') side.offer(roundCents(e.move.action.price), e.turn);
  }
  if (result === null) throw new Error('metrics of an event log without an end');
  const price = result.kind === 'deal' ? result.price : null;
  return {
    gft,
    deal: price !== null,
    price,
    outcome: result.kind,
    turnsUsed,
    buyer: sideMetrics('buyer', buyer, scenario, price, gft),
    seller: sideMetrics('seller', seller, scenario, price, gft),
  };
}
