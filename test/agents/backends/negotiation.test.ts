/**
 * Whole negotiations and tournaments with the LLM agent over the real HTTP clients, against the
 * local chat server. Every model move in the results is checked against what the server was
 * scripted to answer.
 */
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/agents/backends/anthropic';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { openAiBackend } from '../../../src/agents/backends/openai';
import type { ChatBackend } from '../../../src/agents/backends/types';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { makeAgent } from '../../../src/games/bilateral/registry';
import { BilateralEventSchema, type BilateralEvent } from '../../../src/games/bilateral/events';
import { playNegotiation, type BilateralAgentFactory, type NegotiationResult, type TournamentConfig } from '../../../src/games/bilateral/tournament';
import type { Role } from '../../../src/games/bilateral/scenario';
import { agent, scenario } from '../fixtures';
import { malformed, move, promptOf, rateLimited, serverError, slow, thinkThen, type ChatServer, type RecordedRequest } from '../../support/chat-server';
import { policy, policyAnswer } from '../../support/policy-model';
import { serverPerTest } from './helpers';
import { runTournament } from '../../../src/engine/tournament';
import { bilateralGame } from '../../../src/games/bilateral/game';

const KEY = 'sk-e2e-test-5566778899';

const serve = serverPerTest();

const noWait = { sleep: async () => {}, random: () => 0 };

const movesBy = (events: readonly BilateralEvent[], role: Role) => events.flatMap((e) => (e.type === 'move' && e.actor === role ? [e] : []));

function expectStorable(events: readonly BilateralEvent[]): void {
  for (const e of events) expect(BilateralEventSchema.safeParse(e).success, JSON.stringify(e).slice(0, 200)).toBe(true);
}

/** Each model move in the log is the one the policy gives for the prompt on its call record. */
function expectPolicyMoves(events: readonly BilateralEvent[], role: Role): number {
  const moves = movesBy(events, role);
  for (const e of moves) {
    expect(e.call?.prompt).toBeDefined();
    expect(e.move).toEqual(policy(e.call?.prompt ?? ''));
  }
  return moves.length;
}

describe('one negotiation over HTTP', () => {
  it('plays exactly what the server answered: moves, a refused answer, a 429 waited out, thinking, then the deal', async () => {
    const s = await serve([
      move({ message: 'I can do sixty.', action: { type: 'offer', price: 60 } }, { tokensIn: 311, tokensOut: 24, model: 'qwen3-8b-2025' }),
      rateLimited(1),
      malformed('Hmm, seventy feels right to me.'),
      thinkThen('They came down twice; 70 is fair.', { action: { type: 'offer', price: 70 } }),
      move({ message: 'Deal.', action: { type: 'accept' } }),
    ]);
    const waits: number[] = [];
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'qwen3-8b', apiKey: KEY, sleep: async (ms) => void waits.push(ms) });
    const seller = agent('boulware', 'seller');
    const { events, outcome, metrics } = await playNegotiation(scenario(150, 90, { listPrice: 200 }), { buyer: llmAgent(backend), seller });

    const buyerMoves = movesBy(events, 'buyer');
    expect(buyerMoves.map((e) => e.move)).toEqual([
      { message: 'I can do sixty.', action: { type: 'offer', price: 60 } },
      { action: { type: 'offer', price: 70 } },
      { message: 'Deal.', action: { type: 'accept' } },
    ]);
    const invalid = events.filter((e) => e.type === 'invalid');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ actor: 'buyer', turn: 3, attempt: 0, raw: 'Hmm, seventy feels right to me.' });
    expect(buyerMoves[0]?.call).toMatchObject({ backend: 'openai', model: 'qwen3-8b-2025', tokensIn: 311, tokensOut: 24 });
    expect(buyerMoves[1]?.call).toMatchObject({ thinking: 'They came down twice; 70 is fair.', model: 'qwen3-8b' });

    const sellerOffers = movesBy(events, 'seller').map((e) => (e.move.action?.type === 'offer' ? e.move.action.price : NaN));
    expect(outcome).toEqual({ kind: 'deal', price: sellerOffers[2], turn: 6, acceptedBy: 'buyer' });
    expect(metrics.buyer.invalidMoves).toBe(1);
    expectStorable(events);

    expect(waits).toEqual([1000]);
    expect(s.requests).toHaveLength(5);
    expect(promptOf(s.requests[3] as RecordedRequest).user).toContain('Your previous answer was refused');
    for (const req of s.requests) {
      expect(req.model).toBe('qwen3-8b');
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  const clients: [string, (s: ChatServer) => ChatBackend][] = [
    ['openai (json_schema)', (s) => openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', apiKey: KEY, ...noWait })],
    ['openai (tools)', (s) => openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', jsonMode: 'none', ...noWait })],
    ['anthropic (tools)', (s) => anthropicBackend({ baseUrl: s.url, model: 'claude-test', apiKey: KEY, ...noWait })],
    ['gemini (responseSchema)', (s) => geminiBackend({ baseUrl: s.url, model: 'gemini-test', apiKey: KEY, ...noWait })],
  ];

  it.each(clients)('%s: a model that reads its prompt, checked move by move', async (_, make) => {
    const s = await serve(policyAnswer);
    const backend = make(s);
    const { events, outcome } = await playNegotiation(scenario(200, 120, { listPrice: 250 }), {
      buyer: agent('conceder', 'buyer'),
      seller: llmAgent(backend),
    });
    const played = expectPolicyMoves(events, 'seller');
    expect(played).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'invalid')).toEqual([]);
    expect(s.requests).toHaveLength(played);
    expect(['deal', 'walk_away', 'turn_limit']).toContain(outcome.kind);
    expectStorable(events);
  });
});

