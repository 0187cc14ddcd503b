import { describe, expect, it } from 'vitest';
import { MOVE_PROBLEMS } from '../../../src/games/bilateral/llm/problems';
import { SimulatedClock } from '../../../src/engine/clock';
import { BilateralEventSchema, type BilateralEvent } from '../../../src/games/bilateral/events';
import type { Move } from '../../../src/games/bilateral/moves';
import { playNegotiation, type BilateralAgent } from '../../../src/games/bilateral/tournament';
import type { Role } from '../../../src/games/bilateral/scenario';
import { scriptedBackend, type ScriptedBackendOptions, type ScriptedReply } from '../../../src/agents/backends/scripted';
import { BackendError, MOVE_TOKENS, THINKING_MAX_TOKENS, type ChatRequest, type ChatResponse } from '../../../src/agents/backends/types';
import { estimateTokens } from '../../../src/agents/llm/tokens';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { requestSeed, type LlmAgentOptions } from '../../../src/agents/llm/seat';
import { MOVE_SCHEMA_NAME, MOVE_TOOLS, moveJsonSchema } from '../../../src/games/bilateral/llm/schema';
import { agent, observeAfter, scenario } from '../fixtures';

const reply = (text: string, extra: Partial<ChatResponse> = {}): ChatResponse => ({ text, tokensIn: 120, tokensOut: 15, ...extra });
const toolReply = (name: string, args: object, extra: Partial<ChatResponse> = {}): ChatResponse =>
  reply('', { toolCalls: [{ name, arguments: JSON.stringify(args) }], ...extra });

/** A backend whose latency passes on a fake clock, and an agent that reads the same clock. */
function timed(replies: ScriptedReply[], latencyMs: number, opts: ScriptedBackendOptions = {}, agentOpts: LlmAgentOptions = {}) {
  let time = 0;
  const backend = scriptedBackend(replies, {
    latencyMs,
    sleep: async (ms) => {
      time += ms;
    },
    ...opts,
  });
  return { backend, llm: llmAgent(backend, { now: () => time, ...agentOpts }) };
}

const movesOf = (events: readonly BilateralEvent[], role: Role): Move[] => events.flatMap((e) => (e.type === 'move' && e.actor === role ? [e.move] : []));
const userText = (req: ChatRequest | undefined): string => req?.messages.find((m) => m.role === 'user')?.content ?? '';

function expectStorable(events: readonly BilateralEvent[]): void {
  for (const e of events) expect(BilateralEventSchema.safeParse(e).success, JSON.stringify(e).slice(0, 200)).toBe(true);
}

