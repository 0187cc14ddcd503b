/**
 * Language-model market seats over a ChatBackend: the schemas and tools the model is given, the
 * decoder, the prompts (each seat sees only its own private values), and whole markets played by
 * a model that reads its prompt and samples from the request's seed, through both interfaces.
 */
import { describe, expect, it } from 'vitest';
import { MARKET_ANSWER_PROBLEMS } from '../../../src/games/market/llm/schema';
import { buildMarketPrompt, createMarketAgentFactory, decodeMarketMove, marketJsonSchema, marketLlmAgent, marketTools } from '../../../src/games/market';
import { scriptedBackend } from '../../../src/agents/backends/scripted';
import type { ChatBackend, ChatRequest, ChatResponse } from '../../../src/agents/backends/types';
import type { MoveInterface } from '../../../src/agents/llm/settings';
import { salesOf } from '../../../src/games/market/metrics';
import { counterOffer, sellerMove, type MarketMove } from '../../../src/games/market/moves';
import { market, type BuyerObservation, type MarketState, type SellerObservation } from '../../../src/games/market/protocol';
import { MARKET_PRESETS } from '../../../src/games/market/scenario';
import type { MarketTournamentResult } from '../../../src/games/market/tournament';
import { createRng } from '../../../src/engine/rng';
import { handMarket } from './helpers';
import { runTournament } from '../../../src/engine/tournament';
import { marketGame } from '../../../src/games/market/game';

const apply = (state: MarketState, ...moves: MarketMove[]): MarketState => {
  for (const m of moves) {
    const r = market.apply(state, market.currentActor(state), m);
    if (!r.ok) throw new Error(r.error.reason);
    state = r.value;
  }
  return state;
};

describe('what the model is given', () => {
  it('the JSON Schemas are the four-part seller message and the buyer answer, with no oneOf', () => {
    const seller = marketJsonSchema('seller') as { required: string[]; properties: Record<string, unknown> };
    expect(seller.required.sort()).toEqual(['buyer', 'message', 'price', 'product']);
    const buyer = JSON.stringify(marketJsonSchema('buyer'));
    expect(buyer).not.toMatch(/oneOf/);
    expect(buyer).toMatch(/"counter"/);
    expect(marketTools('seller').map((t) => t.name)).toEqual(['offer_product']);
    expect(marketTools('buyer').map((t) => t.name)).toEqual(['accept_offer', 'reject_offer', 'counter_offer']);
  });

  it('the seller’s prompt has its costs and stock but no buyer’s values; a buyer’s has its own values only', () => {
    const s = apply(market.initialState(handMarket({ budget: 9 })), sellerMove('b1', 'p1', 28, 'For you'), counterOffer(21), sellerMove('b2', 'p2', 13));
    const sellerText = buildMarketPrompt(market.observe(s, 'seller') as SellerObservation, { style: 'json' })
      .map((m) => m.content)
      .join('\n');
    // b2's values are 25, 14, 2 and b1's 30, 12, 9: none is the seller's to see
    expect(sellerText).toMatch(/p1 Alpha: list \$20\.00, cost \$10\.00, stock 1/);
    expect(sellerText).toMatch(/Standing counters .*b1 on p1 \$21\.00/);
    expect(sellerText).not.toMatch(/\$(30|25|14|9|2)\.00/);
    const buyerText = buildMarketPrompt(market.observe(s, 'buyer') as BuyerObservation, { style: 'tools' })
      .map((m) => m.content)
      .join('\n');
    expect(buyerText).toMatch(/You are buyer b2/);
    expect(buyerText).toMatch(/p1 Alpha \(list price \$20\.00\): worth \$25\.00 to you/);
    expect(buyerText).toMatch(/The offer now: p2 Beta at \$13\.00/);
    expect(buyerText).not.toMatch(/\$30\.00|For you|\$21\.00/);
    expect(buyerText).toMatch(/accept_offer, reject_offer or counter_offer/);
  });

  it('a long history is cut from the oldest end to fit, and says so; sales and counters stay listed', () => {
    let s = market.initialState(handMarket({ budget: 60 }));
    for (let i = 0; i < 25; i++)
      s = apply(s, sellerMove('b1', 'p3', 11.5, 'A long pitch about Gamma and why it suits you so well.'), { response: { type: 'reject' } });
    s = apply(s, sellerMove('b2', 'p2', 12), { response: { type: 'accept' } });
    const full = buildMarketPrompt(market.observe(s, 'seller') as SellerObservation, { style: 'json' });
    const cut = buildMarketPrompt(market.observe(s, 'seller') as SellerObservation, { style: 'json', maxTokens: 700 });
    const text = (m: typeof full) => m.map((x) => x.content).join('\n');
    expect(text(cut).length).toBeLessThan(text(full).length);
    expect(text(cut)).toMatch(/\(the \d+ oldest turns are left out to fit\)/);
    expect(text(cut)).toMatch(/Sales so far: b2 bought p2 at \$12\.00/);
    expect(text(cut)).toMatch(/52\. b2: accept/);
  });
});

