/**
 * A grammar compile is the engine's time, not the model's: where a backend reports it
 * (`grammarMs`, WebLLM's grammar_init_s), the call's latency leaves it out and the record keeps it
 * in a field of its own, which stored records made before it existed do without.
 */
import { describe, expect, it } from 'vitest';
import { scriptedBackend } from '../../../src/agents/backends/scripted';
import type { ChatResponse } from '../../../src/agents/backends/types';
import { webLlmBackend } from '../../../src/agents/backends/webllm/backend';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { CallRecordSchema } from '../../../src/engine/events';
import type { CallRecord } from '../../../src/engine/session';
import { validatedEngine } from '../backends/webllm/validated-engine';
import { observeAfter, scenario } from '../fixtures';

const ACCEPT = '{"action":{"type":"accept"}}';
const never = () => new AbortController().signal;
const obs = () => observeAfter(scenario(120, 80), []);

/** The call record of one move answered with `response`, the agent's clock running `elapsed` ms over the call. */
async function callOf(response: ChatResponse, elapsed = 1000): Promise<CallRecord | undefined> {
  let time = 0;
  const backend = scriptedBackend([() => ((time += elapsed), response)]);
  const reply = await llmAgent(backend, { now: () => time }).act(obs(), never());
  return reply.call;
}

describe('the call record keeps the grammar compile apart from the latency', () => {
  it('a reported compile is taken out of the backend’s latency and kept as grammarMs', async () => {
    const call = await callOf({ text: ACCEPT, tokensIn: 1, tokensOut: 1, latencyMs: 9000, grammarMs: 8200 });
    expect(call).toMatchObject({ latencyMs: 800, grammarMs: 8200 });
  });

  it('out of the agent’s own timing where the backend does not time itself', async () => {
    const call = await callOf({ text: ACCEPT, tokensIn: 1, tokensOut: 1, grammarMs: 600 }, 1000);
    expect(call).toMatchObject({ latencyMs: 400, grammarMs: 600 });
  });

  it('without a figure the record is as before, with no grammarMs', async () => {
    const call = await callOf({ text: ACCEPT, tokensIn: 1, tokensOut: 1, latencyMs: 900 });
    expect(call?.latencyMs).toBe(900);
    expect(call).not.toHaveProperty('grammarMs');
  });

  it('a cached grammar’s reset (under a millisecond) is taken out but not kept', async () => {
    const call = await callOf({ text: ACCEPT, tokensIn: 1, tokensOut: 1, latencyMs: 900, grammarMs: 0.25 });
    expect(call?.latencyMs).toBe(899.75);
    expect(call).not.toHaveProperty('grammarMs');
  });

  it.each([
    ['longer than the call', 5000, { latencyMs: 0, grammarMs: 900 }],
    ['negative', -5, { latencyMs: 900 }],
    ['not a number', '8200', { latencyMs: 900 }],
    ['NaN', Number.NaN, { latencyMs: 900 }],
    ['infinite', Number.POSITIVE_INFINITY, { latencyMs: 900 }],
  ])('a figure %s is checked like every other figure', async (_, grammarMs, expected) => {
    const call = await callOf({ text: ACCEPT, tokensIn: 1, tokensOut: 1, latencyMs: 900, grammarMs: grammarMs as number });
    expect(call).toMatchObject(expected);
    if (!('grammarMs' in expected)) expect(call).not.toHaveProperty('grammarMs');
    expect(CallRecordSchema.safeParse(call).success).toBe(true);
  });

  it('through the WebLLM backend: usage.extra.grammar_init_s leaves the latency', async () => {
    let time = 0;
    const engine = validatedEngine(() => {
      time += 9000;
      return { text: ACCEPT, grammarInitS: 8.25 };
    });
    const reply = await llmAgent(webLlmBackend({ engine, modelId: 'Qwen3-0.6B-q4f16_1-MLC' }), { interface: 'json', now: () => time }).act(obs(), never());
    expect(reply.call?.latencyMs).toBeCloseTo(750, 6);
    expect(reply.call?.grammarMs).toBeCloseTo(8250, 6);
  });
});

describe('stored call records', () => {
  const before = { backend: 'webllm', model: 'Qwen3-0.6B-q4f16_1-MLC', latencyMs: 9000, tokensIn: 400, tokensOut: 20 };

  it('one made before grammarMs was kept still reads, unchanged', () => {
    expect(CallRecordSchema.parse(before)).toEqual(before);
  });

  it('one with grammarMs reads with it; a bad figure is refused as any other', () => {
    expect(CallRecordSchema.parse({ ...before, latencyMs: 800, grammarMs: 8200 })).toMatchObject({ grammarMs: 8200 });
    expect(CallRecordSchema.safeParse({ ...before, grammarMs: -1 }).success).toBe(false);
    expect(CallRecordSchema.safeParse({ ...before, grammarMs: Number.POSITIVE_INFINITY }).success).toBe(false);
  });
});
