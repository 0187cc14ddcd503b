/**
 * End to end: the LLM agent over the WebLLM backend over a fake engine, playing whole
 * negotiations against the scripted strategies through the real runner; the GPU, two models and
 * a stalled move through the worker's engine pool, as production builds it (one engine a model).
 */
import type { ChatCompletionRequestNonStreaming } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../../src/engine/clock';
import { webLlmBackend } from '../../../../src/agents/backends/webllm/backend';
import type { LoadedEngine } from '../../../../src/agents/backends/webllm/engine';
import { GPU_LOST_MESSAGE } from '../../../../src/agents/backends/webllm/errors';
import { EnginePool, type EnginePoolOptions, type EngineStatus } from '../../../../src/agents/backends/webllm/pool';
import { llmAgent } from '../../../../src/games/bilateral/llm/agent';
import { type LlmAgentOptions } from '../../../../src/agents/llm/seat';
import { moveResponseFormat, toolsSystemText } from '../../../../src/agents/backends/webllm/grammar';
import { moveJsonSchema, moveTools } from '../../../../src/games/bilateral/llm/schema';
import { makeAgent } from '../../../../src/games/bilateral/registry';
import { BilateralEventSchema, type BilateralEvent } from '../../../../src/games/bilateral/events';
import { playNegotiation, type BilateralAgentFactory, type NegotiationResult } from '../../../../src/games/bilateral/tournament';
import type { Role } from '../../../../src/games/bilateral/scenario';
import { agent, movesBy, scenario } from '../../fixtures';
import { fakeEngine, systemOf, thrifty, userOf, type FakeEngine, type FakeModel } from './fake-engine';
import { runTournament } from '../../../../src/engine/tournament';
import { bilateralGame } from '../../../../src/games/bilateral/game';

const SMALL = 'Qwen3-0.6B-q4f16_1-MLC';
const LARGER = 'Qwen3-1.7B-q4f16_1-MLC';

const llm = (engine: FakeEngine, modelId = SMALL, opts: LlmAgentOptions = {}) => llmAgent(webLlmBackend({ engine, modelId }), opts);

/** The worker's engine pool, each model's engine a fake answering as `model(modelId)`; the fakes by model. */
function pooled(model: (modelId: string) => FakeModel, opts: EnginePoolOptions = {}) {
  const fakes = new Map<string, FakeEngine>();
  const pool = new EnginePool(
    async (modelId): Promise<LoadedEngine> => {
      const engine = fakeEngine(model(modelId), { loaded: [modelId] });
      fakes.set(modelId, engine);
      return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: () => engine.unload() };
    },
    undefined,
    opts,
  );
  const fake = (modelId: string): FakeEngine => {
    const found = fakes.get(modelId);
    if (!found) throw new Error(`${modelId} was never loaded`);
    return found;
  };
  return { pool, fake, seat: (modelId: string, seatOpts: LlmAgentOptions = {}) => llmAgent(pool.backend(modelId), seatOpts) };
}

function expectStorable(events: readonly BilateralEvent[]): void {
  for (const e of events) expect(BilateralEventSchema.safeParse(e).success, JSON.stringify(e).slice(0, 200)).toBe(true);
}

const callsOf = (events: readonly BilateralEvent[], role: Role) =>
  events.flatMap((e) => ((e.type === 'move' || e.type === 'invalid') && e.actor === role && e.call ? [e.call] : []));