describe('llmAgent: a negotiation by JSON-schema decoding', () => {
  it('plays each scripted answer as its move, and records every call', async () => {
    const s = scenario(150, 90, { listPrice: 200, firstMover: 'seller' });
    const { backend, llm } = timed(
      [
        reply('{"message":"Hello there.","action":{"type":"offer","price":60}}', { tokensIn: 300, tokensOut: 21, model: 'qwen3-0.6b-q4f16' }),
        reply('Sure.\n```json\n{"action":{"type":"offer","price":"$70"}}\n```'),
        reply('<think>The seller keeps coming down; take it.</think>\n{"message":"Deal.","action":{"type":"accept"}}'),
      ],
      250,
      {},
      { interface: 'json' },
    );
    const { events, outcome } = await playNegotiation(s, { buyer: llm, seller: agent('boulware', 'seller') });

    expect(movesOf(events, 'buyer')).toEqual([
      { message: 'Hello there.', action: { type: 'offer', price: 60 } },
      { action: { type: 'offer', price: 70 } },
      { message: 'Deal.', action: { type: 'accept' } },
    ]);
    const sellerOffers = movesOf(events, 'seller').map((m) => (m.action?.type === 'offer' ? m.action.price : NaN));
    expect(sellerOffers).toHaveLength(3);
    expect(outcome).toEqual({ kind: 'deal', price: sellerOffers[2], turn: 6, acceptedBy: 'buyer' });

    const calls = events.flatMap((e) => (e.type === 'move' && e.actor === 'buyer' ? [e.call] : []));
    expect(calls[0]).toMatchObject({ backend: 'scripted', model: 'qwen3-0.6b-q4f16', latencyMs: 250, tokensIn: 300, tokensOut: 21 });
    expect(calls[1]).toMatchObject({
      model: 'scripted-model',
      tokensIn: 120,
      tokensOut: 15,
      raw: 'Sure.\n```json\n{"action":{"type":"offer","price":"$70"}}\n```',
    });
    expect(calls[1]).not.toHaveProperty('thinking');
    expect(calls[2]).toMatchObject({ thinking: 'The seller keeps coming down; take it.' });
    expect(calls[2]?.raw).toContain('<think>');
    expect(calls[0]?.prompt).toContain('[system]\nYou are the buyer');
    expect(calls[0]?.prompt).toContain(`binding offer: $${sellerOffers[0]?.toFixed(2)}`);
    expect(events.filter((e) => e.type === 'move' && e.actor === 'seller').every((e) => !('call' in e))).toBe(true);
    expectStorable(events);

    expect(backend.requests).toHaveLength(3);
    for (const req of backend.requests) {
      expect(req.responseFormat).toEqual({ type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() });
      expect(req.tools).toBeUndefined();
      expect(req.thinking).toBe(false);
      expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
    }
    expect(userText(backend.requests[1])).toContain('2. you: "Hello there." [binding offer: $60.00]');
  });

  it('takes the latency a backend timed itself over its own timing of the whole call', async () => {
    const { llm } = timed([reply('{"action":{"type":"walk_away"}}', { latencyMs: 42 }), reply('{"action":{"type":"walk_away"}}')], 900);
    const s = scenario(150, 90, { listPrice: 200, firstMover: 'buyer' });
    const first = await llm.act(observeAfter(s, []), new AbortController().signal);
    expect(first.kind === 'move' && first.call?.latencyMs).toBe(42);
    const second = await llm.act(observeAfter(s, []), new AbortController().signal);
    expect(second.kind === 'move' && second.call?.latencyMs).toBe(900);
  });

  it('passes the thinking flag, temperature and token limit on', async () => {
    const { backend, llm } = timed([reply('{"action":{"type":"walk_away"}}')], 0, {}, { thinking: true, temperature: 0.7, maxTokens: 256 });
    await playNegotiation(scenario(150, 90), { buyer: agent('boulware', 'buyer'), seller: llm });
    expect(backend.requests[0]).toMatchObject({ thinking: true, temperature: 0.7, maxTokens: 256 });
  });

  it('plays a whole negotiation against a model that reads its prompt', async () => {
    // A "model" that accepts any pending offer under 120 and otherwise bids 5 more each turn.
    let bid = 50;
    const answer = (req: ChatRequest): ChatResponse => {
      const pending = /binding offer of \$(\d+\.\d+); you may accept/.exec(userText(req));
      if (pending && Number(pending[1]) <= 120) return reply('{"action":{"type":"accept"}}');
      bid += 5;
      return reply(`My offer: {"action":{"type":"offer","price":${bid}}}`);
    };
    const backend = scriptedBackend(Array.from({ length: 10 }, () => answer));
    const { events, outcome, metrics } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), {
      buyer: llmAgent(backend),
      seller: agent('linear', 'seller'),
    });
    expect(outcome.kind).toBe('deal');
    if (outcome.kind === 'deal') expect(outcome.price).toBeLessThanOrEqual(120);
    const bids = movesOf(events, 'buyer').flatMap((m) => (m.action?.type === 'offer' ? [m.action.price] : []));
    expect(bids).toEqual(bids.map((_, i) => 55 + 5 * i));
    expect(metrics.buyer.invalidMoves).toBe(0);
    expect(metrics.buyer.tokensIn).toBe(120 * backend.requests.length);
    expectStorable(events);
  });
});

