import { describe, expect, it } from 'vitest';
import { ACCEPT, REJECT, WALK_AWAY, offer, say, type Move } from '../../../src/games/bilateral/moves';
import { BILATERAL_REFUSALS, bilateral, turnsFor, type BilateralState } from '../../../src/games/bilateral/protocol';
import type { Role } from '../../../src/games/bilateral/scenario';
import { malformed, scenario } from './helpers';

/** Applies a move that must be valid, by whoever's turn it is, checking the actor. */
function step(state: BilateralState, actor: Role, move: Move): BilateralState {
  expect(bilateral.currentActor(state)).toBe(actor);
  const r = bilateral.apply(state, actor, move);
  if (!r.ok) throw new Error(`expected a valid move, got: ${r.error.reason}`);
  return r.value;
}

/** Applies a move that must be refused; returns the refusal's code and data, checking the state is untouched and the reason is the table's English. */
function refusal(state: BilateralState, actor: Role, move: Move): { code: string; data: unknown } {
  const before = JSON.stringify(state);
  const r = bilateral.apply(state, actor, move);
  if (r.ok) throw new Error('expected an invalid move');
  const { kind, code, data, reason } = r.error;
  expect(kind).toBe('invalid-move');
  expect(reason).toBe((BILATERAL_REFUSALS[code as keyof typeof BILATERAL_REFUSALS] as (d: unknown) => string)(data));
  expect(JSON.stringify(state)).toBe(before);
  return { code, data };
}
const refused = (state: BilateralState, actor: Role, move: Move): string => refusal(state, actor, move).code;

/** The English a refused move is recorded with. */
function reasonOf(state: BilateralState, actor: Role, move: Move): string {
  const r = bilateral.apply(state, actor, move);
  if (r.ok) throw new Error('expected an invalid move');
  return r.error.reason;
}

const start = (opts: Parameters<typeof scenario>[0] = {}) => bilateral.initialState(scenario(opts));

describe('bilateral protocol: turns', () => {
  it('starts empty, with the first mover to act', () => {
    const s = start();
    expect(s.turn).toBe(0);
    expect(s.pending).toBeNull();
    expect(bilateral.isTerminal(s)).toBe(false);
    expect(bilateral.turn(s)).toBe(0);
    expect(bilateral.currentActor(s)).toBe('seller');
    expect(bilateral.currentActor(start({ firstMover: 'buyer' }))).toBe('buyer');
    expect(() => bilateral.outcome(s)).toThrow();
  });

  it('alternates from the first mover, counting every kind of turn', () => {
    for (const first of ['seller', 'buyer'] as const) {
      const second = first === 'seller' ? 'buyer' : 'seller';
      let s = start({ firstMover: first });
      const seen: Role[] = [];
      const moves: Move[] = [say('hello'), say('hi'), offer(120), REJECT, say('hmm')];
      for (const m of moves) {
        const actor = bilateral.currentActor(s);
        seen.push(actor);
        s = step(s, actor, m);
      }
      s = bilateral.forfeit(s, bilateral.currentActor(s));
      expect(seen).toEqual([first, second, first, second, first]);
      expect(bilateral.turn(s)).toBe(6);
      expect(bilateral.currentActor(s)).toBe(first);
    }
  });

  it('ends with turn_limit after exactly turnLimit turns (forfeits included)', () => {
    let s = start({ turnLimit: 4 });
    s = step(s, 'seller', offer(180));
    s = step(s, 'buyer', offer(100));
    s = bilateral.forfeit(s, 'seller');
    expect(bilateral.isTerminal(s)).toBe(false);
    s = step(s, 'buyer', say('last word'));
    expect(bilateral.isTerminal(s)).toBe(true);
    expect(bilateral.outcome(s)).toEqual({ kind: 'turn_limit', turn: 4 });
    expect(bilateral.turn(s)).toBe(4);
  });

  it('a deal on the last turn is a deal, not a turn_limit', () => {
    let s = start({ turnLimit: 2 });
    s = step(s, 'seller', offer(130));
    s = step(s, 'buyer', ACCEPT);
    expect(bilateral.outcome(s)).toEqual({ kind: 'deal', price: 130, turn: 2, acceptedBy: 'buyer' });
  });

  it('refuses every move once the negotiation is over', () => {
    let s = start();
    s = step(s, 'seller', WALK_AWAY);
    expect(refused(s, 'buyer', say('wait'))).toBe('negotiation-over');
    expect(refused(s, 'buyer', offer(100))).toBe('negotiation-over');
  });

  it('turnsFor splits odd and even limits, the first mover getting the extra turn', () => {
    expect(turnsFor('seller', 'seller', 20)).toBe(10);
    expect(turnsFor('buyer', 'seller', 20)).toBe(10);
    expect(turnsFor('seller', 'seller', 7)).toBe(4);
    expect(turnsFor('buyer', 'seller', 7)).toBe(3);
    expect(turnsFor('buyer', 'buyer', 7)).toBe(4);
    expect(turnsFor('seller', 'buyer', 7)).toBe(3);
    expect(turnsFor('buyer', 'buyer', 1)).toBe(1);
    expect(turnsFor('seller', 'buyer', 1)).toBe(0);
  });
});

