import { describe, expect, it } from 'vitest';
import type { BilateralEvent, BilateralResult } from '../../../src/games/bilateral/events';
import { ACCEPT, REJECT, WALK_AWAY, offer, say, type Move } from '../../../src/games/bilateral/moves';
import { bilateral } from '../../../src/games/bilateral/protocol';
import { DEFAULT_REWARD_WEIGHTS, REWARD_TERMS, bilateralReward } from '../../../src/games/bilateral/reward';
import { runSession } from '../../../src/engine/session';
import type { Role } from '../../../src/games/bilateral/scenario';
import { replay, scenario } from './helpers';

// v = 150, c = 90, list price 200: v − c = 60. The seller moves at even turns.
const SCN = scenario();
const NO_GFT = scenario({ buyerValue: 80, sellerCost: 100 });
const actorAt = (turn: number): Role => (turn % 2 === 0 ? 'seller' : 'buyer');

type Step = Move | 'forfeit' | { invalid: string };

/** A log from turns taken in order, seller first; an `invalid` entry is a refused answer within the turn that follows. */
function log(steps: Step[], outcome: BilateralResult): BilateralEvent[] {
  const events: BilateralEvent[] = [];
  let turn = 0;
  let attempt = 0;
  for (const s of steps) {
    const actor = actorAt(turn);
    if (s !== 'forfeit' && 'invalid' in s) {
      events.push({ type: 'invalid', turn, actor, attempt: attempt++, reason: s.invalid, raw: '?' });
      continue;
    }
    events.push(s === 'forfeit' ? { type: 'forfeit', turn, actor } : { type: 'move', turn, actor, move: s as Move });
    turn++;
    attempt = 0;
  }
  events.push({ type: 'end', turn, outcome });
  return events;
}

const deal = (price: number, turn: number, acceptedBy: Role): BilateralResult => ({ kind: 'deal', price, turn, acceptedBy });

