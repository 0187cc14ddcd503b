import { describe, expect, it } from 'vitest';
import type { BilateralEvent, BilateralResult } from '../../../src/core/bilateral/events';
import { computeMetrics } from '../../../src/core/bilateral/metrics';
import { ACCEPT, WALK_AWAY, offer, say, type Move } from '../../../src/core/bilateral/moves';
import { bilateral } from '../../../src/core/bilateral/protocol';
import { runSession } from '../../../src/core/session';
import type { Role } from '../../../src/core/scenario';
import { call, replay, scenario } from '../helpers';

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

  it('flags an IR violation for the side a deal leaves with negative utility (shares still sum to 1)', () => {
    const overpaid = computeMetrics(SCN, log([offer(160), ACCEPT], deal(160, 2)));
    expect(overpaid.buyer.utility).toBe(-10);
    expect(overpaid.buyer.irViolation).toBe(true);
    expect(overpaid.seller.irViolation).toBe(false);
    expect(overpaid.buyer.share).toBeCloseTo(-10 / 60, 12);
    expect(overpaid.seller.share).toBeCloseTo(70 / 60, 12);
    expect(overpaid.buyer.share! + overpaid.seller.share!).toBeCloseTo(1, 12);

    const underSold = computeMetrics(SCN, log([offer(180), offer(85), ACCEPT], deal(85, 3, 'seller')));
    expect(underSold.seller.utility).toBe(-5);
    expect(underSold.seller.irViolation).toBe(true);
    expect(underSold.buyer.irViolation).toBe(false);
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
    const cheap = computeMetrics(NO_GFT, log([offer(75), ACCEPT], deal(75, 2)));
    expect(cheap.buyer.irViolation).toBe(false);
    expect(cheap.seller.irViolation).toBe(true);
    // Any price between v = 80 and c = 100 hurts both sides.
    const both = computeMetrics(NO_GFT, log([offer(90), ACCEPT], deal(90, 2)));
    expect(both.buyer.irViolation && both.seller.irViolation).toBe(true);
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
    const m = computeMetrics(SCN, log([offer(189.996), offer(50), say('hmm'), offer(70.004)], { kind: 'turn_limit', turn: 4 }));
    expect(m.seller.offers).toEqual([190 / 200]);
    expect(m.seller.opening).toBe(0.95);
    expect(m.buyer.offers).toEqual([50 / 200, 70 / 200]);
    expect(m.buyer.opening).toBe(0.25);
  });

  it('measures a seller: concession toward its cost over the opening-to-cost range; patience in own turns of the limit', () => {
    // Seller at own turns 0..3: 190, 190, 170, 150. Range 190 − 90 = 100.
    const moves: Move[] = [offer(190), say('a'), offer(190), say('b'), offer(170), say('c'), offer(150), say('d')];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 8 }));
    expect(m.seller.totalConcession).toBeCloseTo((190 - 150) / 200, 12);
    expect(m.seller.concession).toBeCloseTo(40 / 100, 12);
    // 20% of the range by own turn 2: two of its ten own turns passed first.
    expect(m.seller.patience).toBe(2 / 10);
    expect(m.buyer.totalConcession).toBeNull();
    expect(m.buyer.concession).toBeNull();
    expect(m.buyer.patience).toBeNull();
    expect(m.buyer.opening).toBeNull();
    expect(m.buyer.offers).toEqual([]);
  });

  it('measures a buyer: concession as the price rising toward its value', () => {
    // Buyer at own turns 0..3: 60, 80, 80, 100. Range 150 − 60 = 90.
    const moves: Move[] = [say('a'), offer(60), say('b'), offer(80), say('c'), offer(80), say('d'), offer(100)];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 8 }));
    expect(m.buyer.totalConcession).toBeCloseTo((100 - 60) / 200, 12);
    expect(m.buyer.concession).toBeCloseTo(40 / 90, 12);
    expect(m.buyer.patience).toBe(1 / 10);
  });

  it('counts a concession only once it exceeds 5% of the range', () => {
    // Seller range 100: 95 is exactly 5% (not more); 94 is 6%, at own turn 3.
    const moves: Move[] = [offer(190), say('a'), offer(188), say('b'), offer(185), say('c'), offer(184)];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 7 }));
    expect(m.seller.patience).toBe(3 / 10);
  });

  it('has patience 1 when the seat never conceded that far, and negative concession when it moved away', () => {
    const moves: Move[] = [offer(150), offer(100), offer(170), offer(80)];
    const m = computeMetrics(SCN, log(moves, { kind: 'turn_limit', turn: 4 }));
    expect(m.seller.totalConcession).toBeCloseTo(-20 / 200, 12);
    expect(m.seller.concession).toBeCloseTo(-20 / 60, 12);
    expect(m.buyer.concession).toBeCloseTo(-20 / 50, 12);
    expect(m.seller.patience).toBe(1);
    expect(m.buyer.patience).toBe(1);
    const one = computeMetrics(SCN, log([offer(180), WALK_AWAY], { kind: 'walk_away', by: 'buyer', turn: 2 }));
    expect(one.seller.patience).toBe(1);
    expect(one.seller.concession).toBe(0);
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
    const m = computeMetrics(short, log(moves, deal(150, 4, 'buyer')));
    expect(m.seller.patience).toBe(1 / 4);
    const long = computeMetrics(SCN, log(moves, deal(150, 4, 'buyer')));
    expect(long.seller.patience).toBe(1 / 10);
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
    expect(m.buyer.offers).toEqual([]);
    expect(m.seller.offers).toEqual([0.9, 0.85]);
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
    expect(m.buyer.offers).toEqual([0.4, 0.5, 0.6]);
    expect(m.buyer.invalidMoves).toBe(1);
    expect(m.buyer.totalConcession).toBeCloseTo(0.2, 12);
    // Both conceded more than 5% of their ranges at their second own turn, of ten.
    expect(m.buyer.concession).toBeCloseTo(40 / 70, 12);
    expect(m.buyer.patience).toBe(1 / 10);
    expect(m.seller.totalConcession).toBeCloseTo(0.15, 12);
    expect(m.seller.concession).toBeCloseTo(0.3, 12);
    expect(m.seller.patience).toBe(1 / 10);
    expect(m.seller.share).toBeCloseTo(30 / 60, 12);
    expect(m.turnsUsed).toBe(6);
  });
});
