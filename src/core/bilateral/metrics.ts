import { hasGainsFromTrade, roundCents, type Role, type Scenario } from '../scenario';
import type { BilateralEvent, BilateralResult } from './events';
import { turnsFor } from './protocol';

/** Patience counts own turns until cumulative concession first exceeds this share of the range. */
export const PATIENCE_THRESHOLD = 0.05;

export interface SideMetrics {
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
  moves: number;
  invalidMoves: number;
  forfeits: number;
  /** Events with a model call (moves and invalid answers); 0 for a scripted agent. */
  calls: number;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
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

/** What the fold gathers for one side: its offers (price and turn, in order) and its counts. */
class SideTally {
  prices: number[] = [];
  turns: number[] = [];
  moves = 0;
  invalid = 0;
  forfeits = 0;
  calls = 0;
  tokensIn = 0;
  tokensOut = 0;
  latencyMs = 0;
}

/** One side's metrics, the behaviour measures written straight into the result (it is the hot path). */
function sideMetrics(role: Role, t: SideTally, scenario: Scenario, price: number | null, gft: boolean): SideMetrics {
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  const listPrice = scenario.item.listPrice;
  const utility = price === null ? 0 : role === 'buyer' ? v - price : price - c;
  const { prices, turns } = t;
  const n = prices.length;
  const offers = new Array<number>(n);
  for (let i = 0; i < n; i++) offers[i] = (prices[i] as number) / listPrice;
  const m: SideMetrics = {
    utility,
    share: price !== null && gft ? utility / (v - c) : null,
    irViolation: price !== null && utility < -1e-9,
    offers,
    opening: null,
    totalConcession: null,
    concession: null,
    patience: null,
    moves: t.moves,
    invalidMoves: t.invalid,
    forfeits: t.forfeits,
    calls: t.calls,
    tokensIn: t.tokensIn,
    tokensOut: t.tokensOut,
    latencyMs: t.latencyMs,
  };
  if (n === 0) return m;
  const reservation = role === 'buyer' ? v : c;
  const first = prices[0] as number;
  const last = prices[n - 1] as number;
  const range = first - reservation;
  m.opening = first / listPrice;
  m.totalConcession = (gainDirection(role) * (first - last)) / listPrice;
  if (range === 0) {
    m.concession = 0;
    m.patience = 0;
    return m;
  }
  m.concession = (first - last) / range;
  // (o₁ − o)/(o₁ − R) is the fraction of the way from the opening to the reservation, for either role.
  let patience = 1;
  for (let i = 0; i < n; i++) {
    if ((first - (prices[i] as number)) / range > PATIENCE_THRESHOLD) {
      // Own turn index: each side moves every other turn, so turn t is its floor(t/2)-th own turn.
      patience = Math.floor((turns[i] as number) / 2) / turnsFor(role, scenario.firstMover, scenario.turnLimit);
      break;
    }
  }
  m.patience = patience;
  return m;
}

/** Per-negotiation metrics: a fold over the event log, exactly as defined in DESIGN.md. */
export function computeMetrics(scenario: Scenario, events: readonly BilateralEvent[]): NegotiationMetrics {
  const gft = hasGainsFromTrade(scenario);
  const buyer = new SideTally();
  const seller = new SideTally();
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
    if (e.type === 'forfeit') {
      side.forfeits++;
      continue;
    }
    if (e.call) {
      side.calls++;
      side.tokensIn += e.call.tokensIn;
      side.tokensOut += e.call.tokensOut;
      side.latencyMs += e.call.latencyMs;
    }
    if (e.type === 'invalid') {
      side.invalid++;
    } else {
      side.moves++;
      if (e.move.action?.type === 'offer') {
        side.prices.push(roundCents(e.move.action.price));
        side.turns.push(e.turn);
      }
    }
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
