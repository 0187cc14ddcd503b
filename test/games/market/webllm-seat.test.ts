/**
 * WebLLM market seats: `webllm:MODEL(+think)` specs parse for either seat with the bilateral
 * grammar's model list, and the factory asks its `backendFor` hook (the worker's engines) for them.
 */
import { describe, expect, it } from 'vitest';
import { createMarketAgentFactory, isMarketModelSpec, parseMarketSpec } from '../../../src/games/market';
import type { ChatBackend, ChatRequest } from '../../../src/agents/backends/types';
import { MARKET_PRESETS } from '../../../src/games/market/scenario';
import type { MarketTournamentResult } from '../../../src/games/market/tournament';
import { runTournament } from '../../../src/engine/tournament';
import { marketGame } from '../../../src/games/market/game';

const MODEL = 'Qwen3-0.6B-q4f16_1-MLC';

describe('WebLLM market seats', () => {
  it('parse for either seat, with +think, and an unknown model is named', () => {
    const seller = parseMarketSpec(`webllm:${MODEL}+think`, 'seller');
    expect(seller.ok && seller.value).toEqual({ name: 'webllm', role: 'seller', params: {}, label: `webllm:${MODEL}+think`, webllm: MODEL, thinking: true });
    const buyer = parseMarketSpec(`webllm:${MODEL}`, 'buyer');
    expect(buyer.ok && isMarketModelSpec(buyer.value)).toBe(true);
    const unknown = parseMarketSpec('webllm:Qwen9-1B', 'seller');
    expect(unknown.ok ? null : unknown.error).toMatchObject({ code: 'unknown-webllm-model', data: { model: 'Qwen9-1B' } });
  });

  it('get their backend from the hook: every call of the seat goes to it', async () => {
    const asked: ChatRequest[] = [];
    const engine: ChatBackend = {
      name: 'webllm',
      model: MODEL,
      capabilities: { jsonSchema: true, tools: true, thinking: true },
      complete: async (request) => {
        asked.push(request);
        return { text: 'not a move', tokensIn: 10, tokensOut: 2 };
      },
    };
    const factory = createMarketAgentFactory({}, {}, (spec) => (spec.webllm === MODEL ? engine : undefined));
    const results: MarketTournamentResult[] = [];
    await runTournament(marketGame, { sellers: [`webllm:${MODEL}`], buyer: 'margin', configs: [MARKET_PRESETS[0]!], marketsPerConfig: 1, seed: 2 }, factory, {
      onResult: (r) => void results.push(r),
    });
    const [only] = results;
    // Answers that are not moves: each seller turn is refused, then forfeited, until the budget is spent.
    expect(only?.outcome.kind).toBe('budget_spent');
    const calls = only!.events.filter((e) => e.type === 'invalid');
    expect(calls.length).toBe(asked.length);
    expect(calls.every((e) => e.type === 'invalid' && e.call?.backend === 'webllm' && e.call.model === MODEL)).toBe(true);
    expect(() => createMarketAgentFactory()(`webllm:${MODEL}`, 'seller', { rng: undefined as never, jobId: 'x', seed: 1 })).toThrow(
      `webllm:${MODEL}: WebLLM models run in the browser app, on this device's GPU`,
    );
  });
});
