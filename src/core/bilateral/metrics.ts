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

interface OfferAt {
  price: number;
  turn: number;
}

function behaviour(role: Role, offers: OfferAt[], scenario: Scenario) {
  if (offers.length === 0) return { opening: null, totalConcession: null, concession: null, patience: null };
  const listPrice = scenario.item.listPrice;
  const reservation = role === 'buyer' ? scenario.buyerValue : scenario.sellerCost;
  const first = (offers[0] as OfferAt).price;
  const last = (offers[offers.length - 1] as OfferAt).price;
  const range = first - reservation;
  const totalConcession = (gainDirection(role) * (first - last)) / listPrice;
  if (range === 0) return { opening: first / listPrice, totalConcession, concession: 0, patience: 0 };
  // (o₁ − o)/(o₁ − R) is the fraction of the way from the opening to the reservation, for either role.
  let patience = 1;
  for (const o of offers) {
    if ((first - o.price) / range > PATIENCE_THRESHOLD) {
      // Own turn index: each side moves every other turn, so turn t is its floor(t/2)-th own turn.
      patience = Math.floor(o.turn / 2) / turnsFor(role, scenario.firstMover, scenario.turnLimit);
      break;
    }
  }
  return { opening: first / listPrice, totalConcession, concession: (first - last) / range, patience };
}

/** Per-negotiation metrics: a fold over the event log, exactly as defined in DESIGN.md. */
export function computeMetrics(scenario: Scenario, events: readonly BilateralEvent[]): NegotiationMetrics {
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  const listPrice = scenario.item.listPrice;
  const gft = hasGainsFromTrade(scenario);
  const acc = {
    buyer: { offers: [] as OfferAt[], moves: 0, invalid: 0, forfeits: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 },
    seller: { offers: [] as OfferAt[], moves: 0, invalid: 0, forfeits: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 },
  };
  let result: BilateralResult | null = null;
  let turnsUsed = 0;
  for (const e of events) {
    if (e.type === 'end') {
      result = e.outcome;
      turnsUsed = e.turn;
      continue;
    }
    const side = acc[e.actor];
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
      if (e.move.action?.type === 'offer') side.offers.push({ price: roundCents(e.move.action.price), turn: e.turn });
    }
  }
  if (result === null) throw new Error('metrics of an event log without an end');
  const deal = result.kind === 'deal';
  const price = result.kind === 'deal' ? result.price : null;
  const side = (role: Role): SideMetrics => {
    const a = acc[role];
    const utility = price === null ? 0 : role === 'buyer' ? v - price : price - c;
    const share = price !== null && gft ? utility / (v - c) : null;
    return {
      utility,
      share,
      irViolation: deal && utility < -1e-9,
      offers: a.offers.map((o) => o.price / listPrice),
      ...behaviour(role, a.offers, scenario),
      moves: a.moves,
      invalidMoves: a.invalid,
      forfeits: a.forfeits,
      calls: a.calls,
      tokensIn: a.tokensIn,
      tokensOut: a.tokensOut,
      latencyMs: a.latencyMs,
    };
  };
  return { gft, deal, price, outcome: result.kind, turnsUsed, buyer: side('buyer'), seller: side('seller') };
}