describe('WebLLM agent against every scripted strategy', () => {
  const strategies = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'random'];
  const cases = strategies.flatMap((s) => (['buyer', 'seller'] as const).map((role) => [s, role] as const));

  it.each(cases)('against %s, as the %s: a whole negotiation of legal moves, every request as WebLLM wants it', async (strategy, role) => {
    let call = 0;
    const engine = fakeEngine(thrifty((json) => ({ text: json, promptTokens: 300 + call, completionTokens: 20 + call++ })));
    const seats = role === 'buyer' ? { buyer: llm(engine), seller: agent(strategy, 'seller', 5) } : { buyer: agent(strategy, 'buyer', 5), seller: llm(engine) };
    const s = scenario(150, 90, { listPrice: 200, firstMover: role === 'buyer' ? 'seller' : 'buyer' });
    const { events, outcome, metrics } = await playNegotiation(s, seats);

    expect(['deal', 'walk_away', 'turn_limit']).toContain(outcome.kind);
    expect(engine.refused).toEqual([]);
    expect(engine.requests.length).toBeGreaterThan(0);
    for (const req of engine.requests) {
      expect(req.model).toBe(SMALL);
      expect(req.extra_body).toEqual({ enable_thinking: false });
      // The default interface, tools: Qwen3's tools block in the system message, one call forced by the grammar.
      expect(req.response_format).toEqual(moveResponseFormat({ interface: 'tools', thinking: false, tools: moveTools() }));
      expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(systemOf(req)).toContain(`You are the ${role}`);
      expect(systemOf(req).endsWith(toolsSystemText(moveTools()))).toBe(true);
    }
    const mine = metrics[role];
    expect(mine.invalidMoves).toBe(0);
    expect(mine.irViolation).toBe(false);
    const n = engine.requests.length;
    expect(mine.tokensIn).toBe(300 * n + (n * (n - 1)) / 2);
    expect(mine.tokensOut).toBe(20 * n + (n * (n - 1)) / 2);
    const calls = callsOf(events, role);
    expect(calls).toHaveLength(n);
    for (const c of calls) {
      expect(c).toMatchObject({ backend: 'webllm', model: SMALL });
      expect(c).not.toHaveProperty('thinking'); // WebLLM's empty <think></think> leaves none
      expect(c.raw).toMatch(/^<think>\n\n<\/think>\n\[tool call\] (make_offer|respond_to_offer)\(\{/);
    }
    if (outcome.kind === 'deal') {
      if (role === 'buyer') expect(outcome.price).toBeLessThanOrEqual(150);
      else expect(outcome.price).toBeGreaterThanOrEqual(90);
    }
    expectStorable(events);
  });

  it('with the json interface: the move schema by json_object, and moves answered as JSON', async () => {
    const engine = fakeEngine(thrifty());
    const { outcome, metrics } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), {
      buyer: llm(engine, SMALL, { interface: 'json' }),
      seller: agent('boulware', 'seller', 5),
    });
    expect(['deal', 'walk_away', 'turn_limit']).toContain(outcome.kind);
    expect(engine.refused).toEqual([]);
    for (const req of engine.requests) {
      expect(req.response_format).toEqual({ type: 'json_object', schema: JSON.stringify(moveJsonSchema()) });
      expect(systemOf(req)).not.toContain('<tools>');
    }
    expect(metrics.buyer.invalidMoves).toBe(0);
  });

  it('plays a seeded round-robin with the scripted agents; no negotiation ends in an error', async () => {
    const engine = fakeEngine(thrifty());
    const factory: BilateralAgentFactory = (spec, role, ctx) => (spec === 'webllm' ? llm(engine) : makeAgent(spec, role, ctx));
    const results: NegotiationResult[] = [];
    const summary = await runTournament(
      bilateralGame,
      { agents: ['webllm', 'boulware', 'tit-for-tat'], scenariosPerPair: 3, preset: 'standard', seed: 11, selfPlay: false },
      factory,
      { onResult: (r) => void results.push(r) },
    );
    expect(summary).toMatchObject({ planned: 18, played: 18, cancelled: false });
    expect(engine.refused).toEqual([]);
    for (const r of results) {
      expect(['deal', 'walk_away', 'turn_limit']).toContain(r.outcome.kind);
      for (const role of ['buyer', 'seller'] as const) {
        if ((role === 'buyer' ? r.buyer : r.seller) !== 'webllm') continue;
        expect(r.metrics[role].irViolation).toBe(false);
        expect(r.metrics[role].invalidMoves).toBe(0);
      }
    }
    expect(results.filter((r) => r.outcome.kind === 'deal').length).toBeGreaterThan(0);
  });
});