describe('bilateralReward: each term by hand', () => {
  it('surplus: the seat share of v − c on a deal, with nothing else', () => {
    // Seller asks 180, buyer bids 100, seller 130, buyer accepts 130: buyer 20/60, seller 40/60.
    const events = log([offer(180), offer(100), offer(130), ACCEPT], deal(130, 4, 'buyer'));
    const buyer = bilateralReward(SCN, events, 'buyer');
    expect(buyer.terms).toEqual({ compliance: 0, consistency: 0, surplus: 20 / 60, irPenalty: 0, walkAwayCredit: 0 });
    expect(buyer.total).toBeCloseTo(1 / 3, 12);
    expect(buyer.counts).toEqual({ invalidMoves: 0, retreats: 0, crossings: 0, share: 20 / 60, irViolation: false, walkedAwayWithoutGains: false });
    const seller = bilateralReward(SCN, events, 'seller');
    expect(seller.terms.surplus).toBeCloseTo(40 / 60, 12);
    expect(seller.total).toBeCloseTo(2 / 3, 12);
  });

  it('compliance: 0.1 per invalid answer of the seat, none for the other side', () => {
    // The buyer has two refused answers at turn 1, the seller one at turn 2; no deal (turn limit).
    const events = log([offer(180), { invalid: 'not JSON' }, { invalid: 'no price' }, offer(100), { invalid: 'empty' }, offer(170)], {
      kind: 'turn_limit',
      turn: 3,
    });
    const buyer = bilateralReward(SCN, events, 'buyer');
    expect(buyer.counts.invalidMoves).toBe(2);
    expect(buyer.terms.compliance).toBeCloseTo(-0.2, 12);
    expect(buyer.total).toBeCloseTo(-0.2, 12);
    expect(bilateralReward(SCN, events, 'seller').terms.compliance).toBeCloseTo(-0.1, 12);
  });

  it('a forfeit costs only the three refused answers before it', () => {
    const events = log([offer(180), { invalid: 'a' }, { invalid: 'b' }, { invalid: 'c' }, 'forfeit', offer(175)], { kind: 'turn_limit', turn: 3 });
    expect(bilateralReward(SCN, events, 'buyer').terms.compliance).toBeCloseTo(-0.3, 12);
  });

  it('consistency: a buyer bid that goes down and a seller ask that goes up are retreats', () => {
    // Buyer 100 → 95 (retreat) → 110; seller 180 → 185 (retreat) → 170 → 175 (retreat).
    const events = log([offer(180), offer(100), offer(185), offer(95), offer(170), offer(110), offer(175)], { kind: 'turn_limit', turn: 7 });
    const buyer = bilateralReward(SCN, events, 'buyer');
    expect(buyer.counts.retreats).toBe(1);
    expect(buyer.counts.crossings).toBe(0);
    expect(buyer.terms.consistency).toBeCloseTo(-0.1, 12);
    const seller = bilateralReward(SCN, events, 'seller');
    expect(seller.counts.retreats).toBe(2);
    expect(seller.terms.consistency).toBeCloseTo(-0.2, 12);
    expect(seller.total).toBeCloseTo(-0.2, 12);
  });

  it('consistency: naming a price worse than the one on the table is a crossing; after a reject it is not', () => {
    // Seller asks 120; the buyer bids 125 though it could take 120 (a crossing, not a retreat: its first bid).
    const crossed = log([offer(120), offer(125), ACCEPT], deal(125, 3, 'seller'));
    const buyer = bilateralReward(SCN, crossed, 'buyer');
    expect(buyer.counts).toMatchObject({ retreats: 0, crossings: 1 });
    expect(buyer.terms.consistency).toBeCloseTo(-0.1, 12);
    expect(buyer.terms.surplus).toBeCloseTo(25 / 60, 12);
    expect(buyer.total).toBeCloseTo(25 / 60 - 0.1, 12);
    // The seller's own accept at the buyer's price is no crossing of the seller's.
    expect(bilateralReward(SCN, crossed, 'seller').counts.crossings).toBe(0);
    // A message-only turn leaves the ask on the table; a reject clears it.
    const talked = log([offer(120), say('hm'), say('well?'), offer(125)], { kind: 'turn_limit', turn: 4 });
    expect(bilateralReward(SCN, talked, 'buyer').counts.crossings).toBe(1);
    const rejected = log([offer(120), REJECT, say('your move'), offer(125)], { kind: 'turn_limit', turn: 4 });
    expect(bilateralReward(SCN, rejected, 'buyer').counts.crossings).toBe(0);
    // A seller asking below the buyer's standing bid crosses too.
    const sellerCrossed = log([offer(150), offer(100), offer(95)], { kind: 'turn_limit', turn: 3 });
    expect(bilateralReward(SCN, sellerCrossed, 'seller').counts).toMatchObject({ retreats: 0, crossings: 1 });
  });

  it('an offer that is both a retreat and a crossing counts twice', () => {
    // Buyer bids 100, seller asks 98 (a crossing of the seller's), buyer bids 99: lower than its 100 (retreat) and above 98 (crossing).
    const events = log([say('hello'), offer(100), offer(98), offer(99)], { kind: 'turn_limit', turn: 4 });
    const buyer = bilateralReward(SCN, events, 'buyer');
    expect(buyer.counts).toMatchObject({ retreats: 1, crossings: 1 });
    expect(buyer.terms.consistency).toBeCloseTo(-0.2, 12);
    expect(bilateralReward(SCN, events, 'seller').counts).toMatchObject({ retreats: 0, crossings: 1 });
  });

  it('irPenalty: a deal at a loss costs 1 and earns no surplus; the other side share is capped at 1', () => {
    // The buyer accepts 160 > v = 150: utility −10; the zone is all the seller’s (shares 0 and 1).
    const events = log([offer(160), ACCEPT], deal(160, 2, 'buyer'));
    const buyer = bilateralReward(SCN, events, 'buyer');
    expect(buyer.counts.share).toBe(0);
    expect(buyer.counts.irViolation).toBe(true);
    expect(buyer.terms).toEqual({ compliance: 0, consistency: 0, surplus: 0, irPenalty: -1, walkAwayCredit: 0 });
    expect(buyer.total).toBe(-1);
    const seller = bilateralReward(SCN, events, 'seller');
    expect(seller.counts.share).toBe(1);
    expect(seller.terms.surplus).toBe(1);
    expect(seller.terms.irPenalty).toBe(0);
  });

  it('without gains from trade: accepting at a loss scores −1, walking away +0.5, the clock running out 0', () => {
    // v = 80, c = 100. The seller asks 90 (below its cost) and the buyer accepts: the seller loses 10.
    const accepted = log([offer(90), ACCEPT], deal(90, 2, 'buyer'));
    const seller = bilateralReward(NO_GFT, accepted, 'seller');
    expect(seller.terms).toEqual({ compliance: 0, consistency: 0, surplus: 0, irPenalty: -1, walkAwayCredit: 0 });
    // The buyer gained 80 − 90 = −10 too: both lose when the price is between neither.
    expect(bilateralReward(NO_GFT, accepted, 'buyer').total).toBe(-1);
    const walked = log([offer(130), WALK_AWAY], { kind: 'walk_away', by: 'buyer', turn: 2 });
    const buyer = bilateralReward(NO_GFT, walked, 'buyer');
    expect(buyer.terms).toEqual({ compliance: 0, consistency: 0, surplus: 0, irPenalty: 0, walkAwayCredit: 0.5 });
    expect(buyer.counts.walkedAwayWithoutGains).toBe(true);
    // Only the side that walked away is credited.
    expect(bilateralReward(NO_GFT, walked, 'seller').total).toBe(0);
    expect(bilateralReward(NO_GFT, log([offer(130), offer(60)], { kind: 'turn_limit', turn: 2 }), 'buyer').total).toBe(0);
    // Walking away with gains from trade earns nothing.
    expect(bilateralReward(SCN, walked, 'buyer').total).toBe(0);
  });

  it('weights scale each term; a log without an end is a bug', () => {
    const events = log([offer(180), { invalid: 'x' }, offer(100), offer(130), ACCEPT], deal(130, 4, 'buyer'));
    const r = bilateralReward(SCN, events, 'buyer', { invalidMove: 0.5, surplus: 3 });
    expect(r.terms.compliance).toBeCloseTo(-0.5, 12);
    expect(r.terms.surplus).toBeCloseTo(1, 12);
    expect(r.total).toBeCloseTo(0.5, 12);
    expect(() => bilateralReward(SCN, events.slice(0, -1), 'buyer')).toThrow(/without an end/);
    expect(DEFAULT_REWARD_WEIGHTS).toEqual({ invalidMove: 0.1, inconsistency: 0.1, surplus: 1, irViolation: 1, walkAwayNoGft: 0.5 });
  });

  it('scores a log the session runner wrote, and its terms always sum to the total', async () => {
    const record = await runSession(bilateral, SCN, {
      seller: replay([offer(180), offer(185), offer(140)]),
      buyer: replay([{ kind: 'invalid', reason: 'bad', raw: 'x' }, offer(100), offer(120), ACCEPT]),
    });
    // Seller 180 → 185 (retreat) → 140; buyer: one invalid answer, 100 → 120, accepts 140: buyer share 10/60.
    const buyer = bilateralReward(SCN, record.events, 'buyer');
    expect(buyer.counts).toMatchObject({ invalidMoves: 1, retreats: 0, crossings: 0 });
    expect(buyer.total).toBeCloseTo(10 / 60 - 0.1, 12);
    const seller = bilateralReward(SCN, record.events, 'seller');
    expect(seller.counts.retreats).toBe(1);
    expect(seller.total).toBeCloseTo(50 / 60 - 0.1, 12);
    for (const r of [buyer, seller]) expect(REWARD_TERMS.reduce((sum, k) => sum + r.terms[k], 0)).toBeCloseTo(r.total, 12);
  });
});
