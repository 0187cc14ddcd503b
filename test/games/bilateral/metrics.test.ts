import { describe, expect, it } from 'vitest';
import type { BilateralEvent, BilateralResult } from '../../../src/games/bilateral/events';
import { computeMetrics, offersOverList, surplusShare, zonePosition } from '../../../src/games/bilateral/metrics';
import { ACCEPT, WALK_AWAY, offer, say, type Move } from '../../../src/games/bilateral/moves';
import { bilateral } from '../../../src/games/bilateral/protocol';
import { runSession } from '../../../src/engine/session';
import type { Role } from '../../../src/games/bilateral/scenario';
import { call, replay, scenario } from './helpers';

// v = 150, c = 90, list price 200: v − c = 60.
const SCN = scenario();
const NO_GFT = scenario({ buyerValue: 80, sellerCost: 100 });

const firstActor = (turn: number): Role => (turn % 2 === 0 ? 'seller' : 'buyer');

/** A log from moves taken in turn (seller first); each entry is a Move or 'forfeit'. */
function log(moves: (Move | 'forfeit')[], outcome: BilateralResult): BilateralEvent[] {
  const events: BilateralEvent[] = moves.map((m, turn) =>
    m === 'forfeit' ? { type: 'forfeit', turn, actor: firstActor(turn) } : { type: 'move', turn, actor: firstActor(turn), move: m },
  );
  events.push({ type: 'end', turn: moves.length, outcome });
  return events;
}

const deal = (price: number, turn: number, acceptedBy: Role = 'buyer'): BilateralResult => ({ kind: 'deal', price, turn, acceptedBy });

