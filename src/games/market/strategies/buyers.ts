/** Scripted buyers: each buyer of the pool plays the strategy with its own private values. */
import { ACCEPT_OFFER, counterOffer, REJECT_OFFER } from '../moves';
import { hashString } from '../../../engine/rng';
import { roundCents } from '../../../engine/money';
import type { MarketStrategyDef } from './types';
import { buyerAgent, floorCents } from './policy';

/** A number in [0, 1) fixed by the buyer's id: its private draw, the same in every market and seat. */
const draw = (buyer: string): number => hashString(`margin|${buyer}`) / 4294967296;

export const marginBuyer: MarketStrategyDef = {
  name: 'margin',
  role: 'buyer',
  summary:
    'Accepts an offer that leaves it a private margin of its value; otherwise counters, from well below that line up to it, until its patience runs out, then rejects.',
  params: {
    margin: { default: 0.1, min: 0, max: 0.95, doc: 'mean share of its value it keeps as surplus before accepting' },
    spread: { default: 0.5, min: 0, max: 1, doc: "how far each buyer's private margin strays from the mean, as a fraction of it" },
    patience: { default: 2, min: 0, max: 50, doc: 'counters each buyer makes before it only accepts or rejects' },
    opening: { default: 0.3, min: 0, max: 0.99, doc: 'how far below its acceptance line its first counter is, as a fraction of that line' },
  },
  deterministic: true,
  rational: true,
  create(p) {
    const margin = p.margin as number;
    const spread = p.spread as number;
    const patience = p.patience as number;
    const opening = p.opening as number;
    return buyerAgent((obs) => {
      const { price } = obs.offer;
      const standing = obs.standingCounter;
      if (standing !== null && price <= standing) return ACCEPT_OFFER; // a counter binds
      const own = Math.min(0.99, margin * (1 + spread * (2 * draw(obs.buyer) - 1)));
      const line = floorCents(obs.value * (1 - own));
      if (price <= line) return ACCEPT_OFFER;
      const made = obs.countersMade;
      if (made >= patience) return REJECT_OFFER;
      let counter = floorCents(line * (1 - opening * (1 - made / Math.max(1, patience))));
      if (standing !== null && counter < standing) counter = standing;
      return counter >= 0.01 && counter < price ? counterOffer(counter) : REJECT_OFFER;
    });
  },
};

export const randomBuyer: MarketStrategyDef = {
  name: 'random',
  role: 'buyer',
  summary: 'Accepts, rejects or counters at random (a counter 50–99% of the offer), whatever its value; some answers are refused.',
  params: { accept: { default: 0.3, min: 0, max: 1, doc: 'chance of accepting' } },
  deterministic: false,
  rational: false,
  create(p, { rng }) {
    const accept = p.accept as number;
    return buyerAgent((obs) => {
      if (rng.next() < accept) return ACCEPT_OFFER;
      return rng.next() < 0.5 ? REJECT_OFFER : counterOffer(roundCents(obs.offer.price * rng.uniform(0.5, 0.99)));
    });
  },
};
