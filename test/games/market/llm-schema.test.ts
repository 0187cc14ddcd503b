/**
 * The market's model schemas, as strict mode writes them (every field there, an absent one as
 * null), and the decoder reading each answer they take as the move it stands for; what they
 * refuse is what the decoder or the protocol would refuse.
 */
import { describe, expect, it } from 'vitest';
import { MAX_MODEL_PRICE, SAYS_SOMETHING } from '../../../src/agents/llm/model-schema';
import {
  decodeMarketMove,
  MARKET_TOOL_SCHEMAS,
  marketJsonSchema,
  marketTools,
  MODEL_BUYER_SCHEMA,
  MODEL_SELLER_SCHEMA,
} from '../../../src/games/market/llm/schema';
import { BuyerMoveSchema, SellerMoveSchema, type BuyerMove, type SellerMove } from '../../../src/games/market/moves';
import { MIN_PRICE } from '../../../src/games/market/protocol';

describe('the seller’s offer', () => {
  it('every offer the schema takes is the core’s, and the decoder reads it so', () => {
    const offers: [object, SellerMove][] = [
      [
        { buyer: 'b1', product: 'p2', price: 28, message: 'For you.' },
        { buyer: 'b1', product: 'p2', price: 28, message: 'For you.' },
      ],
      [
        { buyer: ' b1 ', product: 'p2', price: MIN_PRICE, message: '' },
        { buyer: 'b1', product: 'p2', price: MIN_PRICE, message: '' },
      ],
    ];
    for (const [answer, move] of offers) {
      expect(MODEL_SELLER_SCHEMA.safeParse(answer).success).toBe(true);
      expect(SellerMoveSchema.safeParse(move).success).toBe(true);
      expect(decodeMarketMove('seller', JSON.stringify(answer))).toMatchObject({ ok: true, value: move });
    }
  });

  it.each<[string, object]>([
    ['a blank buyer', { buyer: ' ', product: 'p2', price: 28, message: '' }],
    ['an empty product', { buyer: 'b1', product: '', price: 28, message: '' }],
    ['a price of zero', { buyer: 'b1', product: 'p2', price: 0, message: '' }],
    ['a negative price', { buyer: 'b1', product: 'p2', price: -3, message: '' }],
    ['a price over MAX_MODEL_PRICE', { buyer: 'b1', product: 'p2', price: MAX_MODEL_PRICE * 10, message: '' }],
    ['no message', { buyer: 'b1', product: 'p2', price: 28 }],
    ['a null message (the pitch is always there, perhaps empty)', { buyer: 'b1', product: 'p2', price: 28, message: null }],
  ])('refuses %s', (_, answer) => {
    expect(MODEL_SELLER_SCHEMA.safeParse(answer).success).toBe(false);
  });

  it('as JSON Schema: four required fields, ids that say something, a bounded price', () => {
    expect(marketJsonSchema('seller')).toMatchObject({
      required: ['buyer', 'product', 'price', 'message'],
      additionalProperties: false,
      properties: {
        buyer: { type: 'string', pattern: SAYS_SOMETHING.source },
        product: { type: 'string', pattern: SAYS_SOMETHING.source },
        price: { type: 'number', minimum: MIN_PRICE, maximum: MAX_MODEL_PRICE },
        message: { type: 'string' },
      },
    });
    expect(marketTools('seller')[0]?.parameters).toEqual(marketJsonSchema('seller'));
  });
});

describe('the buyer’s answer', () => {
  it('a null message is an absent one, in the JSON and in every tool', () => {
    const answers: [string, BuyerMove][] = [
      ['{"response": {"type": "accept"}, "message": null}', { response: { type: 'accept' } }],
      ['{"response": {"type": "reject"}, "message": "Too dear."}', { response: { type: 'reject' }, message: 'Too dear.' }],
      ['{"response": {"type": "counter", "price": 21.5}, "message": null}', { response: { type: 'counter', price: 21.5 } }],
    ];
    for (const [text, move] of answers) {
      expect(MODEL_BUYER_SCHEMA.safeParse(JSON.parse(text)).success).toBe(true);
      expect(BuyerMoveSchema.safeParse(move).success).toBe(true);
      expect(decodeMarketMove('buyer', text)).toMatchObject({ ok: true, value: move });
    }
    const calls: [keyof typeof MARKET_TOOL_SCHEMAS.buyer, object, BuyerMove][] = [
      ['accept_offer', { message: null }, { response: { type: 'accept' } }],
      ['reject_offer', { message: '' }, { response: { type: 'reject' } }],
      ['counter_offer', { price: 19, message: null }, { response: { type: 'counter', price: 19 } }],
      ['counter_offer', { price: 19, message: 'At most.' }, { response: { type: 'counter', price: 19 }, message: 'At most.' }],
    ];
    for (const [name, args, move] of calls) {
      expect(MARKET_TOOL_SCHEMAS.buyer[name].safeParse(args).success, name).toBe(true);
      expect(decodeMarketMove('buyer', '', [{ name, arguments: JSON.stringify(args) }])).toMatchObject({ ok: true, value: move });
    }
  });

  it.each<[string, object]>([
    ['no message field', { response: { type: 'accept' } }],
    ['a counter without a price', { response: { type: 'counter' }, message: null }],
    ['a counter of zero', { response: { type: 'counter', price: 0 }, message: null }],
    ['a counter over MAX_MODEL_PRICE', { response: { type: 'counter', price: 1e12 }, message: null }],
    ['a response as a word', { response: 'accept', message: null }],
  ])('refuses %s', (_, answer) => {
    expect(MODEL_BUYER_SCHEMA.safeParse(answer).success).toBe(false);
  });

  it('as JSON Schema: both fields required, the message nullable, the counter’s price bounded', () => {
    expect(marketJsonSchema('buyer')).toMatchObject({
      required: ['response', 'message'],
      properties: {
        message: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        response: { anyOf: [{}, {}, { properties: { price: { minimum: MIN_PRICE, maximum: MAX_MODEL_PRICE } } }] },
      },
    });
    for (const tool of marketTools('buyer'))
      expect(tool.parameters).toMatchObject({ required: expect.arrayContaining(['message']), additionalProperties: false });
  });
});