describe('computeMetrics: outcome and surplus', () => {
  it('scores a deal with gains from trade: price, utilities, shares that sum to 1', () => {
    const m = computeMetrics(SCN, log([offer(180), offer(100), offer(130), ACCEPT], deal(130, 4)));
    expect(m.gft).toBe(true);
    expect(m.deal).toBe(true);
    expect(m.outcome).toBe('deal');
    expect(m.price).toBe(130);
    expect(m.buyer.utility).toBe(150 - 130);
    expect(m.seller.utility).toBe(130 - 90);
    expect(m.buyer.share).toBeCloseTo(20 / 60, 12);
    expect(m.seller.share).toBeCloseTo(40 / 60, 12);
    expect(m.buyer.share! + m.seller.share!).toBeCloseTo(1, 12);
    expect(m.buyer.irViolation).toBe(false);
    expect(m.seller.irViolation).toBe(false);
    expect(m.turnsUsed).toBe(4);
  });

  it('gives the whole surplus to one side at either end of the zone', () => {
    const atCost = computeMetrics(SCN, log([offer(90), ACCEPT], deal(90, 2)));
    expect(atCost.buyer.share).toBe(1);
    expect(atCost.seller.share).toBe(0);
    expect(atCost.seller.irViolation).toBe(false);
    const atValue = computeMetrics(SCN, log([offer(150), ACCEPT], deal(150, 2)));
    expect(atValue.seller.share).toBe(1);
    expect(atValue.buyer.share).toBe(0);
    expect(atValue.buyer.irViolation).toBe(false);
  });

  it('flags an IR violation for the side a deal leaves with negative utility; shares stay in [0, 1], the excess measured apart', () => {
    // $10 over the buyer's value of 150: the seller has the whole zone (share 1) and $10 beyond it.
    const overpaid = computeMetrics(SCN, log([offer(160), ACCEPT], deal(160, 2)));
    expect(overpaid.buyer.utility).toBe(-10);
    expect(overpaid.seller.utility).toBe(70);
    expect(overpaid.buyer.irViolation).toBe(true);
    expect(overpaid.seller.irViolation).toBe(false);
    expect(overpaid.buyer.share).toBe(0);
    expect(overpaid.seller.share).toBe(1);
    expect(overpaid.buyer.irLoss).toBeCloseTo(10 / 200, 12);
    expect(overpaid.seller.irLoss).toBe(0);
    expect(overpaid.seller.windfall).toBeCloseTo(10 / 200, 12);
    expect(overpaid.buyer.windfall).toBe(0);

    // $5 under the seller's cost of 90: the buyer has the zone and $5 beyond it.
    const underSold = computeMetrics(SCN, log([offer(180), offer(85), ACCEPT], deal(85, 3, 'seller')));
    expect(underSold.seller.utility).toBe(-5);
    expect(underSold.seller.irViolation).toBe(true);
    expect(underSold.buyer.irViolation).toBe(false);
    expect([underSold.buyer.share, underSold.seller.share]).toEqual([1, 0]);
    expect(underSold.seller.irLoss).toBeCloseTo(5 / 200, 12);
    expect(underSold.buyer.windfall).toBeCloseTo(5 / 200, 12);
    expect([underSold.buyer.irLoss, underSold.seller.windfall]).toEqual([0, 0]);
  });

  it('surplusShare moves the price into the zone first, so every share lies in [0, 1]', () => {
    expect(surplusShare(SCN, 130, 'seller')).toBeCloseTo(40 / 60, 12);
    expect(surplusShare(SCN, 130, 'buyer')).toBeCloseTo(20 / 60, 12);
    for (const price of [0.01, 60, 89.99, 90, 120, 150, 150.01, 400]) {
      const seller = surplusShare(SCN, price, 'seller');
      expect(seller).toBeGreaterThanOrEqual(0);
      expect(seller).toBeLessThanOrEqual(1);
      expect(seller + surplusShare(SCN, price, 'buyer')).toBeCloseTo(1, 12);
    }
    expect(zonePosition(SCN, 160)).toBeCloseTo(70 / 60, 12);
    expect(zonePosition(SCN, 85)).toBeCloseTo(-5 / 60, 12);
  });

  it('without gains from trade a deal has no shares, and hurts at least one side', () => {
    const m = computeMetrics(NO_GFT, log([offer(110), ACCEPT], deal(110, 2)));
    expect(m.gft).toBe(false);
    expect(m.deal).toBe(true);
    expect(m.buyer.share).toBeNull();
    expect(m.seller.share).toBeNull();
    expect(m.buyer.utility).toBe(-30);
    expect(m.seller.utility).toBe(10);
    expect(m.buyer.irViolation).toBe(true);
    expect(m.seller.irViolation).toBe(false);
    // The seller's $10 came wholly out of the buyer's $30 loss.
    expect(m.buyer.irLoss).toBeCloseTo(30 / 200, 12);
    expect(m.seller.windfall).toBeCloseTo(10 / 200, 12);
    const cheap = computeMetrics(NO_GFT, log([offer(75), ACCEPT], deal(75, 2)));
    expect(cheap.buyer.irViolation).toBe(false);
    expect(cheap.seller.irViolation).toBe(true);
    expect(cheap.buyer.windfall).toBeCloseTo(5 / 200, 12);
    expect(cheap.seller.irLoss).toBeCloseTo(25 / 200, 12);
    // Any price between v = 80 and c = 100 hurts both sides, and nobody gains from it.
    const both = computeMetrics(NO_GFT, log([offer(90), ACCEPT], deal(90, 2)));
    expect(both.buyer.irViolation && both.seller.irViolation).toBe(true);
    expect([both.buyer.windfall, both.seller.windfall]).toEqual([0, 0]);
    expect(both.buyer.irLoss).toBeCloseTo(10 / 200, 12);
    expect(both.seller.irLoss).toBeCloseTo(10 / 200, 12);
  });

  it('gives zero utility, no shares and no IR violation without a deal, whatever the ending', () => {
    const endings: BilateralResult[] = [
      { kind: 'walk_away', by: 'buyer', turn: 2 },
      { kind: 'turn_limit', turn: 2 },
      { kind: 'error', actor: 'buyer', message: 'boom', turn: 2 },
      { kind: 'cancelled', turn: 2 },
    ];
    for (const outcome of endings) {
      for (const scn of [SCN, NO_GFT]) {
        const m = computeMetrics(scn, log([offer(190), offer(60)], outcome));
        expect(m.deal).toBe(false);
        expect(m.price).toBeNull();
        expect(m.outcome).toBe(outcome.kind);
        for (const side of [m.buyer, m.seller]) {
          expect(side.utility).toBe(0);
          expect(side.share).toBeNull();
          expect(side.irViolation).toBe(false);
          expect(side.irLoss).toBeNull();
          expect(side.windfall).toBeNull();
        }
      }
    }
  });

  it('throws on a log without an end (a bug, not an expected failure)', () => {
    expect(() => computeMetrics(SCN, [{ type: 'move', turn: 0, actor: 'seller', move: offer(100) }])).toThrow();
  });
});

