import { describe, expect, it } from 'vitest';
import { ACCEPT_OFFER, counterOffer, REJECT_OFFER, sellerMove, type MarketMove } from '../../../src/games/market/moves';
import { MARKET_REFUSALS, market, type BuyerObservation, type MarketState, type SellerObservation } from '../../../src/games/market/protocol';
import { MarketEventSchema, type MarketEvent } from '../../../src/games/market/events';
import type { MarketAgent } from '../../../src/games/market/tournament';
import { playSession } from '../../../src/engine/session';
import { handMarket, scripted } from './helpers';

/** Applies moves in turn, failing the test on a refused one. */
function play(state: MarketState, ...moves: MarketMove[]): MarketState {
  for (const move of moves) {
    const next = market.apply(state, market.currentActor(state), move);
    if (!next.ok) throw new Error(next.error.reason);
    state = next.value;
  }
  return state;
}

/** The refusal of a move by whoever's turn it is: its code and data; its reason is the table's English for them. */
const refusalOf = (state: MarketState, move: unknown): { code: string; data: unknown } => {
  const r = market.apply(state, market.currentActor(state), move as MarketMove);
  if (r.ok) throw new Error('the move was accepted');
  const { code, data, reason } = r.error;
  expect(reason).toBe((MARKET_REFUSALS[code as keyof typeof MARKET_REFUSALS] as (d: unknown) => string)(data));
  return { code, data };
};
const codeOf = (state: MarketState, move: unknown): string => refusalOf(state, move).code;