describe('WebLLM agent: thinking', () => {
  it('with thinking on, the <think> block is stripped before decoding and kept on the move’s call record', async () => {
    const engine = fakeEngine(
      thrifty((json, req) => `<think>\nI hold ${/private cost: \$(\d+\.\d+)/.exec(systemOf(req))?.[1]}; ${userOf(req).split('\n')[0]}\n</think>\n\n${json}`),
    );
    const { events, outcome } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), {
      buyer: agent('linear', 'buyer'),
      seller: llm(engine, SMALL, { thinking: true }),
    });
    expect(['deal', 'walk_away', 'turn_limit']).toContain(outcome.kind);
    expect(engine.refused).toEqual([]);
    for (const req of engine.requests) {
      expect(req.extra_body).toEqual({ enable_thinking: true });
      // The think block, then one tool call: thinking no longer drops the grammar.
      expect(req.response_format).toEqual(moveResponseFormat({ interface: 'tools', thinking: true, tools: moveTools() }));
    }
    const moves = events.filter((e) => e.type === 'move' && e.actor === 'seller');
    expect(moves.length).toBe(engine.requests.length);
    moves.forEach((e, i) => {
      if (e.type !== 'move') return;
      expect(e.call?.thinking).toBe(`I hold 90.00; Turn ${2 * i + 1} of 20; your turn ${i + 1} of 10.`);
      expect(e.call?.raw).toMatch(/^<think>\nI hold 90\.00/);
      expect(e.move.message ?? '').not.toContain('think');
    });
    expect(movesBy(events, 'seller')[0]).toEqual({ message: 'I can do 280.', action: { type: 'offer', price: 280 } });
    expectStorable(events);
  });
});

describe('WebLLM agent: output it cannot use', () => {
  it('malformed output becomes an invalid event with the raw text, and the retry succeeds', async () => {
    const good = thrifty();
    const engine = fakeEngine((req, i) => (i === 0 ? '<think>\nHmm.\n</think>\n\nI would pay about eighty dollars.' : good(req, i)));
    const { events } = await playNegotiation(scenario(150, 90, { listPrice: 200, firstMover: 'buyer' }), {
      buyer: llm(engine, SMALL, { thinking: true }),
      seller: agent('boulware', 'seller'),
    });
    expect(events[0]).toMatchObject({
      type: 'invalid',
      actor: 'buyer',
      attempt: 0,
      reason: expect.stringMatching(/no JSON move/),
      raw: '<think>\nHmm.\n</think>\n\nI would pay about eighty dollars.',
      call: { backend: 'webllm', model: SMALL, thinking: 'Hmm.' },
    });
    expect(events[1]).toMatchObject({ type: 'move', actor: 'buyer', move: { action: { type: 'offer', price: 60 } } });
    expect(userOf(engine.requests[1] as ChatCompletionRequestNonStreaming)).toContain('Your previous answer was refused: no JSON move');
    expectStorable(events);
  });

  it('JSON cut off at max_tokens under the grammar is invalid too, and is retried', async () => {
    const engine = fakeEngine([{ text: '{"message":"Let me explain at length why', finish: 'length' }, '{"action":{"type":"walk_away"}}']);
    const { events, outcome } = await playNegotiation(scenario(150, 90, { firstMover: 'buyer' }), {
      buyer: llm(engine, SMALL, { maxTokens: 16 }),
      seller: agent('boulware', 'seller'),
    });
    // 16 for the answer, and 4 for the empty think block WebLLM counts against max_tokens.
    expect(engine.requests.map((r) => r.max_tokens)).toEqual([20, 20]);
    expect(events.map((e) => e.type)).toEqual(['invalid', 'move', 'end']);
    expect(outcome).toMatchObject({ kind: 'walk_away', by: 'buyer' });
  });

  it('a move the protocol refuses (accept with nothing pending) is retried with the reason', async () => {
    const engine = fakeEngine(['{"action":{"type":"accept"}}', '{"action":{"type":"offer","price":75}}']);
    const { events } = await playNegotiation(scenario(150, 90, { firstMover: 'buyer', turnLimit: 2 }), {
      buyer: llm(engine),
      seller: agent('hardliner', 'seller'),
    });
    expect(events[0]).toMatchObject({ type: 'invalid', reason: 'there is no offer from the other side to accept' });
    expect(userOf(engine.requests[1] as ChatCompletionRequestNonStreaming)).toContain('refused: there is no offer from the other side to accept');
  });
});