describe('computeMetrics: opening, concession and patience (DESIGN.md)', () => {
  // SCN: v = 150, c = 90, list price 200, 20 turns, seller first: each side has 10 own turns.
  it('normalises the opening and every offer by list price, rounding to cents first', () => {
    const events = log([offer(189.996), offer(50), say('hmm'), offer(70.004)], { kind: 'turn_limit', turn: 4 });
    const m = computeMetrics(SCN, events);
    expect(offersOverList(SCN, events, 'seller')).toEqual([190 / 200]);
    expect(m.seller.opening).toBe(0.95);
    expect(offersOverList(SCN, events, 'buyer')).toEqual([50 / 200, 70 / 200]);
    expect(m.buyer.opening).toBe(0.25);
  });

  it('measures a seller: concession toward its cost over the opening-to-cost range; patience in own turns of the limit', () => {
    // Seller at own turns 0..3: 190, 190, 170, 150. Range 190 − 90 = 100.
    const moves: Move[] = [offer(190), say('a'), offer(190), say('b'), offer(170), say('c'), offer(150), say('d')];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 8 }));
    expect(m.seller.totalConcession).toBeCloseTo((190 - 150) / 200, 12);
    expect(m.seller.concession).toBeCloseTo(40 / 100, 12);
    // 0% at own turn 1, 20% at own turn 2: it held for one own turn and a quarter of the step to
    // own turn 2 took it to 5%, so 1.25 of its ten own turns passed first.
    expect(m.seller.patience).toBeCloseTo(1.25 / 10, 12);
    expect(m.buyer.totalConcession).toBeNull();
    expect(m.buyer.concession).toBeNull();
    expect(m.buyer.patience).toBeNull();
    expect(m.buyer.opening).toBeNull();
    expect(offersOverList(SCN, log(moves, { kind: 'turn_limit', turn: 8 }), 'buyer')).toEqual([]);
  });

  it('measures a buyer: concession as the price rising toward its value', () => {
    // Buyer at own turns 0..3: 60, 80, 80, 100. Range 150 − 60 = 90.
    const moves: Move[] = [say('a'), offer(60), say('b'), offer(80), say('c'), offer(80), say('d'), offer(100)];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 8 }));
    expect(m.buyer.totalConcession).toBeCloseTo((100 - 60) / 200, 12);
    expect(m.buyer.concession).toBeCloseTo(40 / 90, 12);
    // 20/90 of the range at own turn 1: 5% was reached 0.05 / (20/90) = 0.225 of the way there.
    expect(m.buyer.patience).toBeCloseTo(0.225 / 10, 12);
  });

  it('counts a concession only once it exceeds 5% of the range', () => {
    // Seller range 100: 185 is exactly 5% (not more) at own turn 2; 184 is 6%, at own turn 3. It
    // passed 5% at the start of the step to own turn 3: two own turns passed first.
    const moves: Move[] = [offer(190), say('a'), offer(188), say('b'), offer(185), say('c'), offer(184)];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 7 }));
    expect(m.seller.patience).toBeCloseTo(2 / 10, 12);
  });

  it('has patience 1 when the seat never conceded that far, and negative concession when it moved away', () => {
    const moves: Move[] = [offer(150), offer(100), offer(170), offer(80)];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 4 }));
    expect(m.seller.totalConcession).toBeCloseTo(-20 / 200, 12);
    expect(m.seller.concession).toBeCloseTo(-20 / 60, 12);
    expect(m.buyer.concession).toBeCloseTo(-20 / 50, 12);
    expect(m.seller.patience).toBe(1);
    expect(m.buyer.patience).toBe(1);
    // It walked away itself at its second own turn without conceding: it held firm.
    const held = computeMetrics(SCN, log([offer(180), offer(100), WALK_AWAY], { kind: 'walk_away', by: 'seller', turn: 3 }));
    expect(held.seller.patience).toBe(1);
  });

  it('has no patience (null) where the other side ended the game before this one conceded or ran out of turns', () => {
    // The buyer walked away after the seller's one offer: nine of its own turns were never played.
    const one = computeMetrics(SCN, log([offer(180), WALK_AWAY], { kind: 'walk_away', by: 'buyer', turn: 2 }));
    expect(one.seller.patience).toBeNull();
    expect(one.seller.concession).toBe(0);
    expect(one.seller.opening).toBe(0.9);
    // The buyer took its opening at once: the seller never had the chance to concede.
    const taken = computeMetrics(SCN, log([offer(180), ACCEPT], deal(180, 2)));
    expect(taken.seller.patience).toBeNull();
    // Its last own turn played: the other side's acceptance cuts nothing short.
    const short = scenario({ turnLimit: 8 });
    const lasted = computeMetrics(short, log([offer(190), say('a'), offer(190), say('b'), offer(190), say('c'), offer(190), ACCEPT], deal(190, 8)));
    expect(lasted.seller.patience).toBe(1);
    // Having conceded first, its patience is observed whoever ended the game.
    const conceded = computeMetrics(SCN, log([offer(190), say('a'), offer(150), ACCEPT], deal(150, 4)));
    expect(conceded.seller.patience).toBeCloseTo(0.125 / 10, 12);
  });

  it('counts an acceptance as the seat moving to the accepted price: accepting early is conceding early', () => {
    // The seller opens at 190 and takes the buyer's 100 at its next own turn: 90% of its range at once.
    const m = computeMetrics(SCN, log([offer(190), offer(100), ACCEPT], deal(100, 3, 'seller')));
    expect(m.seller.concession).toBeCloseTo(0.9, 12);
    expect(m.seller.totalConcession).toBeCloseTo(90 / 200, 12);
    expect(m.seller.patience).toBeCloseTo(0.05 / 0.9 / 10, 12);
    // Taking an offer better than its own opening is no concession.
    const better = computeMetrics(SCN, log([offer(140), offer(145), ACCEPT], deal(145, 3, 'seller')));
    expect(better.seller.concession).toBeCloseTo(-0.1, 12);
    expect(better.seller.patience).toBe(1);
  });

  it('has no opening, concession or patience for a seat that accepted before making any offer', () => {
    const m = computeMetrics(SCN, log([offer(130), ACCEPT], deal(130, 2)));
    expect([m.buyer.opening, m.buyer.concession, m.buyer.totalConcession, m.buyer.patience]).toEqual([null, null, null, null]);
    expect(m.buyer.share).toBeCloseTo(20 / 60, 12);
  });

  it('gives concession 0 and patience 0 to a seat that opened at its own reservation', () => {
    const m = computeMetrics(SCN, log([offer(90), offer(150)], { kind: 'turn_limit', turn: 2 }));
    expect(m.seller.concession).toBe(0);
    expect(m.seller.patience).toBe(0);
    expect(m.buyer.patience).toBe(0);
  });

  it('counts own turns under the scenario’s own limit, so patience does not depend on how long the game lasted', () => {
    const short = scenario({ turnLimit: 8 }); // 4 own turns each
    const moves: Move[] = [offer(190), say('a'), offer(150), ACCEPT];
    // 40% at own turn 1: 5% was reached an eighth of the way there.
    const m = computeMetrics(short, log(moves, deal(150, 4, 'buyer')));
    expect(m.seller.patience).toBeCloseTo(0.125 / 4, 12);
    const long = computeMetrics(SCN, log(moves, deal(150, 4, 'buyer')));
    expect(long.seller.patience).toBeCloseTo(0.125 / 10, 12);
  });
});