describe('market protocol', () => {
  it('the seller moves when no offer is pending, the addressed buyer answers it', () => {
    const s0 = market.initialState(handMarket());
    expect(market.currentActor(s0)).toBe('seller');
    const s1 = play(s0, sellerMove('b2', 'p1', 22, 'A fine Alpha'));
    expect(market.currentActor(s1)).toBe('buyer');
    const obs = market.observe(s1, 'buyer') as BuyerObservation;
    expect(obs.buyer).toBe('b2');
    expect(obs.offer).toEqual({ product: 'p1', price: 22, message: 'A fine Alpha' });
    expect(obs.value).toBe(25);
    expect(market.turn(s1)).toBe(1);
  });

  it('a sale removes that unit of stock and that buyer', () => {
    const s = play(market.initialState(handMarket()), sellerMove('b2', 'p1', 22), ACCEPT_OFFER);
    expect(s.sales).toEqual([{ buyer: 'b2', product: 'p1', price: 22, turn: 1 }]);
    const obs = market.observe(s, 'seller') as SellerObservation;
    expect(obs.products.map((p) => p.stock)).toEqual([0, 1, 1]);
    expect(obs.buyers).toEqual([
      { id: 'b1', active: true },
      { id: 'b2', active: false },
    ]);
    expect(refusalOf(s, sellerMove('b2', 'p2', 10))).toEqual({ code: 'buyer-served', data: { buyer: 'b2', bought: 'p1' } });
    expect(refusalOf(s, sellerMove('b1', 'p1', 25))).toEqual({ code: 'out-of-stock', data: { product: 'p1' } });
  });

  it('refuses unknown ids, malformed moves and bad prices, each with its reason', () => {
    const s = market.initialState(handMarket());
    expect(refusalOf(s, sellerMove('b9', 'p1', 20))).toEqual({ code: 'unknown-buyer', data: { buyer: 'b9', buyers: ['b1', 'b2'] } });
    expect(refusalOf(s, sellerMove('b1', 'px', 20))).toEqual({ code: 'unknown-product', data: { product: 'px', products: ['p1', 'p2', 'p3'] } });
    expect(codeOf(s, null)).toBe('seller-move-not-object');
    expect(codeOf(s, { buyer: 1, product: 'p1', price: 20, message: '' })).toBe('buyer-not-id');
    expect(codeOf(s, { buyer: 'b1', product: 1, price: 20, message: '' })).toBe('product-not-id');
    expect(codeOf(s, { buyer: 'b1', product: 'p1', price: 20 })).toBe('pitch-not-text');
    expect(refusalOf(s, sellerMove('b1', 'p1', Number.NaN))).toEqual({ code: 'price-not-finite', data: { field: 'price' } });
    expect(refusalOf(s, sellerMove('b1', 'p1', 0))).toEqual({ code: 'price-below-minimum', data: { field: 'price', price: 0, min: 0.01 } });
    expect(refusalOf(s, sellerMove('b1', 'p1', 2001))).toEqual({
      code: 'price-above-ceiling',
      data: { field: 'price', price: 2001, multiple: 100, ceiling: 2000 },
    });
    expect(refusalOf(s, sellerMove('b1', 'p1', 9.99))).toEqual({ code: 'below-cost', data: { price: 9.99, product: 'p1', cost: 10 } });
    expect(refusalOf(s, sellerMove('b1', 'p1', 20, 'x'.repeat(601)))).toEqual({ code: 'message-too-long', data: { length: 601, max: 600 } });
    // Selling at a loss is a rule of the market, not of the protocol.
    expect(market.apply(market.initialState(handMarket({ allowBelowCost: true })), 'seller', sellerMove('b1', 'p1', 9.99)).ok).toBe(true);
    // Out of turn.
    expect(market.apply(s, 'buyer', ACCEPT_OFFER)).toEqual({
      ok: false,
      error: { kind: 'invalid-move', code: 'not-your-turn', data: { expected: 'seller' }, reason: "it is the seller's turn" },
    });
  });

  it('a counter must be below the offer and binds its buyer: an offer at or below it must be accepted, a later counter may not go lower', () => {
    const s0 = play(market.initialState(handMarket({ budget: 9 })), sellerMove('b1', 'p1', 28));
    expect(refusalOf(s0, counterOffer(28))).toEqual({ code: 'counter-not-below-offer', data: { offer: 28 } });
    expect(refusalOf(s0, { response: { type: 'haggle' } })).toEqual({ code: 'unknown-response', data: { type: 'haggle' } });
    expect(refusalOf(s0, { response: { type: 'counter', price: -1 } })).toEqual({
      code: 'price-below-minimum',
      data: { field: 'counter price', price: -1, min: 0.01 },
    });
    expect(codeOf(s0, null)).toBe('answer-not-object');
    expect(codeOf(s0, { response: null })).toBe('response-not-object');
    expect(codeOf(s0, { response: { type: 'accept' }, message: 7 })).toBe('message-not-text');
    const s1 = play(s0, counterOffer(20.004));
    expect(s1.counters).toEqual([{ buyer: 0, product: 0, price: 20 }]);
    expect((market.observe(s1, 'seller') as SellerObservation).counters).toEqual([{ buyer: 'b1', product: 'p1', price: 20 }]);
    const s2 = play(s1, sellerMove('b1', 'p1', 24));
    expect(refusalOf(s2, counterOffer(19))).toEqual({ code: 'counter-below-standing', data: { product: 'p1', counter: 20 } });
    const s3 = play(s2, counterOffer(21), sellerMove('b1', 'p1', 21));
    expect((market.observe(s3, 'buyer') as BuyerObservation).standingCounter).toBe(21);
    expect(refusalOf(s3, REJECT_OFFER)).toEqual({ code: 'must-accept', data: { product: 'p1', counter: 21, price: 21 } });
    expect(codeOf(s3, counterOffer(20))).toBe('must-accept');
    const s4 = play(s3, ACCEPT_OFFER);
    expect(s4.sales).toEqual([{ buyer: 'b1', product: 'p1', price: 21, turn: 5 }]);
    expect(s4.counters).toEqual([]);
  });

  it('ends when the budget is spent, once the last offer is answered', () => {
    const s = play(market.initialState(handMarket({ budget: 2 })), sellerMove('b1', 'p1', 28), REJECT_OFFER, sellerMove('b1', 'p2', 11));
    expect(market.isTerminal(s)).toBe(false);
    const end = play(s, REJECT_OFFER);
    expect(market.outcome(end)).toEqual({ kind: 'budget_spent', turn: 4 });
  });

  it('ends when the stock is gone, and when no buyer is left', () => {
    const oneUnit = handMarket({
      products: [{ id: 'p1', name: 'Alpha', cost: 10, listPrice: 20, stock: 1 }],
      buyers: [
        { id: 'b1', values: [30] },
        { id: 'b2', values: [25] },
      ],
    });
    expect(market.outcome(play(market.initialState(oneUnit), sellerMove('b1', 'p1', 20), ACCEPT_OFFER))).toEqual({ kind: 'sold_out', turn: 2 });
    const s = play(market.initialState(handMarket()), sellerMove('b1', 'p1', 20), ACCEPT_OFFER, sellerMove('b2', 'p2', 10), ACCEPT_OFFER);
    expect(market.outcome(s)).toEqual({ kind: 'no_buyers', turn: 4 });
    expect(codeOf(s, sellerMove('b1', 'p3', 10))).toBe('market-over');
  });

  it('a forfeited seller turn spends budget; a forfeited answer rejects the offer', () => {
    const s0 = market.initialState(handMarket({ budget: 2 }));
    const s1 = market.forfeit(s0, 'seller');
    expect(s1.sellerTurns).toBe(1);
    expect(market.currentActor(s1)).toBe('seller');
    const s2 = market.forfeit(play(s1, sellerMove('b1', 'p1', 20)), 'buyer');
    expect(s2.pending).toBeNull();
    expect(s2.sales).toEqual([]);
    expect(market.outcome(s2)).toEqual({ kind: 'budget_spent', turn: 3 });
    expect(s2.history.at(-1)).toEqual({ turn: 2, kind: 'forfeit', actor: 'buyer', buyer: 'b1' });
  });

  it('shows the seller no buyer values, and a buyer only its own values and its own dealings', () => {
    const s = play(market.initialState(handMarket({ budget: 9 })), sellerMove('b1', 'p1', 28, 'hi b1'), counterOffer(15), sellerMove('b2', 'p2', 13));
    const seller = JSON.stringify(market.observe(s, 'seller'));
    expect(seller).not.toMatch(/values|"value"/);
    const buyer = market.observe(s, 'buyer') as BuyerObservation;
    expect(buyer.products.map((p) => p.value)).toEqual([25, 14, 2]);
    expect(buyer.history.every((e) => e.buyer === 'b2')).toBe(true);
    expect(buyer.countersMade).toBe(0);
    expect(JSON.stringify(buyer)).not.toMatch(/hi b1|30/);
  });

  it('states are values: applying a move twice to the same state gives the same result and changes neither', () => {
    const s0 = play(market.initialState(handMarket()), sellerMove('b1', 'p1', 28), counterOffer(15));
    const before = JSON.stringify(s0);
    const a = play(s0, sellerMove('b2', 'p2', 12), ACCEPT_OFFER);
    const b = play(s0, sellerMove('b1', 'p3', 9), REJECT_OFFER);
    expect(JSON.stringify(s0)).toBe(before);
    expect(a.history.at(-2)).toMatchObject({ buyer: 'b2', product: 'p2' });
    expect(b.history.at(-2)).toMatchObject({ buyer: 'b1', product: 'p3' });
    expect(a.sales).toHaveLength(1);
    expect(b.sales).toHaveLength(0);
  });
});

