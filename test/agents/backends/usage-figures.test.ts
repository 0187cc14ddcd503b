/**
 * Every figure a provider reports is checked before it enters a call record: token counts are
 * whole numbers in [0, 10 million] (a larger one is counted as 10 million, anything not a number
 * as 0), latency is finite and at most a day. So a record made from the wildest answer is one the
 * event schema, the worker's messages to the page and an import all take: no move is dropped.
 */
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/agents/backends/anthropic';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { openAiBackend } from '../../../src/agents/backends/openai';
import { scriptedBackend } from '../../../src/agents/backends/scripted';
import { MAX_CALL_LATENCY_MS, MAX_CALL_TOKENS, type ChatBackend } from '../../../src/agents/backends/types';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { BilateralEventSchema } from '../../../src/games/bilateral/events';
import { CallRecordSchema } from '../../../src/engine/events';
import { playNegotiation } from '../../../src/games/bilateral/tournament';
import { FromWorkerSchema } from '../../../src/worker/messages';
import type { RecordedRequest } from '../../support/chat-server';
import { scenario } from '../fixtures';
import { live, serverPerTest } from './helpers';

const serve = serverPerTest();

/** Answers with a move and the usage block given, in the route's own dialect. */
function absurdUsage(usage: Record<string, unknown>) {
  return (req: RecordedRequest) => {
    const move = '{"action":{"type":"offer","price":80}}';
    const body =
      req.route === 'openai'
        ? { choices: [{ message: { role: 'assistant', content: move }, finish_reason: 'stop' }], usage }
        : req.route === 'anthropic'
          ? { content: [{ type: 'text', text: move }], stop_reason: 'end_turn', usage }
          : { candidates: [{ content: { parts: [{ text: move }] }, finishReason: 'STOP' }], usageMetadata: usage };
    return { kind: 'raw' as const, status: 200, body: JSON.stringify(body), contentType: 'application/json' };
  };
}

const ask = (backend: ChatBackend) => backend.complete({ messages: [{ role: 'user', content: 'Your move.' }] }, live());

describe('token counts from a provider', () => {
  it('openai: 1e20 is counted as 10 million, a negative or a string as 0', async () => {
    const s = await serve(absurdUsage({ prompt_tokens: 1e20, completion_tokens: -5, total_tokens: '12' }));
    const answer = await ask(openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm' }));
    expect([answer.tokensIn, answer.tokensOut]).toEqual([MAX_CALL_TOKENS, 0]);
  });

  it('anthropic: the sum of input and cache tokens is held to the same bound', async () => {
    const s = await serve(absurdUsage({ input_tokens: 9e6, cache_read_input_tokens: 9e6, cache_creation_input_tokens: 1.5, output_tokens: '7' }));
    const answer = await ask(anthropicBackend({ baseUrl: s.url, model: 'm' }));
    expect([answer.tokensIn, answer.tokensOut]).toEqual([MAX_CALL_TOKENS, 0]);
  });

  it('gemini: 1e308 thinking tokens are counted as 10 million', async () => {
    const s = await serve(absurdUsage({ promptTokenCount: 12.4, candidatesTokenCount: 3, thoughtsTokenCount: 1e308 }));
    const answer = await ask(geminiBackend({ baseUrl: s.url, model: 'm' }));
    expect([answer.tokensIn, answer.tokensOut]).toEqual([12, MAX_CALL_TOKENS]);
  });
});

describe('call records', () => {
  it('a played negotiation’s every event passes the event schema and the worker’s message to the page, whatever the figures', async () => {
    const s = await serve(absurdUsage({ prompt_tokens: 1e20, completion_tokens: Number.MAX_VALUE }));
    const played = await playNegotiation(scenario(150, 90, { listPrice: 200, turnLimit: 4 }), {
      buyer: llmAgent(openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm' }), { interface: 'json' }),
      seller: llmAgent(openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm' }), { interface: 'json' }),
    });
    const calls = played.events.flatMap((e) => (e.type === 'move' && e.call ? [e.call] : []));
    expect(calls).toHaveLength(4);
    for (const c of calls) expect([c.tokensIn, c.tokensOut]).toEqual([MAX_CALL_TOKENS, MAX_CALL_TOKENS]);
    for (const event of played.events) {
      expect(BilateralEventSchema.safeParse(event).success).toBe(true);
      // The live Arena's message: the page drops any message this schema refuses.
      expect(FromWorkerSchema.safeParse({ type: 'arena.event', gameId: 'g', event }).success).toBe(true);
    }
    // Summed over many calls the figures stay exact integers.
    expect(Number.isSafeInteger(calls.reduce((n, c) => n + c.tokensIn, 0) * 1000)).toBe(true);
  });

  it('latency a backend reports is kept finite and within a day; a nonsense figure falls back to the time measured', async () => {
    let t = 0;
    const answers = [Infinity, 1e300, -5, Number.NaN, 1234].map((latencyMs) => ({
      text: '{"action":{"type":"walk_away"}}',
      tokensIn: 1,
      tokensOut: 1,
      latencyMs,
    }));
    const latencies: number[] = [];
    for (const answer of answers) {
      const backend = scriptedBackend([answer], { latencyMs: 40, sleep: async (ms) => void (t += ms) });
      const played = await playNegotiation(scenario(150, 90, { firstMover: 'buyer' }), {
        buyer: llmAgent(backend, { interface: 'json', now: () => t }),
        seller: llmAgent(scriptedBackend([]), { interface: 'json' }),
      });
      const call = played.events[0]?.type === 'move' ? played.events[0].call : undefined;
      expect(CallRecordSchema.safeParse(call).success).toBe(true);
      latencies.push(call?.latencyMs ?? -1);
    }
    // Infinity and NaN are not times: the call's own measured 40 ms stands in.
    expect(latencies).toEqual([40, MAX_CALL_LATENCY_MS, 0, 40, 1234]);
  });
});