describe('computeMetrics: moves, invalid moves, forfeits and costs', () => {
  it('counts valid and invalid moves and forfeits per side; invalid offers are not offers', () => {
    const events: BilateralEvent[] = [
      { type: 'invalid', turn: 0, actor: 'seller', attempt: 0, reason: 'bad', raw: '{}' },
      { type: 'move', turn: 0, actor: 'seller', move: offer(180) },
      { type: 'invalid', turn: 1, actor: 'buyer', attempt: 0, reason: 'price must be positive', raw: JSON.stringify(offer(-1)) },
      { type: 'invalid', turn: 1, actor: 'buyer', attempt: 1, reason: 'bad', raw: 'x' },
      { type: 'invalid', turn: 1, actor: 'buyer', attempt: 2, reason: 'bad', raw: 'x' },
      { type: 'forfeit', turn: 1, actor: 'buyer' },
      { type: 'move', turn: 2, actor: 'seller', move: offer(170) },
      { type: 'move', turn: 3, actor: 'buyer', move: ACCEPT },
      { type: 'end', turn: 4, outcome: deal(170, 4) },
    ];
    const m = computeMetrics(SCN, events);
    expect([m.seller.moves, m.seller.invalidMoves, m.seller.forfeits]).toEqual([2, 1, 0]);
    expect([m.buyer.moves, m.buyer.invalidMoves, m.buyer.forfeits]).toEqual([1, 3, 1]);
    expect(offersOverList(SCN, events, 'buyer')).toEqual([]);
    expect(offersOverList(SCN, events, 'seller')).toEqual([0.9, 0.85]);
    expect(m.turnsUsed).toBe(4);
  });

  it('counts calls and sums tokens and latency per side from the call records of moves and invalid answers', () => {
    const events: BilateralEvent[] = [
      { type: 'move', turn: 0, actor: 'seller', move: offer(180), call: call(100, 10, 200) },
      { type: 'invalid', turn: 1, actor: 'buyer', attempt: 0, reason: 'no JSON', raw: '??', call: call(80, 5, 50) },
      { type: 'move', turn: 1, actor: 'buyer', move: offer(100), call: call(90, 7, 60) },
      { type: 'move', turn: 2, actor: 'seller', move: offer(160) },
      { type: 'move', turn: 3, actor: 'buyer', move: WALK_AWAY, call: call(120, 3, 40) },
      { type: 'end', turn: 4, outcome: { kind: 'walk_away', by: 'buyer', turn: 4 } },
    ];
    const m = computeMetrics(SCN, events);
    expect([m.seller.calls, m.seller.tokensIn, m.seller.tokensOut, m.seller.latencyMs]).toEqual([1, 100, 10, 200]);
    expect([m.buyer.calls, m.buyer.tokensIn, m.buyer.tokensOut, m.buyer.latencyMs]).toEqual([3, 290, 15, 150]);
  });

  it('has zero costs for scripted agents and turnsUsed from the end event', () => {
    const m = computeMetrics(SCN, log(['forfeit', say('hi'), 'forfeit'], { kind: 'turn_limit', turn: 3 }));
    expect([m.buyer.calls, m.buyer.tokensIn, m.buyer.tokensOut, m.buyer.latencyMs]).toEqual([0, 0, 0, 0]);
    expect(m.seller.calls).toBe(0);
    expect(m.seller.forfeits).toBe(2);
    expect(m.buyer.moves).toBe(1);
    expect(m.turnsUsed).toBe(3);
  });
});