describe('decodeMarketMove', () => {
  it('reads a seller’s offer from JSON text, a fenced block, prose or a tool call, prices written loosely', () => {
    const want = { buyer: 'b2', product: 'p1', price: 19.5, message: 'Hi' };
    expect(decodeMarketMove('seller', JSON.stringify(want))).toEqual({ ok: true, value: want });
    expect(decodeMarketMove('seller', 'Here:\n```json\n{"buyer":"b2","product":"p1","price":"$19.50","message":"Hi"}\n```')).toEqual({ ok: true, value: want });
    expect(decodeMarketMove('seller', '<think>b2 likes it</think>I will offer {"buyer": "b2", "product": "p1", "price": 19.5, "message": "Hi"} now.')).toEqual({
      ok: true,
      value: want,
      thinking: 'b2 likes it',
    });
    expect(decodeMarketMove('seller', '', [{ name: 'offer_product', arguments: JSON.stringify(want) }])).toEqual({ ok: true, value: want });
    expect(decodeMarketMove('seller', '{"buyer":"b2","product":"p1","price":19.5}')).toEqual({ ok: true, value: { ...want, message: '' } });
  });

  it('reads a buyer’s answer in the forms models write it', () => {
    expect(decodeMarketMove('buyer', '{"response":{"type":"counter","price":30},"message":"Too dear"}')).toEqual({
      ok: true,
      value: { response: { type: 'counter', price: 30 }, message: 'Too dear' },
    });
    expect(decodeMarketMove('buyer', '{"response":"accept"}')).toEqual({ ok: true, value: { response: { type: 'accept' } } });
    expect(decodeMarketMove('buyer', '{"decision":"decline"}')).toEqual({ ok: true, value: { response: { type: 'reject' } } });
    expect(decodeMarketMove('buyer', '{"response":"counter","price":"$12"}')).toEqual({ ok: true, value: { response: { type: 'counter', price: 12 } } });
    expect(decodeMarketMove('buyer', '', [{ name: 'counter_offer', arguments: '{"price": 8.25}' }])).toEqual({
      ok: true,
      value: { response: { type: 'counter', price: 8.25 } },
    });
    expect(decodeMarketMove('buyer', '', [{ name: 'accept_offer', arguments: '{"message":"deal"}' }])).toEqual({
      ok: true,
      value: { response: { type: 'accept' }, message: 'deal' },
    });
  });

  it('says why an answer is not a move, by code', () => {
    const no = (role: 'seller' | 'buyer', text: string, calls?: unknown) => {
      const d = decodeMarketMove(role, text, calls);
      return d.ok ? null : { code: d.error.code, data: d.error.data };
    };
    expect(no('seller', 'I think b2 would like p1.')).toEqual({ code: 'no-json-move', data: {} });
    expect(no('seller', '{"product":"p1","price":10}')).toEqual({ code: 'offer-needs-buyer', data: {} });
    expect(no('seller', '{"buyer":"b1","price":10}')).toEqual({ code: 'offer-needs-product', data: {} });
    expect(no('seller', '{"buyer":"b1","product":"p1"}')).toEqual({ code: 'offer-needs-price', data: {} });
    expect(no('seller', '{"buyer":"b1","product":"p1","price":"cheap"}')).toEqual({ code: 'price-unreadable', data: { value: 'cheap' } });
    expect(no('seller', '{"buyer":["b1"],"product":"p1","price":5}')).toEqual({ code: 'field-not-text', data: { field: 'buyer', value: '["b1"]' } });
    expect(no('buyer', '{"response":{"type":"counter"}}')).toEqual({ code: 'counter-needs-price', data: {} });
    expect(no('buyer', '{"response":"maybe"}')).toEqual({ code: 'unknown-response', data: { value: 'maybe' } });
    expect(no('buyer', '', [{ name: 'counter_offer', arguments: '{price' }])).toMatchObject({
      code: 'tool-arguments-not-json',
      data: { tool: 'counter_offer' },
    });
    expect(no('buyer', '', [{ name: 'counter_offer', arguments: '[1]' }])).toEqual({ code: 'tool-arguments-not-object', data: { tool: 'counter_offer' } });
    expect(no('buyer', '', [{ arguments: '{}' }])).toEqual({ code: 'tool-without-name', data: {} });
    expect(no('seller', '<think>still thinking')).toEqual({ code: 'unclosed-thinking', data: {} });
  });

  it('says each problem in English, as the model is told it on its retry', () => {
    const no = (role: 'seller' | 'buyer', text: string, calls?: unknown) => {
      const d = decodeMarketMove(role, text, calls);
      return d.ok ? null : d.error.message;
    };
    expect(no('seller', 'I think b2 would like p1.')).toBe('no JSON move in the answer; answer with one JSON object as the format says');
    expect(no('seller', '{"product":"p1","price":10}')).toBe('the offer needs a "buyer": the id of a buyer, such as "b1"');
    expect(no('seller', '{"buyer":["b1"],"product":"p1","price":5}')).toBe('"buyer" must be text, not ["b1"]');
    expect(no('seller', '[]')).toBe('the move must be a JSON object, not []');
    expect(no('buyer', '{"response":"maybe"}')).toBe('the response must be accept, reject or counter, not maybe');
    expect(no('buyer', '', [{ name: 'counter_offer', arguments: '[1]' }])).toBe('the arguments of counter_offer must be a JSON object');
    expect(no('seller', '<think>still thinking')).toBe('the answer ended inside its thinking, with no move after it');
  });
});