describe('market refusals in English', () => {
  it('the reason each code renders, as event logs record it', () => {
    const s = market.initialState(handMarket());
    const reasonOf = (state: MarketState, move: unknown) => {
      const r = market.apply(state, market.currentActor(state), move as MarketMove);
      return r.ok ? null : r.error.reason;
    };
    expect(reasonOf(s, sellerMove('b1', 'p1', 0))).toBe('price must be at least $0.01 (got 0)');
    expect(reasonOf(s, sellerMove('b1', 'p1', 2001))).toBe('price 2001 is more than 100 times the list price (at most 2000)');
    expect(reasonOf(s, sellerMove('b1', 'p1', 9.99))).toBe('price 9.99 is below the cost of p1 (10); this market forbids selling at a loss');
    expect(reasonOf(s, { buyer: 'b1', product: 'p1', price: 20 })).toBe('message must be text (it may be empty)');
    expect(reasonOf(s, sellerMove('b1', 'p1', 20, 'x'.repeat(601)))).toBe('message is 601 characters; the limit is 600');
    const offered = play(s, sellerMove('b1', 'p1', 28));
    expect(reasonOf(offered, counterOffer(28))).toBe('a counter must be below the offer (28); to pay that, accept');
    expect(reasonOf(offered, { response: { type: 'haggle' } })).toBe('unknown response "haggle"; answer accept, reject or counter');
    expect(reasonOf(offered, counterOffer(Number.NaN))).toBe('counter price must be a finite number');
    const countered = play(offered, counterOffer(20), sellerMove('b1', 'p1', 24));
    expect(reasonOf(countered, counterOffer(19))).toBe('your standing counter for p1 is 20; a new counter may not go below it');
    expect(reasonOf(play(countered, counterOffer(21), sellerMove('b1', 'p1', 21)), REJECT_OFFER)).toBe(
      'you countered p1 at 21; an offer at or below your counter (21) must be accepted',
    );
  });
});