describe('llmAgent: tools and plain text', () => {
  it('asks by tools, the default interface, and plays the tool calls', async () => {
    const s = scenario(150, 90, { listPrice: 200, firstMover: 'buyer' });
    const { backend, llm } = timed(
      [
        toolReply('make_offer', { price: 240, message: 'It is nearly new.' }),
        toolReply('send_message', { message: 'Can you do better?' }),
        toolReply('respond_to_offer', { decision: 'reject' }),
        toolReply('walk_away', { message: 'Too far apart.' }),
      ],
      40,
      { name: 'anthropic', model: 'claude-test', capabilities: { jsonSchema: false, tools: true } },
    );
    const buyer: BilateralAgent = {
      act: (obs) => ({ kind: 'move', move: { action: { type: 'offer', price: 50 + obs.ownTurn } } }),
    };
    const { events, outcome } = await playNegotiation(s, { buyer, seller: llm });
    expect(movesOf(events, 'seller')).toEqual([
      { message: 'It is nearly new.', action: { type: 'offer', price: 240 } },
      { message: 'Can you do better?' },
      { action: { type: 'reject' } },
      { message: 'Too far apart.', action: { type: 'walk_away' } },
    ]);
    expect(outcome).toEqual({ kind: 'walk_away', by: 'seller', turn: 8 });
    for (const req of backend.requests) {
      expect(req.tools).toEqual(MOVE_TOOLS);
      expect(req.responseFormat).toBeUndefined();
      expect(req.messages[0]?.content).toMatch(/calling exactly one tool/);
    }
    const first = events.find((e) => e.type === 'move' && e.actor === 'seller');
    expect(first).toMatchObject({
      call: { backend: 'anthropic', model: 'claude-test', latencyMs: 40, raw: '[tool call] make_offer({"price":240,"message":"It is nearly new."})' },
    });
    expectStorable(events);
  });

  it('asks for JSON by the prompt alone where the backend has no schema decoding', async () => {
    const { backend, llm } = timed(
      [reply('I will walk: {"action":"walk_away"}')],
      0,
      { capabilities: { jsonSchema: false, tools: false } },
      { interface: 'json' },
    );
    const { outcome } = await playNegotiation(scenario(150, 90), { buyer: agent('boulware', 'buyer'), seller: llm });
    expect(outcome).toMatchObject({ kind: 'walk_away', by: 'seller' });
    expect(backend.requests[0]?.responseFormat).toBeUndefined();
    expect(backend.requests[0]?.tools).toBeUndefined();
    expect(backend.requests[0]?.messages[0]?.content).toMatch(/Answer with one JSON object/);
  });

  it('sends the tools by default, the schema for json, and refuses tools to a backend that takes none', async () => {
    const obs = observeAfter(scenario(150, 90), []);
    const walk = () => reply('{"action":{"type":"walk_away"}}');
    const byDefault = scriptedBackend([walk()]);
    await llmAgent(byDefault).act(obs, new AbortController().signal);
    expect(byDefault.requests[0]).toMatchObject({ tools: MOVE_TOOLS });
    expect(byDefault.requests[0]?.responseFormat).toBeUndefined();
    const json = scriptedBackend([walk()]);
    await llmAgent(json, { interface: 'json' }).act(obs, new AbortController().signal);
    expect(json.requests[0]?.responseFormat).toEqual({ type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() });
    expect(json.requests[0]?.tools).toBeUndefined();
    expect(() => llmAgent(scriptedBackend([], { capabilities: { tools: false } }))).toThrow(/takes no tools.*json interface/);
  });
});