/** A model that reads its prompt and answers as a sensible seat would, sampling from the request's seed; some answers are no move. */
function promptModel(): ChatBackend {
  return {
    name: 'prompt-model',
    model: 'market-policy',
    capabilities: { jsonSchema: true, tools: true, thinking: true },
    async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
      signal.throwIfAborted();
      if (request.seed === undefined) throw new Error('no seed');
      const rng = createRng(request.seed);
      const prompt = request.messages.map((m) => m.content).join('\n');
      const usage = { tokensIn: Math.ceil(prompt.length / 4), tokensOut: 20, latencyMs: 3 };
      if (rng.next() < 0.1) return { text: 'Let me look at the catalog first.', ...usage };
      const tools = request.tools !== undefined;
      if (/You are the seller/.test(prompt)) {
        const buyers = (/Buyers still in the market: ([^.]*)\./.exec(prompt)?.[1] ?? '').split(', ');
        const products = [...prompt.matchAll(/- (p\d+) [^:]*: list \$([\d.]+), cost \$([\d.]+), stock (\d+)/g)].filter((m) => Number(m[4]) > 0);
        const p = products[rng.int(products.length)]!;
        const move = {
          buyer: buyers[rng.int(buyers.length)]!,
          product: p[1]!,
          price: Math.round(Number(p[2]) * (0.8 + 0.4 * rng.next()) * 100) / 100,
          message: 'A fine choice.',
        };
        return tools
          ? { text: '', toolCalls: [{ name: 'offer_product', arguments: JSON.stringify(move) }], ...usage }
          : { text: JSON.stringify(move), ...usage };
      }
      const value = Number(/It is worth \$([\d.]+) to you/.exec(prompt)?.[1]);
      const price = Number(/The offer now: \S+ .* at \$([\d.]+)/.exec(prompt)?.[1]);
      const mustAccept = /so you must accept/.test(prompt);
      const type = mustAccept || price <= value * 0.9 ? 'accept' : rng.next() < 0.5 ? 'reject' : 'counter';
      const answer = type === 'counter' ? { response: { type, price: Math.round(price * 0.7 * 100) / 100 } } : { response: { type } };
      if (!tools) return { text: JSON.stringify(answer), ...usage };
      const name = `${type}_offer`;
      return {
        text: '',
        toolCalls: [{ name, arguments: JSON.stringify(type === 'counter' ? { price: (answer.response as { price: number }).price } : {}) }],
        ...usage,
      };
    },
  };
}