describe('bilateral protocol: actions', () => {
  it('offer puts a price on the table for the other side, and replaces the mover’s standing offer', () => {
    let s = start();
    s = step(s, 'seller', offer(190));
    expect(s.pending).toEqual({ by: 'seller', price: 190 });
    expect(bilateral.observe(s, 'buyer').pending).toBe(190);
    expect(bilateral.observe(s, 'seller').pending).toBeNull();
    expect(bilateral.observe(s, 'seller').ownStanding).toBe(190);
    s = step(s, 'buyer', say('too much'));
    s = step(s, 'seller', offer(170));
    expect(s.pending).toEqual({ by: 'seller', price: 170 });
    expect(s.sellerOffers).toEqual([190, 170]);
    s = step(s, 'buyer', ACCEPT);
    expect(bilateral.outcome(s)).toMatchObject({ kind: 'deal', price: 170 });
  });

  it('a counter-offer implicitly rejects the pending one: accept then deals at the latest price', () => {
    let s = start();
    s = step(s, 'seller', offer(180));
    s = step(s, 'buyer', offer(110));
    expect(s.pending).toEqual({ by: 'buyer', price: 110 });
    // The seller's 180 is gone: the buyer has nothing of the seller's to accept …
    expect(bilateral.observe(s, 'buyer').pending).toBeNull();
    s = step(s, 'seller', offer(150));
    // … and accepting now takes the seller's latest offer, not the first.
    s = step(s, 'buyer', ACCEPT);
    expect(bilateral.outcome(s)).toEqual({ kind: 'deal', price: 150, turn: 4, acceptedBy: 'buyer' });
    expect(s.buyerOffers).toEqual([110]);
    expect(s.sellerOffers).toEqual([180, 150]);
  });

  it('the seller can accept the buyer’s pending offer', () => {
    let s = start({ firstMover: 'buyer' });
    s = step(s, 'buyer', offer(95.5));
    s = step(s, 'seller', ACCEPT);
    expect(bilateral.outcome(s)).toEqual({ kind: 'deal', price: 95.5, turn: 2, acceptedBy: 'seller' });
  });

  it('accept and reject with nothing pending are invalid, with a reason', () => {
    const s = start();
    expect(refused(s, 'seller', ACCEPT)).toBe('nothing-to-accept');
    expect(refused(s, 'seller', REJECT)).toBe('nothing-to-reject');
  });

  it('accepting or rejecting your own offer is invalid', () => {
    let s = start();
    s = step(s, 'seller', offer(170));
    s = step(s, 'buyer', say('let me think'));
    // The seller's own 170 is pending, but it is not the seller's to accept.
    expect(refused(s, 'seller', ACCEPT)).toBe('nothing-to-accept');
    expect(refused(s, 'seller', REJECT)).toBe('nothing-to-reject');
  });

  it('reject clears the pending offer without a counter', () => {
    let s = start();
    s = step(s, 'seller', offer(170));
    s = step(s, 'buyer', REJECT);
    expect(s.pending).toBeNull();
    expect(bilateral.isTerminal(s)).toBe(false);
    expect(bilateral.observe(s, 'seller').ownStanding).toBeNull();
    s = step(s, 'seller', say('fine'));
    expect(refused(s, 'buyer', ACCEPT)).toBe('nothing-to-accept');
  });

  it('a message-only turn leaves the pending offer on the table', () => {
    let s = start();
    s = step(s, 'seller', offer(160));
    s = step(s, 'buyer', say('Could you do better?'));
    s = step(s, 'seller', say('No.'));
    expect(s.pending).toEqual({ by: 'seller', price: 160 });
    s = step(s, 'buyer', ACCEPT);
    expect(bilateral.outcome(s)).toMatchObject({ kind: 'deal', price: 160 });
  });

  it('a forfeited turn leaves the pending offer on the table too', () => {
    let s = start();
    s = step(s, 'seller', offer(160));
    s = bilateral.forfeit(s, 'buyer');
    expect(s.pending).toEqual({ by: 'seller', price: 160 });
    expect(s.transcript.at(-1)).toEqual({ turn: 1, actor: 'buyer', forfeited: true });
  });

  it('walk_away ends the negotiation without a deal, by either side', () => {
    let s = start();
    s = step(s, 'seller', offer(160));
    s = step(s, 'buyer', WALK_AWAY);
    expect(bilateral.isTerminal(s)).toBe(true);
    expect(bilateral.outcome(s)).toEqual({ kind: 'walk_away', by: 'buyer', turn: 2 });
    const t = step(start(), 'seller', { message: 'not selling', action: { type: 'walk_away' } });
    expect(bilateral.outcome(t)).toEqual({ kind: 'walk_away', by: 'seller', turn: 1 });
  });

  it('an offer may carry a message; both go on the transcript', () => {
    let s = start();
    s = step(s, 'seller', offer(175, 'Mint condition.'));
    expect(s.transcript).toEqual([{ turn: 0, actor: 'seller', message: 'Mint condition.', action: { type: 'offer', price: 175 } }]);
  });
});