describe('llmAgent: bounded and seeded', () => {
  const s = scenario(150, 90, { listPrice: 200, firstMover: 'buyer' });
  const live = () => new AbortController().signal;
  const walk = () => reply('{"action":{"type":"walk_away"}}');

  it('limits every answer: a move without thinking, thinking and a move with it, or what it is told', async () => {
    const plain = scriptedBackend([walk()]);
    await llmAgent(plain).act(observeAfter(s, []), live());
    const thinking = scriptedBackend([walk()]);
    await llmAgent(thinking, { thinking: true }).act(observeAfter(s, []), live());
    const told = scriptedBackend([walk()]);
    await llmAgent(told, { thinking: true, maxTokens: 700 }).act(observeAfter(s, []), live());
    expect([plain, thinking, told].map((b) => b.requests[0]?.maxTokens)).toEqual([MOVE_TOKENS, THINKING_MAX_TOKENS, 700]);
  });

  it('derives each request’s seed from the seat’s seed, the turn and the attempt: the same again on a rerun', async () => {
    const play = async () => {
      const backend = scriptedBackend([reply('no move here'), ...Array.from({ length: 12 }, () => reply('{"action":{"type":"offer","price":80}}'))]);
      await playNegotiation(scenario(150, 90, { listPrice: 200, firstMover: 'buyer', turnLimit: 6 }), {
        buyer: llmAgent(backend, { seed: 1234 }),
        seller: agent('hardliner', 'seller'),
      });
      return backend.requests.map((r) => r.seed);
    };
    const seeds = await play();
    expect(seeds).toEqual(await play());
    // turn 0 attempt 0 (refused), turn 0 attempt 1, then turns 2 and 4
    expect(seeds).toEqual([requestSeed(1234, 0, 0), requestSeed(1234, 0, 1), requestSeed(1234, 2, 0), requestSeed(1234, 4, 0)]);
    expect(new Set(seeds).size).toBe(4);
    for (const seed of seeds) expect(Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) < 2 ** 31).toBe(true);
    const unseeded = scriptedBackend([walk()]);
    await llmAgent(unseeded).act(observeAfter(s, []), live());
    expect(unseeded.requests[0]).not.toHaveProperty('seed');
  });

  it('reads an answer stopped at the token limit as invalid, "cut off at N tokens", even if a move can be read from it', async () => {
    const backend = scriptedBackend([
      reply('{"action":{"type":"offer","price":80}}', { truncated: true, tokensOut: 300 }),
      reply('<think>Let me think about this for a very long', { truncated: true }),
      walk(),
    ]);
    const llm = llmAgent(backend, { maxTokens: 300 });
    const cut = await llm.act(observeAfter(s, []), live());
    expect(cut).toMatchObject({ kind: 'invalid', reason: 'cut off at 300 tokens; answer briefly', raw: '{"action":{"type":"offer","price":80}}' });
    const thinker = llmAgent(backend, { thinking: true });
    expect(await thinker.act(observeAfter(s, []), live(), { attempt: 1, reason: 'x' })).toMatchObject({
      kind: 'invalid',
      reason: `cut off at ${THINKING_MAX_TOKENS} tokens; think less and answer briefly`,
      call: { thinking: 'Let me think about this for a very long' },
    });
    expect(await llm.act(observeAfter(s, []), live())).toMatchObject({ kind: 'move' });
  });

  it('fits the prompt into the backend’s context window with the answer reserved', async () => {
    const long = scenario(150, 90, { listPrice: 200, turnLimit: 60 });
    const moves = Array.from({ length: 40 }, (_, i) => ({
      message: `Message number ${i}: ${'we should meet halfway on this. '.repeat(18)}`,
      action: { type: 'offer' as const, price: 100 + i },
    }));
    const obs = observeAfter(long, moves);
    const big = scriptedBackend([walk()]);
    await llmAgent(big, { interface: 'json' }).act(obs, live());
    const small = Object.assign(scriptedBackend([walk()]), { contextWindow: 4096 });
    await llmAgent(small, { interface: 'json' }).act(obs, live());
    const shown = (b: typeof big) => (b.requests[0]?.messages ?? []).map((m) => estimateTokens(m.content)).reduce((a, c) => a + c, 0);
    expect(shown(small)).toBeLessThanOrEqual(4096 - MOVE_TOKENS);
    expect(userText(small.requests[0])).toContain('are left out to fit');
    // every binding offer is still there
    for (let i = 0; i < 40; i++) expect(userText(small.requests[0])).toContain(`[binding offer: $${(100 + i).toFixed(2)}]`);
  });
});

describe('llmAgent: refused answers and retries', () => {
  it('records malformed output as an invalid move with the raw text, kept once, and the retry prompt says why', async () => {
    const s = scenario(150, 90, { listPrice: 200, firstMover: 'buyer' });
    const { backend, llm } = timed(
      [
        reply('I would pay about eighty dollars.', { tokensIn: 90, tokensOut: 9 }),
        reply('<think>oops</think>{"action":{"type":"offer"}}'),
        reply('{"action":{"type":"offer","price":80}}'),
      ],
      10,
    );
    const { events } = await playNegotiation(s, { buyer: llm, seller: agent('hardliner', 'seller') });
    const [first, second, third] = events;
    expect(first).toMatchObject({
      type: 'invalid',
      actor: 'buyer',
      attempt: 0,
      reason: MOVE_PROBLEMS['no-json-move'](),
      raw: 'I would pay about eighty dollars.',
      call: { tokensIn: 90, tokensOut: 9, latencyMs: 10 },
    });
    // On the event alone: the call beside it does not hold the same text again.
    expect(first?.type === 'invalid' && first.call && 'raw' in first.call).toBe(false);
    expect(second).toMatchObject({ type: 'invalid', attempt: 1, reason: MOVE_PROBLEMS['offer-needs-price'](), call: { thinking: 'oops' } });
    expect(third).toMatchObject({ type: 'move', actor: 'buyer', move: { action: { type: 'offer', price: 80 } } });

    expect(userText(backend.requests[0])).not.toContain('refused');
    expect(userText(backend.requests[1])).toContain('Your previous answer was refused: no JSON move');
    expect(userText(backend.requests[2])).toContain('Your previous answer was refused: an offer needs a "price"');
    expectStorable(events);
  });

  it('a decoded move the protocol refuses is an invalid move too, and its reason reaches the model', async () => {
    const s = scenario(150, 90, { firstMover: 'buyer' });
    const { backend, llm } = timed([reply('{"action":{"type":"accept"}}'), reply('{"action":{"type":"offer","price":75}}')], 5);
    const { events } = await playNegotiation(s, { buyer: llm, seller: agent('hardliner', 'seller') });
    expect(events[0]).toMatchObject({
      type: 'invalid',
      reason: 'there is no offer from the other side to accept',
      raw: '{"action":{"type":"accept"}}',
      call: { raw: '{"action":{"type":"accept"}}', latencyMs: 5 },
    });
    expect(userText(backend.requests[1])).toContain('refused: there is no offer from the other side to accept');
  });

  it('forfeits the turn after the retries run out, and play goes on', async () => {
    const s = scenario(150, 90, { firstMover: 'buyer', turnLimit: 4 });
    const { backend, llm } = timed(
      ['nope', 'still nope', '???', '{"action":{"type":"walk_away"}}'].map((t) => reply(t)),
      0,
    );
    const { events, outcome } = await playNegotiation(s, { buyer: llm, seller: agent('hardliner', 'seller') });
    expect(events.map((e) => e.type)).toEqual(['invalid', 'invalid', 'invalid', 'forfeit', 'move', 'move', 'end']);
    expect(outcome).toMatchObject({ kind: 'walk_away', by: 'buyer' });
    expect(userText(backend.requests[3])).toContain('1. you: [missed the turn]');
  });
});