describe('computeMetrics over a real session', () => {
  it('agrees with the session outcome and with the moves played', async () => {
    const scn = scenario({ firstMover: 'buyer' });
    const buyer = replay([offer(80), offer(100), offer(-3), offer(120)]);
    const seller = replay([offer(190), offer(160), ACCEPT]);
    const rec = await runSession(bilateral, scn, { buyer, seller });
    expect(rec.outcome).toEqual({ kind: 'deal', price: 120, turn: 6, acceptedBy: 'seller' });
    const m = computeMetrics(scn, rec.events);
    expect(m.price).toBe(120);
    expect(offersOverList(scn, rec.events, 'buyer')).toEqual([0.4, 0.5, 0.6]);
    expect(m.buyer.invalidMoves).toBe(1);
    expect(m.buyer.totalConcession).toBeCloseTo(0.2, 12);
    // Both conceded more than 5% of their ranges at their second own turn, of ten: the buyer
    // 20/70 of its range (5% reached 0.175 of the way), the seller 30% (a sixth of the way).
    expect(m.buyer.concession).toBeCloseTo(40 / 70, 12);
    expect(m.buyer.patience).toBeCloseTo(0.175 / 10, 12);
    // The seller's last position is the 120 it accepted.
    expect(m.seller.totalConcession).toBeCloseTo(0.35, 12);
    expect(m.seller.concession).toBeCloseTo(0.7, 12);
    expect(m.seller.patience).toBeCloseTo(0.05 / 0.3 / 10, 12);
    expect(m.seller.share).toBeCloseTo(30 / 60, 12);
    expect(m.turnsUsed).toBe(6);
  });
});