describe('bilateral protocol: invalid moves', () => {
  it('refuses non-positive, NaN and infinite prices', () => {
    const s = start();
    for (const price of [0, -1, -0.01])
      expect(refusal(s, 'seller', offer(price))).toEqual({ code: 'price-not-positive', data: { field: 'offer price', price } });
    for (const price of [NaN, Infinity, -Infinity])
      expect(refusal(s, 'seller', offer(price))).toEqual({ code: 'price-not-finite', data: { field: 'offer price' } });
  });

  it('refuses a price that rounds to zero cents', () => {
    expect(refused(start(), 'seller', offer(0.004))).toBe('price-below-minimum');
  });

  it('refuses a price under a cent, saying so', () => {
    expect(refusal(start(), 'seller', offer(0.001))).toEqual({ code: 'price-below-minimum', data: { field: 'offer price', price: 0.001, min: 0.01 } });
    expect(refusal(start(), 'seller', offer(0.0099))).toEqual({ code: 'price-below-minimum', data: { field: 'offer price', price: 0.0099, min: 0.01 } });
    expect(step(start(), 'seller', offer(0.01)).pending).toEqual({ by: 'seller', price: 0.01 });
  });

  it('refuses a price more than 100 times the list price, saying so; 100 times is still an offer', () => {
    for (const listPrice of [200, 19.99, 0.07, 3499.99]) {
      const s = start({ listPrice });
      const ceiling = Math.round(listPrice * 100 * 100) / 100;
      expect(step(s, 'seller', offer(100 * listPrice)).pending).toEqual({ by: 'seller', price: ceiling });
      expect(refusal(s, 'seller', offer(ceiling + 0.01))).toEqual({
        code: 'price-above-ceiling',
        data: { field: 'offer price', price: ceiling + 0.01, multiple: 100, ceiling },
      });
    }
    for (const absurd of [1e306, Number.MAX_VALUE, 1e21]) expect(refused(start(), 'buyer', offer(absurd))).toBe('price-above-ceiling');
  });

  it('refuses a price that is not a number', () => {
    expect(refused(start(), 'seller', malformed({ action: { type: 'offer', price: '100' } }))).toBe('price-not-finite');
    expect(refused(start(), 'seller', malformed({ action: { type: 'offer' } }))).toBe('price-not-finite');
  });

  it('rounds prices to cents, in the state, the transcript and the deal', () => {
    let s = start();
    s = step(s, 'seller', offer(149.996));
    expect(s.pending).toEqual({ by: 'seller', price: 150 });
    expect(s.sellerOffers).toEqual([150]);
    expect(s.transcript[0]).toEqual({ turn: 0, actor: 'seller', action: { type: 'offer', price: 150 } });
    s = step(s, 'buyer', offer(101.234));
    expect(s.buyerOffers).toEqual([101.23]);
    s = step(s, 'seller', ACCEPT);
    expect(bilateral.outcome(s)).toMatchObject({ kind: 'deal', price: 101.23 });
  });

  it('accepts a message of exactly 600 characters and refuses 601', () => {
    const s = start();
    const ok600 = bilateral.apply(s, 'seller', say('x'.repeat(600)));
    expect(ok600.ok).toBe(true);
    expect(refusal(s, 'seller', say('x'.repeat(601)))).toEqual({ code: 'message-too-long', data: { length: 601, max: 600 } });
    // A long message spoils an otherwise valid offer.
    expect(refused(s, 'seller', offer(150, 'y'.repeat(601)))).toBe('message-too-long');
  });

  it('refuses malformed moves: not an object, empty, unknown action, non-text message', () => {
    const s = start();
    expect(refused(s, 'seller', malformed(null))).toBe('move-not-object');
    expect(refused(s, 'seller', malformed('offer 100'))).toBe('move-not-object');
    expect(refused(s, 'seller', {})).toBe('empty-move');
    expect(refusal(s, 'seller', malformed({ action: { type: 'haggle' } }))).toEqual({ code: 'unknown-action', data: { type: 'haggle' } });
    expect(refusal(s, 'seller', malformed({ action: null }))).toEqual({ code: 'unknown-action', data: { type: null } });
    expect(refused(s, 'seller', malformed({ message: 42 }))).toBe('message-not-text');
  });

  it('says each refusal in English, as event logs record it', () => {
    const s = start();
    expect(reasonOf(s, 'seller', offer(0.001))).toBe('offer price must be at least $0.01 (got 0.001)');
    expect(reasonOf(s, 'seller', offer(-1))).toBe('offer price must be positive (got -1)');
    expect(reasonOf(s, 'seller', offer(NaN))).toBe('offer price must be a finite number');
    expect(reasonOf(start({ listPrice: 200 }), 'seller', offer(20000.01))).toBe('offer price 20000.01 is more than 100 times the list price (at most 20000)');
    expect(reasonOf(s, 'seller', say('x'.repeat(601)))).toBe('message is 601 characters; the limit is 600');
    expect(reasonOf(s, 'seller', ACCEPT)).toBe('there is no offer from the other side to accept');
    expect(reasonOf(s, 'seller', malformed({ action: { type: 'haggle' } }))).toBe('unknown action "haggle"');
    expect(reasonOf(s, 'seller', malformed({ message: 42 }))).toBe('message must be text');
    expect(reasonOf(s, 'seller', {})).toBe('a move needs a message or an action');
  });

  it('never changes the state it was given (states are values)', () => {
    const s0 = start();
    const snapshot = JSON.stringify(s0);
    const s1 = step(s0, 'seller', offer(150));
    step(s1, 'buyer', ACCEPT);
    bilateral.forfeit(s1, 'buyer');
    expect(JSON.stringify(s0)).toBe(snapshot);
    expect(s1.outcome).toBeNull();
  });
});