describe('the session runner plays markets', () => {
  it('records invalid seller moves with their reasons, retries, then forfeits; the log parses with the event schema', () => {
    const seller = scripted(sellerMove('b9', 'p1', 20), { kind: 'invalid', reason: 'no JSON move', raw: '???' }, sellerMove('b1', 'p1', 5));
    const buyer = scripted(ACCEPT_OFFER);
    const record = playSession(market, handMarket({ budget: 1 }), { seller, buyer });
    if ('then' in record) throw new Error('scripted agents answer at once');
    const types = record.events.map((e) => e.type);
    expect(types).toEqual(['invalid', 'invalid', 'invalid', 'forfeit', 'end']);
    expect(record.events[0]).toMatchObject({ type: 'invalid', actor: 'seller', attempt: 0, reason: 'unknown buyer "b9"; buyers are b1, b2' });
    expect(record.events[1]).toMatchObject({ attempt: 1, reason: 'no JSON move', raw: '???' });
    expect(record.outcome).toEqual({ kind: 'budget_spent', turn: 1 });
    for (const e of record.events) expect(MarketEventSchema.safeParse(e).success, JSON.stringify(e)).toBe(true);
  });

  it('keeps an agent that throws apart from the outcomes: the market ends as an error', () => {
    const seller: MarketAgent = {
      act: () => {
        throw new Error('backend down');
      },
    };
    const record = playSession(market, handMarket(), { seller, buyer: scripted(ACCEPT_OFFER) }) as { outcome: unknown; events: MarketEvent[] };
    expect(record.outcome).toEqual({ kind: 'error', actor: 'seller', message: 'backend down', turn: 0 });
  });

  it('the event schema refuses a seller move in the buyer seat and an unknown ending', () => {
    expect(MarketEventSchema.safeParse({ type: 'move', turn: 0, actor: 'buyer', move: sellerMove('b1', 'p1', 3) }).success).toBe(false);
    expect(MarketEventSchema.safeParse({ type: 'end', turn: 0, outcome: { kind: 'deal', turn: 0 } }).success).toBe(false);
    expect(MarketEventSchema.safeParse({ type: 'move', turn: 1, actor: 'buyer', move: counterOffer(3, 'no') }).success).toBe(true);
  });
});
