/**
 * The one-loop reference for `npm run bench`: the same round-robin of the six deterministic
 * strategies (default parameters) on the same scenarios, played as plain arithmetic in one loop,
 * with no agents, observations, events or metrics. It is the ceiling the engine is measured
 * against, and it must reach the same deals at the same prices (the bench checks that), so it is a
 * faithful copy of the strategies' rules, not a toy.
 */
import { roundCents, type Scenario } from '../core/scenario';
import { turnsFor } from '../core/bilateral/protocol';

export const REFERENCE_STRATEGIES = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator'] as const;
type Name = (typeof REFERENCE_STRATEGIES)[number];

interface Rules {
  anchor: number;
  beta: number;
  kappa: number;
  /** 0: time-dependent, 1: tit-for-tat, 2: hardliner. */
  offer: 0 | 1 | 2;
  acceptAny: boolean;
}

const RULES: Record<Name, Rules> = {
  boulware: { anchor: 0.4, beta: 0.2, kappa: 0, offer: 0, acceptAny: false },
  linear: { anchor: 0.4, beta: 1, kappa: 0, offer: 0, acceptAny: false },
  conceder: { anchor: 0.4, beta: 5, kappa: 0, offer: 0, acceptAny: false },
  'tit-for-tat': { anchor: 0.4, beta: 1, kappa: 0, offer: 1, acceptAny: false },
  hardliner: { anchor: 0.1, beta: 1, kappa: 0, offer: 2, acceptAny: false },
  accommodator: { anchor: 0.15, beta: 5, kappa: 0.3, offer: 0, acceptAny: true },
};
const TFT_STEP = 0.05;

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
  const counts = [0, 0];
  let pendingBy = -1; // 0 buyer, 1 seller
  let pending = 0;
  let lastWasOffer = false;
  for (let turn = 0; turn < limit; turn++) {
    const seller = (turn % 2 === 0) === (s.firstMover === 'seller') ? 1 : 0;
    const rules = seller ? sellerRules : buyerRules;
    const role = seller ? 'seller' : 'buyer';
    const r = seller ? s.sellerCost : s.buyerValue;
    const ownTurn = s.firstMover === role ? Math.ceil(turn / 2) : Math.floor(turn / 2);
    const ownTurns = turnsFor(role, s.firstMover, sure);
    const last = ownTurn >= ownTurns - 1;
    const margin = rules.anchor * list;
    let start = seller ? r + margin : r - margin;
    if (!seller && start < 0.01) start = Math.min(0.01, r);
    let target: number;
    if (rules.offer === 2) target = start;
    else if (rules.offer === 0) {
      const time = ownTurns <= 1 ? 1 : Math.min(1, ownTurn / (ownTurns - 1));
      target = start + (rules.kappa + (1 - rules.kappa) * time ** (1 / rules.beta)) * (r - start);
    } else {
      const own = offers[seller] as Float64Array;
      const opp = offers[1 - seller] as Float64Array;
      const nOwn = counts[seller] as number;
      const nOpp = counts[1 - seller] as number;
      if (last) target = r;
      else if (nOwn === 0) target = start;
      else {
        const myLast = own[nOwn - 1] as number;
        let next: number;
        if (nOpp < 2) next = myLast + TFT_STEP * (r - start);
        else if (lastWasOffer) next = (myLast * (opp[nOpp - 2] as number)) / (opp[nOpp - 1] as number);
        else next = myLast;
        const lo = start < r ? start : r;
        const hi = start < r ? r : start;
        target = next < lo ? lo : next > hi ? hi : next;
      }
    }
    // rationalPrice
    let price: number;
    if (seller) {
      price = roundCents(target > r ? target : r);
      if (price < r) price = roundCents(price + 0.01);
      if (price < 0.01) price = 0.01;
    } else {
      price = roundCents(target < r ? target : r);
      if (price > r) price = roundCents(price - 0.01);
      if (price < 0.01) price = NaN;
    }
    const offered = pendingBy === 1 - seller;
    if (offered) {
      const within = seller ? pending >= r : pending <= r;
      const next = Number.isNaN(price) ? r : price;
      const good = seller ? pending >= next : pending <= next;
      if (within && (rules.acceptAny || good)) return pending;
    }
    if (Number.isNaN(price) || (rules.offer === 2 && known && last)) return NaN; // walks away
    const own = offers[seller] as Float64Array;
    own[counts[seller] as number] = price;
    counts[seller] = (counts[seller] as number) + 1;
    pendingBy = seller;
    pending = price;
    lastWasOffer = true;
  }
  return NaN;
}
