/**
 * Per-market metrics: one fold over the event log. Each measure is defined once, here, and in
 * words in docs/market-metrics.md.
 */
import { roundCents } from '../../engine/money';
import { countSeatEvent, emptySeatTally, type SeatTally } from '../../engine/seat-tally';
import type { BuyerMove, SellerMove } from './moves';
import type { MarketEvent, MarketResultKind } from './events';
import { optimalAllocation } from './matching';
import type { Sale } from './protocol';
import { totalStock, type MarketScenario } from './scenario';

export type { SeatTally };

export interface MarketMetrics {
  outcome: MarketResultKind;
  /** Valid seller moves / all seller moves (valid and refused); 1 when the seller made none. */
  constraintAdherence: number;
  /** Σ(p − c) over sales. */
  sellerSurplus: number;
  /** Σ(v − p) over sales, v the buying buyer's value for the product it bought. */
  buyerSurplus: number;
  /** Seller surplus / optimal welfare; null when the optimal welfare is 0. */
  extraction: number | null;
  /** Realised welfare / optimal welfare; null when the optimal welfare is 0. */
  allocationQuality: number | null;
  /** Welfare Σ(v − c) of the maximum-weight matching of buyers to units. */
  optimalWelfare: number;
  /** Σ(v − c) over sales: seller surplus + buyer surplus. */
  realisedWelfare: number;
  /** Units sold / units in stock at the start. */
  sellThrough: number;
  /** Seller turns taken (moves and forfeits) / budget. */
  budgetUsed: number;
  sales: number;
  /** Every turn taken, the seller's and the buyers'. */
  turnsUsed: number;
  seller: SeatTally;
  buyer: SeatTally;
}

/** The realised allocation: each accepted offer is a sale at the offer's price (in cents). */
export function salesOf(events: readonly MarketEvent[]): Sale[] {
  const sales: Sale[] = [];
  let offer: SellerMove | null = null;
  for (const e of events) {
    if (e.type !== 'move') continue;
    if (e.actor === 'seller') offer = e.move as SellerMove;
    else if ((e.move as BuyerMove).response.type === 'accept' && offer !== null)
      sales.push({ buyer: offer.buyer, product: offer.product, price: roundCents(offer.price), turn: e.turn });
  }
  return sales;
}

/**
 * The metrics of one market from its event log. `optimalWelfare` may be passed in when the same
 * scenario is scored for several sellers (it depends on the scenario alone).
 */
export function computeMarketMetrics(
  scenario: MarketScenario,
  events: readonly MarketEvent[],
  optimalWelfare: number = optimalAllocation(scenario).welfare,
): MarketMetrics {
  const seller = emptySeatTally();
  const buyer = emptySeatTally();
  const productIndex = new Map(scenario.products.map((p, j) => [p.id, j]));
  const buyerIndex = new Map(scenario.buyers.map((b, i) => [b.id, i]));
  let outcome: MarketResultKind | null = null;
  let turnsUsed = 0;
  for (const e of events) {
    if (e.type === 'end') {
      outcome = e.outcome.kind;
      turnsUsed = e.turn;
      continue;
    }
    countSeatEvent(e.actor === 'seller' ? seller : buyer, e);
  }
  const sales = salesOf(events);
  let sellerSurplus = 0;
  let buyerSurplus = 0;
  for (const sale of sales) {
    const j = productIndex.get(sale.product) as number;
    const value = (scenario.buyers[buyerIndex.get(sale.buyer) as number] as MarketScenario['buyers'][number]).values[j] as number;
    sellerSurplus += sale.price - (scenario.products[j] as MarketScenario['products'][number]).cost;
    buyerSurplus += value - sale.price;
  }
  if (outcome === null) throw new Error('metrics of a market log without an end');
  const attempts = seller.moves + seller.invalidMoves;
  sellerSurplus = roundCents(sellerSurplus);
  buyerSurplus = roundCents(buyerSurplus);
  const realisedWelfare = roundCents(sellerSurplus + buyerSurplus);
  const optimal = roundCents(optimalWelfare);
  return {
    outcome,
    constraintAdherence: attempts === 0 ? 1 : seller.moves / attempts,
    sellerSurplus,
    buyerSurplus,
    extraction: optimal > 0 ? sellerSurplus / optimal : null,
    allocationQuality: optimal > 0 ? realisedWelfare / optimal : null,
    optimalWelfare: optimal,
    realisedWelfare,
    sellThrough: sales.length / totalStock(scenario),
    budgetUsed: (seller.moves + seller.forfeits) / scenario.budget,
    sales: sales.length,
    turnsUsed,
    seller,
    buyer,
  };
}

/** The metric names the issue and the CLI's JSON use, in that order. */
export const MARKET_METRIC_NAMES = [
  'constraintAdherence',
  'sellerSurplus',
  'buyerSurplus',
  'extraction',
  'allocationQuality',
  'optimalWelfare',
  'realisedWelfare',
  'sellThrough',
  'budgetUsed',
] as const satisfies readonly (keyof MarketMetrics)[];
export type MarketMetricName = (typeof MARKET_METRIC_NAMES)[number];