describe('WebLLM agent: the GPU, two models, cancel', () => {
  it('a GPU lost mid-negotiation ends it as an error with a plain message; what came before is kept', async () => {
    const good = thrifty((json) => ({ text: json, promptTokens: 200, completionTokens: 12 }));
    const engine = fakeEngine((req, i) => (i < 2 ? good(req, i) : { reject: new Error('Device was lost. This can happen due to insufficient memory.') }));
    const { events, outcome, metrics } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), {
      buyer: llm(engine),
      seller: agent('boulware', 'seller'),
    });
    expect(outcome).toEqual({ kind: 'error', actor: 'buyer', message: GPU_LOST_MESSAGE, turn: 5 });
    expect(events.map((e) => e.type)).toEqual(['move', 'move', 'move', 'move', 'move', 'end']);
    expect(metrics.buyer.tokensIn).toBe(400);
    expectStorable(events);
  });

  it('a GPU lost after load (a disposed tensor, then ModelNotLoadedError) ends the negotiation at that move, and the model is lost', async () => {
    const good = thrifty();
    const t = pooled(() => (req, i) => (i < 2 ? good(req, i) : { lose: true }));
    t.pool.use([SMALL]);
    const { events, outcome } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), { buyer: t.seat(SMALL), seller: agent('boulware', 'seller') });
    expect(outcome).toEqual({ kind: 'error', actor: 'buyer', message: GPU_LOST_MESSAGE, turn: 5 });
    expect(events.map((e) => e.type)).toEqual(['move', 'move', 'move', 'move', 'move', 'end']);
    expect(t.pool.states()).toEqual([{ modelId: SMALL, state: 'lost', text: GPU_LOST_MESSAGE }]);
    // The next negotiation's first move fails at once: no reload behind the run's back.
    const next = await playNegotiation(scenario(150, 90, { listPrice: 200 }), { buyer: t.seat(SMALL), seller: agent('boulware', 'seller') });
    expect(next.outcome).toMatchObject({ kind: 'error', message: GPU_LOST_MESSAGE });
    expect(t.fake(SMALL).requests).toHaveLength(3);
    expectStorable(events);
  });

  it("compiles each seat's move format once, while the model loads, with the format the moves send", async () => {
    const t = pooled(() => thrifty());
    const statuses: EngineStatus[] = [];
    t.pool.subscribe((st) => statuses.push(st));
    t.pool.use([SMALL]);
    // Two seats of one model, on two formats (tools, and tools with thinking), made before the first move.
    const buyer = t.seat(SMALL);
    const thinker = t.seat(SMALL, { thinking: true });
    void thinker;
    const { outcome } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), { buyer, seller: agent('boulware', 'seller') });
    expect(outcome.kind).toBe('deal');
    const engine = t.fake(SMALL);
    expect(engine.warmups).toHaveLength(2);
    for (const w of engine.warmups) expect(w).toMatchObject({ max_tokens: 1, messages: [{ role: 'user', content: 'Hi' }] });
    const formats = engine.warmups.map((w) => JSON.stringify(w.response_format));
    expect(new Set(formats).size).toBe(2);
    // Every move sends a format the load compiled: none is compiled inside a move.
    for (const req of engine.requests) expect(formats).toContain(JSON.stringify(req.response_format));
    // Shown as the load's last step, before the model is ready.
    const preparing = statuses.filter((st) => st.phase === 'preparing');
    // (This loader names no phase, so the bar gives the grammars the last 4%, as after a download.)
    expect(preparing.map((st) => st.fraction)).toEqual([0.96, 0.98, 1]);
    expect(statuses.findIndex((st) => st.state === 'ready')).toBeGreaterThan(statuses.indexOf(preparing.at(-1)!));
    // A seat made later with a new format has it compiled before its first move, once.
    const jsonSeat = t.seat(SMALL, { interface: 'json' });
    await playNegotiation(scenario(150, 90, { listPrice: 200 }), { buyer: jsonSeat, seller: agent('boulware', 'seller') });
    expect(engine.warmups).toHaveLength(3);
    expect(engine.warmups[2]?.response_format?.type).toBe('json_object');
  });

  it('a load whose grammar compile never ends fails as a timeout, and the engine goes', async () => {
    const clock = new SimulatedClock();
    let unloads = 0;
    const pool = new EnginePool(
      async (): Promise<LoadedEngine> => ({
        chat: { completions: { create: () => new Promise<never>(() => undefined) } },
        interruptGenerate: () => undefined,
        unload: async () => void unloads++,
        terminate: () => void unloads++,
      }),
      undefined,
      { moveTimeout: { baseMs: 30_000, perTokenMs: 0 }, stopGraceMs: 5_000, sleep: (ms, signal) => clock.sleep(ms, signal) },
    );
    const statuses: EngineStatus[] = [];
    pool.subscribe((st) => statuses.push(st));
    pool.use([SMALL]);
    const seat = llmAgent(pool.backend(SMALL));
    const playing = playNegotiation(scenario(150, 90, { listPrice: 200, firstMover: 'buyer' }), { buyer: seat, seller: agent('boulware', 'seller') });
    await expect.poll(() => statuses.some((st) => st.phase === 'preparing')).toBe(true);
    await clock.advance(30_000);
    const { outcome } = await playing;
    expect(outcome).toMatchObject({ kind: 'error', actor: 'buyer' });
    expect(outcome.kind === 'error' && outcome.message).toContain('did not compile its move formats within 30 s');
    expect(statuses.at(-1)).toMatchObject({ state: 'failed' });
    expect(unloads).toBe(1);
  });

  it('buyer and seller on two models: each has an engine of its own, and each request names its model', async () => {
    const t = pooled(() => thrifty());
    t.pool.use([SMALL, LARGER]);
    const { events, outcome } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), { buyer: t.seat(SMALL), seller: t.seat(LARGER) });
    expect(outcome.kind).toBe('deal');
    for (const [modelId, role] of [
      [SMALL, 'buyer'],
      [LARGER, 'seller'],
    ] as const) {
      const engine = t.fake(modelId);
      expect(engine.refused).toEqual([]);
      expect(engine.requests.length).toBeGreaterThan(0);
      for (const req of engine.requests) {
        expect(req.model).toBe(modelId);
        expect(systemOf(req)).toContain(`You are the ${role}`);
      }
      expect(new Set(callsOf(events, role).map((c) => c.model))).toEqual(new Set([modelId]));
    }
  });

  it('a move WebLLM never finishes is an invalid answer at its time limit: the engine is ended, and the retry loads the model afresh', async () => {
    const clock = new SimulatedClock();
    const good = thrifty();
    let loads = 0;
    const t = pooled(
      () => {
        const load = ++loads;
        return (req, i) => (load === 1 && i === 1 ? { stall: true } : good(req, i));
      },
      { moveTimeout: { baseMs: 30_000, perTokenMs: 0 }, stopGraceMs: 5_000, sleep: (ms, signal) => clock.sleep(ms, signal) },
    );
    t.pool.use([SMALL]);
    const playing = playNegotiation(scenario(150, 90, { listPrice: 200, firstMover: 'buyer' }), { buyer: t.seat(SMALL), seller: agent('boulware', 'seller') });
    await expect.poll(() => t.fake(SMALL).requests.length).toBe(2);
    clock.advance(30_000);
    await expect.poll(() => t.fake(SMALL).interrupts).toBe(1);
    clock.advance(5_000);
    const { events, outcome } = await playing;
    // The stalled move is the model's failure to answer, with the reason it is told on its retry;
    // the retry went to a fresh engine, and the negotiation played on.
    const invalid = events.filter((e) => e.type === 'invalid');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({
      actor: 'buyer',
      reason: expect.stringMatching(/^Qwen3-0\.6B-q4f16_1-MLC gave no answer within 30 s\. WebLLM did not stop/),
    });
    expect(['deal', 'walk_away', 'turn_limit']).toContain(outcome.kind);
    expect(loads).toBe(2);
    expectStorable(events);
  });

  it('a request for a model the engine has not loaded is refused by WebLLM and ends as an error', async () => {
    const engine = fakeEngine(thrifty(), { loaded: [SMALL] });
    const { outcome } = await playNegotiation(scenario(150, 90), { buyer: agent('boulware', 'buyer'), seller: llm(engine, LARGER) });
    expect(outcome).toMatchObject({ kind: 'error', actor: 'seller', message: expect.stringContaining(`WebLLM could not answer with ${LARGER}`) });
  });

  it('cancel interrupts the generation in flight and ends the negotiation as cancelled', async () => {
    const controller = new AbortController();
    const good = thrifty();
    const engine = fakeEngine((req, i) => {
      if (i === 0) return good(req, i);
      queueMicrotask(() => controller.abort(new Error('user pressed stop')));
      return { hang: true, partial: '{"action":{"type":' };
    });
    const { events, outcome } = await playNegotiation(
      scenario(150, 90),
      { buyer: agent('boulware', 'buyer'), seller: llm(engine) },
      { signal: controller.signal },
    );
    expect(outcome).toEqual({ kind: 'cancelled', turn: 2 });
    expect(events.map((e) => e.type)).toEqual(['move', 'move', 'end']);
    expect(engine.interrupts).toBe(1);
  });
});
