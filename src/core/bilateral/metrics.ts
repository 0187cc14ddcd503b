import { hasGainsFromTrade, roundCents, type Role, type Scenario } from '../scenario';
import type { BilateralEvent, BilateralResult } from './events';

export interface SideMetrics {
  utility: number;
  /** Share of v − c captured; only on a deal with gains from trade. */
  share: number | null;
  irViolation: boolean;
  /** Own offers over list price, in order. */
  offers: number[];
  firstOffer: number | null;
  /** First own offer minus last own offer, in own-utility terms, over list price. */
  totalConcession: number | null;
  /** Fraction of own offers made before the first concession. */
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

function concessionStats(role: Role, prices: number[], listPrice: number) {
  if (prices.length === 0) return { totalConcession: null, patience: null };
  const dir = gainDirection(role);
  const first = prices[0] as number;
  const last = prices[prices.length - 1] as number;
  let before = prices.length;
  for (let i = 1; i < prices.length; i++) {
    if (dir * ((prices[i] as number) - (prices[i - 1] as number)) < 0) {
      before = i;
      break;
    }
  }
  return { totalConcession: (dir * (first - last)) / listPrice, patience: before / prices.length };
}

/** Per-negotiation metrics: a fold over the event log, exactly as defined in DESIGN.md. */
export function computeMetrics(scenario: Scenario, events: readonly BilateralEvent[]): NegotiationMetrics {
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  const listPrice = scenario.item.listPrice;
  const gft = hasGainsFromTrade(scenario);
  const acc = {
    buyer: { prices: [] as number[], moves: 0, invalid: 0, forfeits: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 },
    seller: { prices: [] as number[], moves: 0, invalid: 0, forfeits: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 },
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
      if (e.move.action?.type === 'offer') side.prices.push(roundCents(e.move.action.price));
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
      offers: a.prices.map((p) => p / listPrice),
      firstOffer: a.prices.length ? (a.prices[0] as number) / listPrice : null,
      ...concessionStats(role, a.prices, listPrice),
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
