/** Small pieces the scripted market strategies share: reading the history, pricing, replying. */
import type { BuyerMove, SellerMove } from '../moves';
import type { BuyerObservation, MarketEntry, ProductView, SellerObservation, StandingCounter } from '../protocol';
import type { MarketAgent } from '../tournament';
import type { AgentReply } from '../../../engine/session';

type Reply = AgentReply<SellerMove | BuyerMove>;

const wrongSeat = (seat: string): Reply => ({ kind: 'invalid', reason: `a ${seat} strategy was asked to play the other seat`, raw: '' });

/** A seller agent from a function of the seller's observation. */
export const sellerAgent = (decide: (obs: SellerObservation) => SellerMove): MarketAgent => ({
  act: (obs) => (obs.role === 'seller' ? { kind: 'move', move: decide(obs) } : wrongSeat('seller')),
});

/** A buyer agent from a function of the addressed buyer's observation. */
export const buyerAgent = (decide: (obs: BuyerObservation) => BuyerMove): MarketAgent => ({
  act: (obs) => (obs.role === 'buyer' ? { kind: 'move', move: decide(obs) } : wrongSeat('buyer')),
});

/** Cents, rounded up: a price at or above `x`. */
export const ceilCents = (x: number): number => Math.ceil(Math.round(x * 1e6) / 1e4) / 100;
/** Cents, rounded down: a price at or below `x`. */
export const floorCents = (x: number): number => Math.floor(Math.round(x * 1e6) / 1e4) / 100;

/** The price to ask: `target`, never below cost, in cents. */
export const askAtLeastCost = (product: ProductView, target: number): number => ceilCents(Math.max(product.cost, target));

/** How often each (buyer, product) pair has been offered, keyed `buyer|product`. */
export function offerCounts(history: readonly MarketEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of history) if (e.kind === 'offer') counts.set(pairKey(e.buyer, e.product), (counts.get(pairKey(e.buyer, e.product)) ?? 0) + 1);
  return counts;
}

export const pairKey = (buyer: string, product: string): string => `${buyer}|${product}`;

/**
 * The best standing counter the seller can take: an active buyer's counter for an in-stock product
 * at least `floor` above cost, the one with the largest margin over cost. An offer at that price is
 * a sure sale (a counter binds its buyer).
 */
/** How many active buyers have a standing counter the seller could take (at least `floor` above cost, product in stock). */
export function takeableCounters(obs: SellerObservation, floor: number): number {
  const buyers = new Set<string>();
  for (const c of takeable(obs, floor)) buyers.add(c.buyer);
  return buyers.size;
}

function takeable(obs: SellerObservation, floor: number): StandingCounter[] {
  const active = new Set(obs.buyers.filter((b) => b.active).map((b) => b.id));
  const products = new Map(obs.products.map((p) => [p.id, p]));
  return obs.counters.filter((c) => {
    const p = products.get(c.product);
    return p !== undefined && p.stock > 0 && active.has(c.buyer) && c.price >= p.cost * (1 + floor);
  });
}

export function bestCounter(obs: SellerObservation, floor: number): StandingCounter | null {
  const cost = new Map(obs.products.map((p) => [p.id, p.cost]));
  let best: StandingCounter | null = null;
  for (const c of takeable(obs, floor))
    if (best === null || c.price - (cost.get(c.product) as number) > best.price - (cost.get(best.product) as number)) best = c;
  return best;
}

export const inStock = (obs: SellerObservation): ProductView[] => obs.products.filter((p) => p.stock > 0);
export const activeBuyers = (obs: SellerObservation): string[] => obs.buyers.filter((b) => b.active).map((b) => b.id);