describe('tournaments over HTTP', () => {
  const CONFIG: TournamentConfig = {
    agents: ['llm', 'boulware', 'conceder'],
    scenariosPerPair: 3,
    preset: 'standard',
    seed: 11,
    selfPlay: false,
    deadline: { kind: 'fixed', turns: 10 },
    firstMover: 'seller',
  };

  const factoryWith =
    (backend: ChatBackend): BilateralAgentFactory =>
    (spec, role, ctx) =>
      spec === 'llm' ? llmAgent(backend) : makeAgent(spec, role, ctx);

  async function play(config: TournamentConfig, backend: ChatBackend) {
    const results: NegotiationResult[] = [];
    const summary = await runTournament(bilateralGame, config, factoryWith(backend), { concurrency: 4, onResult: (r) => void results.push(r) });
    return { results, summary };
  }

  it('plays a tournament at concurrency 4 in plan order, every model move the server’s', async () => {
    const s = await serve((req) => slow(3, policyAnswer(req)));
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', apiKey: KEY, concurrency: 3, ...noWait });
    const { results, summary } = await play(CONFIG, backend);

    expect(summary).toEqual({ planned: 18, played: 18, skipped: 0, cancelled: false });
    expect(results.map((r) => r.index)).toEqual(results.map((_, i) => i));
    let calls = 0;
    for (const r of results) {
      expect(r.outcome.kind).not.toBe('error');
      if (r.buyer === 'llm') calls += expectPolicyMoves(r.events, 'buyer');
      if (r.seller === 'llm') calls += expectPolicyMoves(r.events, 'seller');
      expect(r.events.some((e) => e.type === 'invalid')).toBe(false);
      expectStorable(r.events);
    }
    expect(results.filter((r) => r.buyer === 'llm' || r.seller === 'llm')).toHaveLength(12);
    expect(s.requests).toHaveLength(calls);
    expect(s.maxInFlight).toBeGreaterThan(1);
    expect(s.maxInFlight).toBeLessThanOrEqual(3);
    const tokensIn = results.reduce((sum, r) => sum + r.metrics.buyer.tokensIn + r.metrics.seller.tokensIn, 0);
    expect(tokensIn).toBe(s.requests.reduce((sum, req) => sum + 200 + req.index, 0));
  });

  it('ends the negotiations of a provider that keeps failing as errors with its message, and carries on', async () => {
    // Overloaded whenever the model sits in the seller's seat; fine as the buyer.
    const s = await serve((req) =>
      /You are the seller/.test(promptOf(req).system) ? serverError('The model is overloaded, try again later', 503) : policyAnswer(req),
    );
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', apiKey: KEY, maxRetries: 2, ...noWait });
    const { results, summary } = await play({ ...CONFIG, agents: ['llm', 'boulware'] }, backend);

    expect(summary).toEqual({ planned: 6, played: 6, skipped: 0, cancelled: false });
    for (const r of results) {
      if (r.seller === 'llm') {
        // The seller opens, so the failure comes at turn 0.
        expect(r.outcome).toEqual({
          kind: 'error',
          actor: 'seller',
          message: 'openai 503: The model is overloaded, try again later (gave up after 3 attempts)',
          turn: 0,
        });
        expect(r.events).toHaveLength(1);
      } else {
        expect(r.outcome.kind).not.toBe('error');
        expect(expectPolicyMoves(r.events, 'buyer')).toBeGreaterThan(0);
      }
      expectStorable(r.events);
    }
    const sellerRequests = s.requests.filter((req) => /You are the seller/.test(promptOf(req).system));
    expect(sellerRequests).toHaveLength(3 * 3); // three negotiations, one try and two retries each
    expect(JSON.stringify(results)).not.toContain(KEY);
  });

  it('cancels a tournament mid-request: in-flight calls are dropped and nothing more is asked', async () => {
    // Answers that never come while the test runs: the tournament ending at all shows it stopped waiting.
    const s = await serve((req) => slow(10 * 60_000, policyAnswer(req)));
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', ...noWait });
    const controller = new AbortController();
    const pending = runTournament(bilateralGame, CONFIG, factoryWith(backend), { concurrency: 4, signal: controller.signal });
    // Jobs 1–3 seat the model; job 4 is scripted against scripted and ends at once, freeing its slot
    // for job 5, which seats the model too: four calls end up in flight.
    while (s.inFlight < 4) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('user cancelled'));
    const summary = await pending;
    expect(summary).toMatchObject({ cancelled: true, played: 0 });
    await expect.poll(() => s.inFlight, { timeout: 30_000 }).toBe(0);
    expect(s.requests).toHaveLength(4);
  });
});
