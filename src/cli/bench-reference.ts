/**
 * The one-loop reference for `npm run bench`: the same round-robin of the seven deterministic
 * strategies (default parameters) on the same scenarios, played as plain arithmetic in one loop,
 * with no agents, observations, events or metrics. It is the ceiling the engine is measured
 * against, and it must reach the same deals at the same prices (the bench checks that), so it is a
 * faithful copy of the strategies' rules, not a toy.
 */
import { priceRangeOf, type Scenario } from '../games/bilateral/scenario';
import { roundCents } from '../engine/money';
import { turnsFor } from '../games/bilateral/protocol';
import { conceded } from '../games/bilateral/strategies/policy';

export const REFERENCE_STRATEGIES = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler'] as const;
type Name = (typeof REFERENCE_STRATEGIES)[number];

/** 0: time-based (NegMAS's clock, range and cents), 1: tit-for-tat, 2: hardliner, 3: haggler. */
interface Rules {
  offer: 0 | 1 | 2 | 3;
  beta: number;
  kappa: number;
  acceptAny: boolean;
}

const RULES: Record<Name, Rules> = {
  boulware: { offer: 0, beta: 0.25, kappa: 0, acceptAny: false },
  linear: { offer: 0, beta: 1, kappa: 0, acceptAny: false },
  conceder: { offer: 0, beta: 4, kappa: 0, acceptAny: false },
  'tit-for-tat': { offer: 1, beta: 1, kappa: 0, acceptAny: false },
  hardliner: { offer: 2, beta: 1, kappa: 0, acceptAny: false },
  accommodator: { offer: 0, beta: 10, kappa: 0, acceptAny: true },
  haggler: { offer: 3, beta: 1, kappa: 0, acceptAny: false },
};
const TFT_STEP = 0.15;
const HARDLINER_ANCHOR = 0.1;
const HAGGLER_STEP = 5;
const TOLERANCE = 1e-4 / 0.99;
const cents = (dollars: number): number => Math.round(dollars * 1e8) / 1e6;

/** A deal's price, or NaN for no deal. */
export type ReferenceOutcome = number;

/**
 * Plays `count` scenarios, each made by `scenarioOf` inside the timed loop, as the engine's plan makes
 * its own: both sides pay for the scenarios, so the ratio compares playing them.
 */
export function playReference(count: number, scenarioOf: (k: number) => Scenario, agents: readonly Name[], out: ReferenceOutcome[]): number {
  const offers = [new Float64Array(1024), new Float64Array(1024)]; // buyer's, seller's
  let played = 0;
  for (let k = 0; k < count; k++) {
    const s = scenarioOf(k);
    for (let b = 0; b < agents.length; b++)
      for (let t = 0; t < agents.length; t++) {
        if (b === t) continue;
        out.push(negotiate(s, RULES[agents[b] as Name], RULES[agents[t] as Name], offers));
        played++;
      }
  }
  return played;
}

function negotiate(s: Scenario, buyerRules: Rules, sellerRules: Rules, offers: Float64Array[]): ReferenceOutcome {
  const list = s.item.listPrice;
  const limit = s.turnLimit;
  const known = s.turnRange === undefined;
  const sure = known ? limit : s.turnRange!.min;
  const horizon = known ? limit : (s.turnRange!.min + s.turnRange!.max) / 2;
  const { lo, hi } = priceRangeOf(s);
  const tol = TOLERANCE * (hi - lo);
  const counts = [0, 0];
  let pendingBy = -1; // 0 buyer, 1 seller
  let pending = 0;
  let lastWasOffer = false;
  for (let turn = 0; turn < limit; turn++) {
    const seller = (turn % 2 === 0) === (s.firstMover === 'seller') ? 1 : 0;
    const rules = seller ? sellerRules : buyerRules;
    const role = seller ? 'seller' : 'buyer';
    const r = seller ? s.sellerCost : s.buyerValue;
    const start = seller ? (hi > r ? hi : r) : lo < r ? lo : r;
    let target: number;
    let price: number;
    if (rules.offer === 0) {
      const t0 = (turn + 1) / (horizon + 1);
      const time = t0 < 1 ? t0 : 1;
      // t^(1/β) as the strategies work it out (the same arithmetic, so the same prices)
      target = start + (rules.kappa + (1 - rules.kappa) * conceded(time, 1 / rules.beta)) * (r - start);
      // worstCentWithin
      if (seller) {
        const p = Math.ceil(cents(target - tol)) / 100;
        const floor = Math.ceil(cents(r)) / 100;
        price = p > floor ? p : floor;
        if (price < 0.01) price = 0.01;
      } else {
        const ceiling = Math.floor(cents(r)) / 100;
        if (ceiling < 0.01) price = NaN;
        else {
          const p = Math.floor(cents(target + tol)) / 100;
          price = p < ceiling ? p : ceiling;
          if (price < 0.01) price = 0.01;
        }
      }
    } else {
      if (rules.offer === 2) {
        const margin = HARDLINER_ANCHOR * list;
        target = seller ? r + margin : r - margin;
        if (!seller && target < 0.01) target = Math.min(0.01, r);
      } else if (rules.offer === 3) {
        const given = (HAGGLER_STEP * (turn + 1)) / 2;
        target = seller ? (start - given > r ? start - given : r) : start + given < r ? start + given : r;
      } else {
        const own = offers[seller] as Float64Array;
        const opp = offers[1 - seller] as Float64Array;
        const nOwn = counts[seller] as number;
        const nOpp = counts[1 - seller] as number;
        if (nOwn === 0) target = start;
        else {
          const myLast = own[nOwn - 1] as number;
          let next: number;
          if (!lastWasOffer) next = myLast;
          else if (nOpp < 2) next = myLast + TFT_STEP * (r - start);
          else next = myLast - ((opp[nOpp - 1] as number) - (opp[nOpp - 2] as number));
          const a = start < r ? start : r;
          const b = start < r ? r : start;
          target = next < a ? a : next > b ? b : next;
        }
      }
      // rationalPrice
      if (seller) {
        price = roundCents(target > r ? target : r);
        if (price < r) price = roundCents(price + 0.01);
        if (price < 0.01) price = 0.01;
      } else {
        if (r < 0.01) price = NaN;
        else {
          price = roundCents(target < r ? target : r);
          if (price > r) price = roundCents(price - 0.01);
          if (price < 0.01) price = 0.01;
        }
      }
    }
    if (pendingBy === 1 - seller) {
      const within = seller ? pending >= r : pending <= r;
      let take: boolean;
      if (rules.acceptAny) take = within;
      else if (rules.offer === 0) take = within && (seller ? pending >= target - tol : pending <= target + tol);
      else {
        const next = Number.isNaN(price) ? r : price;
        take = within && (seller ? pending >= next : pending <= next);
      }
      if (take) return pending;
    }
    const ownTurn = s.firstMover === role ? Math.ceil(turn / 2) : Math.floor(turn / 2);
    if (Number.isNaN(price) || (rules.offer === 2 && known && ownTurn >= turnsFor(role, s.firstMover, sure) - 1)) return NaN; // walks away
    const own = offers[seller] as Float64Array;
    own[counts[seller] as number] = price;
    counts[seller] = (counts[seller] as number) + 1;
    pendingBy = seller;
    pending = price;
    lastWasOffer = true;
  }
  return NaN;
}
