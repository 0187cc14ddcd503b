/** Scripted sellers: the baselines a market seller is measured against. */
import { maxWeightMatching } from '../matching';
import { sellerMove, type SellerMove } from '../moves';
import type { MarketEntry, ProductView, SellerObservation } from '../protocol';
import { roundCents } from '../../../engine/money';
import type { MarketStrategyDef } from './types';
import type { ParamInfo } from '../../../agents/specs';
import { activeBuyers, askAtLeastCost, bestCounter, inStock, offerCounts, pairKey, sellerAgent, takeableCounters } from './policy';

const floorParam = (value: number): ParamInfo => ({
  default: value,
  min: 0,
  max: 5,
  doc: "least margin over cost, as a fraction of cost, at which a buyer's standing counter is taken",
});
const stepParam = (value: number): ParamInfo => ({
  default: value,
  min: 0,
  max: 0.9,
  doc: 'fraction the price drops each time the same buyer is offered the same product again',
});

/** The (product, buyer) pair offered least often so far, products in the given order, then buyers in theirs. */
function leastOffered(obs: SellerObservation, products: readonly ProductView[]): { product: ProductView; buyer: string; count: number } {
  const counts = offerCounts(obs.history);
  const buyers = activeBuyers(obs);
  let best: { product: ProductView; buyer: string; count: number } | null = null;
  for (const product of products)
    for (const buyer of buyers) {
      const count = counts.get(pairKey(buyer, product.id)) ?? 0;
      if (best === null || count < best.count) best = { product, buyer, count };
      if (count === 0) return best;
    }
  // The market ends when no buyer or no stock is left, so a seller always has a pair to offer.
  if (best === null) throw new Error('a seller turn with no buyer or no stock');
  return best;
}

export const catalogSeller: MarketStrategyDef = {
  name: 'catalog',
  role: 'seller',
  summary: 'Walks the catalog in order and offers each product at list price to every buyer in turn; never bargains (the baseline).',
  params: { discount: { default: 0, min: 0, max: 0.9, doc: 'fraction off list price it asks' } },
  deterministic: true,
  rational: true,
  create(p) {
    const discount = p.discount as number;
    return sellerAgent((obs) => {
      const { product, buyer } = leastOffered(obs, inStock(obs));
      return sellerMove(buyer, product.id, askAtLeastCost(product, product.listPrice * (1 - discount)), `${product.name} at our list price.`);
    });
  },
};

export const greedySeller: MarketStrategyDef = {
  name: 'greedy',
  role: 'seller',
  summary:
    'Sells the dearest product in stock first: offers it at list price to each buyer, a step lower on each repeat; takes any standing counter above its floor.',
  params: { step: stepParam(0.1), floor: floorParam(0.05) },
  deterministic: true,
  rational: true,
  create(p) {
    const step = p.step as number;
    const floor = p.floor as number;
    return sellerAgent((obs) => {
      const counter = bestCounter(obs, floor);
      if (counter) return sellerMove(counter.buyer, counter.product, counter.price, 'Deal at the price you named.');
      const byList = inStock(obs).sort((a, b) => b.listPrice - a.listPrice);
      const { product, buyer, count } = leastOffered(obs, byList.slice(0, 1));
      return sellerMove(buyer, product.id, askAtLeastCost(product, product.listPrice * (1 - step) ** count), `Our finest: ${product.name}.`);
    });
  },
};

/**
 * Each buyer's willingness to pay as a multiple of list price, from its answers so far: a counter
 * at c shows it would pay about c (and more, by `uplift`), a refusal at p that it would not pay p.
 */
function tasteEstimates(obs: SellerObservation, uplift: number): Map<string, number> {
  const listOf = new Map(obs.products.map((p) => [p.id, p.listPrice]));
  const lo = new Map<string, number>();
  const hi = new Map<string, number>();
  let offer: Extract<MarketEntry, { kind: 'offer' }> | null = null;
  for (const e of obs.history) {
    if (e.kind === 'offer') offer = e;
    if (e.kind !== 'answer' || offer === null) continue;
    const list = listOf.get(e.product) as number;
    const asked = offer.price / list;
    if (e.response.type === 'accept') continue;
    hi.set(e.buyer, Math.min(hi.get(e.buyer) ?? Infinity, asked));
    if (e.response.type === 'counter') lo.set(e.buyer, Math.max(lo.get(e.buyer) ?? 0, e.response.price / list));
  }
  const estimates = new Map<string, number>();
  for (const b of obs.buyers) {
    const l = lo.get(b.id);
    const h = hi.get(b.id);
    estimates.set(b.id, l !== undefined ? Math.min(l * uplift, h === undefined ? Infinity : (l + h) / 2) : h !== undefined ? h * 0.8 : 1);
  }
  return estimates;
}