describe.each(['tools', 'json'] as MoveInterface[])('model seats through the %s interface', (moveInterface) => {
  const play = async (seed: number) => {
    const model = promptModel();
    const factory = createMarketAgentFactory({}, { interface: moveInterface }, () => model);
    const results: MarketTournamentResult[] = [];
    for (const [seller, buyer] of [
      ['openai:market-model', 'margin'],
      ['greedy', 'openai:market-model'],
      ['openai:market-model', 'openai:market-model'],
    ] as const)
      await runTournament(marketGame, { sellers: [seller], buyer, configs: [MARKET_PRESETS[0]!, MARKET_PRESETS[1]!], marketsPerConfig: 3, seed }, factory, {
        onResult: (r) => void results.push(r),
      });
    return results;
  };

  it('play markets to an end: every move legal or refused with its reason, every model call on its event, the same seed the same log', async () => {
    const results = await play(11);
    expect(results).toHaveLength(18);
    let refused = 0;
    for (const r of results) {
      expect(['budget_spent', 'sold_out', 'no_buyers']).toContain(r.outcome.kind);
      let state = market.initialState(r.scenario);
      for (const e of r.events) {
        if (e.type === 'move') {
          const next = market.apply(state, e.actor, e.move);
          expect(next.ok).toBe(true);
          if (next.ok) state = next.value;
        } else if (e.type === 'forfeit') state = market.forfeit(state, e.actor);
        else if (e.type === 'invalid') {
          refused++;
          expect(e.reason.length).toBeGreaterThan(0);
        }
        const modelSeat = e.type !== 'end' && (e.actor === 'seller' ? r.seller : r.buyer).startsWith('openai:');
        if (e.type === 'move' || e.type === 'invalid') expect(e.call !== undefined, JSON.stringify(e)).toBe(modelSeat);
      }
      expect(JSON.stringify(state.sales)).toBe(JSON.stringify(salesOf(r.events)));
    }
    expect(refused).toBeGreaterThan(0);
    expect(results.some((r) => r.metrics.sales > 0)).toBe(true);
    const again = await play(11);
    expect(again.map((r) => r.events)).toEqual(results.map((r) => r.events));
  });

  it('asks as the seat’s settings say, and tells the model why an answer was refused', async () => {
    const backend = scriptedBackend(
      [
        { text: 'no move here', tokensIn: 10, tokensOut: 3 },
        moveInterface === 'tools'
          ? {
              text: '',
              toolCalls: [{ name: 'offer_product', arguments: '{"buyer":"b1","product":"p1","price":25,"message":"Hi"}' }],
              tokensIn: 10,
              tokensOut: 3,
            }
          : { text: '{"buyer":"b1","product":"p1","price":25,"message":"Hi"}', tokensIn: 10, tokensOut: 3 },
      ],
      { name: 'scripted' },
    );
    const seat = marketLlmAgent(backend, 'seller', { interface: moveInterface, temperature: 0.3, seed: 5 });
    const obs = market.observe(market.initialState(handMarket()), 'seller');
    const first = await seat.act(obs, new AbortController().signal);
    expect(first).toMatchObject({ kind: 'invalid', reason: MARKET_ANSWER_PROBLEMS['no-json-move'](), call: { backend: 'scripted', tokensIn: 10 } });
    const second = await seat.act(obs, new AbortController().signal, { attempt: 1, reason: 'no JSON move in the answer' });
    expect(second).toMatchObject({ kind: 'move', move: { buyer: 'b1', product: 'p1', price: 25, message: 'Hi' } });
    const [r1, r2] = backend.requests;
    expect(r1!.temperature).toBe(0.3);
    expect(r1!.seed).not.toBe(r2!.seed);
    if (moveInterface === 'tools') expect(r1!.tools?.map((t) => t.name)).toEqual(['offer_product']);
    else expect(r1!.responseFormat?.name).toBe('market_offer');
    expect(r2!.messages.at(-1)!.content).toMatch(/Your previous answer was refused: no JSON move in the answer\./);
  });
});