describe('bilateral protocol: observations', () => {
  // Distinctive numbers so that a leak would show up in a text search.
  const opts = { buyerValue: 173.19, sellerCost: 61.37, listPrice: 200, turnLimit: 7 };

  function playedStates(): BilateralState[] {
    let s = bilateral.initialState(scenario(opts));
    const states = [s];
    const moves: Move[] = [offer(190, 'Great item'), offer(90), say('no'), say('hm'), REJECT, offer(150), ACCEPT];
    for (const m of moves) {
      s = step(s, bilateral.currentActor(s), m);
      states.push(s);
    }
    return states;
  }

  it('shows each side only its own reservation, never the other’s', () => {
    for (const s of playedStates()) {
      const buyer = bilateral.observe(s, 'buyer');
      const seller = bilateral.observe(s, 'seller');
      expect(buyer.reservation).toBe(173.19);
      expect(seller.reservation).toBe(61.37);
      const buyerText = JSON.stringify(buyer);
      const sellerText = JSON.stringify(seller);
      expect(buyerText).not.toContain('61.37');
      expect(buyerText).not.toMatch(/sellerCost|scenario/);
      expect(sellerText).not.toContain('173.19');
      expect(sellerText).not.toMatch(/buyerValue|scenario/);
    }
  });

  it('reports role, item, rules, own turns and offers from each side’s point of view', () => {
    const states = playedStates();
    const s = states[3]!; // after seller 190, buyer 90, seller says no
    const buyer = bilateral.observe(s, 'buyer');
    const seller = bilateral.observe(s, 'seller');
    expect(buyer.role).toBe('buyer');
    expect(buyer.item).toEqual(scenario(opts).item);
    expect(buyer.turn).toBe(3);
    expect(buyer.turnLimit).toBe(7);
    expect(buyer.firstMover).toBe('seller');
    expect(buyer.ownOffers).toEqual([90]);
    expect(buyer.opponentOffers).toEqual([190]);
    expect(seller.ownOffers).toEqual([190]);
    expect(seller.opponentOffers).toEqual([90]);
    expect(buyer.ownStanding).toBe(90);
    expect(seller.pending).toBe(90);
    expect(buyer.transcript).toHaveLength(3);
  });

  it('counts own turns taken and own turns in all, for an odd turn limit', () => {
    let s = bilateral.initialState(scenario({ turnLimit: 7 }));
    const taken = { seller: 0, buyer: 0 };
    while (!bilateral.isTerminal(s)) {
      const actor = bilateral.currentActor(s);
      const obs = bilateral.observe(s, actor);
      expect(obs.ownTurn).toBe(taken[actor]);
      expect(obs.ownTurns).toBe(actor === 'seller' ? 4 : 3);
      s = step(s, actor, say('...'));
      taken[actor]++;
    }
    expect(taken).toEqual({ seller: 4, buyer: 3 });
  });
});