export const exploreSeller: MarketStrategyDef = {
  name: 'explore',
  role: 'seller',
  summary:
    'Explore, then exploit: probes each buyer once above list price to read its willingness to pay, then matches buyers to products by those estimates (a maximum-weight matching) and asks a little under each estimate.',
  params: {
    probe: { default: 1.2, min: 0.5, max: 5, doc: 'probing price as a multiple of list price' },
    explore: { default: 0.5, min: 0, max: 1, doc: 'most of the budget spent probing' },
    uplift: { default: 1.25, min: 1, max: 3, doc: "how far above a buyer's counter its willingness to pay is guessed to be" },
    shade: { default: 0.05, min: 0, max: 0.9, doc: 'fraction below the estimate it asks' },
    step: stepParam(0.1),
    floor: floorParam(0.05),
  },
  deterministic: true,
  rational: true,
  create(p) {
    const probe = p.probe as number;
    const explore = p.explore as number;
    const uplift = p.uplift as number;
    const shade = p.shade as number;
    const step = p.step as number;
    const floor = p.floor as number;
    return sellerAgent((obs): SellerMove => {
      const stock = inStock(obs).sort((a, b) => b.listPrice - a.listPrice);
      const counts = offerCounts(obs.history);
      const approached = new Set(obs.history.flatMap((e) => (e.kind === 'offer' ? [e.buyer] : [])));
      const active = activeBuyers(obs);
      const unprobed = active.filter((b) => !approached.has(b));
      if (unprobed.length > 0 && obs.turnsUsed < explore * obs.budget) {
        const product = stock[approached.size % stock.length] as ProductView;
        return sellerMove(
          unprobed[0] as string,
          product.id,
          askAtLeastCost(product, product.listPrice * probe),
          `Tell me what ${product.name} is worth to you.`,
        );
      }
      // Standing counters are sure sales but cheap ones: closed only when the turns left are too few to do better.
      const sure = takeableCounters(obs, floor);
      if (sure > 0 && obs.turnsLeft <= sure) {
        const counter = bestCounter(obs, floor) as NonNullable<ReturnType<typeof bestCounter>>;
        return sellerMove(counter.buyer, counter.product, counter.price, 'Deal at the price you named.');
      }
      const taste = tasteEstimates(obs, uplift);
      const weights = active.map((b) => stock.map((product) => (taste.get(b) as number) * product.listPrice - product.cost));
      const { pairs } = maxWeightMatching(weights);
      let best: { buyer: string; product: ProductView; weight: number } | null = null;
      for (const [i, j] of pairs) {
        const weight = (weights[i] as number[])[j] as number;
        if (best === null || weight > best.weight) best = { buyer: active[i] as string, product: stock[j] as ProductView, weight };
      }
      if (best === null) {
        // No buyer seems to value anything above cost: offer the dearest product near cost to whoever was asked least.
        const product = stock[0] as ProductView;
        const buyer = [...active].sort((a, b) => (counts.get(pairKey(a, product.id)) ?? 0) - (counts.get(pairKey(b, product.id)) ?? 0))[0] as string;
        return sellerMove(buyer, product.id, askAtLeastCost(product, product.cost * (1 + floor)), `${product.name}, close to cost.`);
      }
      const { buyer, product } = best;
      const k = counts.get(pairKey(buyer, product.id)) ?? 0;
      const target = askAtLeastCost(product, (taste.get(buyer) as number) * product.listPrice * (1 - shade) * (1 - step) ** k);
      const standing = obs.counters.find((c) => c.buyer === buyer && c.product === product.id);
      if (standing && standing.price >= target) return sellerMove(buyer, product.id, standing.price, 'Deal at the price you named.');
      return sellerMove(buyer, product.id, target, `${product.name} suits you, I think.`);
    });
  },
};

export const randomSeller: MarketStrategyDef = {
  name: 'random',
  role: 'seller',
  summary:
    'Random moves, some of them refused: any buyer (served or not, now and then an unknown id), any product (in stock or not), 0.3× to 1.7× list price. The baseline for constraint adherence.',
  params: { unknown: { default: 0.05, min: 0, max: 1, doc: 'chance of naming a buyer that does not exist' } },
  deterministic: false,
  rational: false,
  create(p, { rng }) {
    const unknown = p.unknown as number;
    return sellerAgent((obs) => {
      const product = rng.pick(obs.products);
      const buyer = rng.next() < unknown ? 'b0' : rng.pick(obs.buyers).id;
      return sellerMove(buyer, product.id, roundCents(product.listPrice * rng.uniform(0.3, 1.7)), 'How about this?');
    });
  },
};