describe('llmAgent: failing backends and cancellation', () => {
  it('a backend error ends the negotiation as an error with its message', async () => {
    const { llm } = timed([reply('{"action":{"type":"offer","price":60}}'), new BackendError('http', 'HTTP 503: overloaded', { status: 503 })], 0);
    const { events, outcome } = await playNegotiation(scenario(150, 90), { buyer: llm, seller: agent('boulware', 'seller') });
    expect(outcome).toEqual({ kind: 'error', actor: 'buyer', message: 'HTTP 503: overloaded', turn: 3 });
    expect(events.map((e) => e.type)).toEqual(['move', 'move', 'move', 'end']);
  });

  it('a backend that returns nothing is a bad response, and ends as an error', async () => {
    const backend = scriptedBackend([() => null as unknown as ChatResponse]);
    const { outcome } = await playNegotiation(scenario(150, 90), { buyer: agent('boulware', 'buyer'), seller: llmAgent(backend) });
    expect(outcome).toMatchObject({ kind: 'error', actor: 'seller', message: 'scripted returned no response' });
  });

  it('cancel interrupts a call in flight and ends the negotiation as cancelled', async () => {
    const controller = new AbortController();
    let callSignal: AbortSignal | undefined;
    const backend = scriptedBackend([reply('{"action":{"type":"offer","price":200}}'), reply('{"action":{"type":"offer","price":190}}')], {
      latencyMs: (i) => (i === 0 ? 0 : 60_000),
      sleep: (_, signal) => {
        callSignal = signal;
        controller.abort(new Error('user pressed stop'));
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      },
    });
    const { events, outcome } = await playNegotiation(
      scenario(150, 90),
      { buyer: agent('boulware', 'buyer'), seller: llmAgent(backend) },
      { signal: controller.signal },
    );
    expect(outcome).toEqual({ kind: 'cancelled', turn: 2 });
    expect(events.map((e) => e.type)).toEqual(['move', 'move', 'end']);
    expect(callSignal?.aborted).toBe(true);
  });

  it('an answer that arrives after the cancel is not played', async () => {
    const controller = new AbortController();
    const backend = scriptedBackend([
      () => {
        controller.abort();
        return reply('{"action":{"type":"offer","price":200}}');
      },
    ]);
    const { events, outcome } = await playNegotiation(
      scenario(150, 90),
      { buyer: agent('boulware', 'buyer'), seller: llmAgent(backend) },
      { signal: controller.signal },
    );
    expect(outcome).toEqual({ kind: 'cancelled', turn: 0 });
    expect(events.map((e) => e.type)).toEqual(['end']);
  });

  it("a slow model runs into the runner's timeout, which aborts the call", async () => {
    const clock = new SimulatedClock();
    let callSignal: AbortSignal | undefined;
    const backend = scriptedBackend([reply('{"action":{"type":"offer","price":200}}')], {
      latencyMs: 5_000,
      sleep: (ms, signal) => {
        callSignal = signal;
        return clock.sleep(ms, signal);
      },
    });
    const pending = playNegotiation(
      scenario(150, 90),
      { buyer: agent('boulware', 'buyer'), seller: llmAgent(backend, { now: () => clock.now() }) },
      { clock, moveTimeoutMs: 1_000 },
    );
    while (callSignal === undefined) await new Promise((r) => setTimeout(r, 0));
    clock.advance(1_000);
    const { outcome } = await pending;
    expect(outcome).toEqual({ kind: 'error', actor: 'seller', message: 'no answer within 1000 ms', turn: 0 });
    expect(callSignal.aborted).toBe(true);
  });
});
