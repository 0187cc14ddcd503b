import { describe, expect, it } from 'vitest';
import {
  agentCost,
  describeCost,
  describeRunCost,
  isLocalModel,
  MAX_PRICE_SPEC_LENGTH,
  PRICE_SPEC_PROBLEMS,
  priceOf,
  priceSpec,
  runCost,
} from '../../src/agents/pricing';
import { REMOTE_PROVIDERS } from '../../src/agents/remote-spec';
import type { Price } from '../../src/engine/cost';

const MINI: Price = { inputPerMTok: 0.15, outputPerMTok: 0.6 };
const prices = new Map<string, Price>([
  ['openai:gpt-4o-mini', MINI],
  ['anthropic:claude-x', { inputPerMTok: 3, outputPerMTok: 15 }],
]);
const usage = { tokensIn: 200_000, tokensOut: 50_000 };

describe('prices by agent spec', () => {
  it('finds an agent’s price by its spec, and a +think agent by its model’s', () => {
    expect(priceOf('openai:gpt-4o-mini', prices)).toBe(MINI);
    expect(priceOf('openai:gpt-4o-mini+think', prices)).toBe(MINI);
    expect(priceOf('openai:gpt-4o', prices)).toBeUndefined();
    expect(priceOf('boulware', prices)).toBeUndefined();
  });

  it('prices an agent’s usage, calls WebLLM models free, and says when there is no price', () => {
    expect(agentCost('openai:gpt-4o-mini', usage, prices)).toEqual({ kind: 'priced', usd: 0.2 * 0.15 + 0.05 * 0.6 });
    expect(agentCost('webllm:Qwen3-0.6B-q4f32_1-MLC', usage, prices)).toEqual({ kind: 'local' });
    expect(agentCost('groq:llama', usage, prices)).toEqual({ kind: 'unpriced' });
    expect(isLocalModel('webllm:Qwen3-4B-q4f16_1-MLC+think')).toBe(true);
    expect(describeCost({ kind: 'priced', usd: 0.06 })).toBe('$0.0600');
    expect(describeCost({ kind: 'local' })).toBe('local (free)');
    expect(describeCost({ kind: 'unpriced' })).toBe('—');
  });

  it('totals a run over its priced agents and marks a total that leaves some out', () => {
    const rows = [
      { agent: 'openai:gpt-4o-mini', ...usage },
      { agent: 'anthropic:claude-x', tokensIn: 1_000_000, tokensOut: 100_000 },
      { agent: 'webllm:Qwen3-0.6B-q4f32_1-MLC', ...usage },
    ];
    const all = runCost(rows, prices);
    expect(all).toMatchObject({ priced: 2, local: 1, unpriced: [] });
    expect(all.usd).toBeCloseTo(0.06 + 3 + 1.5, 12);
    expect(describeRunCost(all)).toBe('$4.56');
    const partial = runCost([...rows, { agent: 'groq:llama', ...usage }], prices);
    expect(partial.unpriced).toEqual(['groq:llama']);
    expect(describeRunCost(partial)).toBe('≥ $4.56');
    expect(describeRunCost(runCost([{ agent: 'groq:llama', ...usage }], prices))).toBe('—');
    expect(describeRunCost(runCost([rows[2]!], prices))).toBe('local (free)');
  });
});

describe('priceSpec', () => {
  it('keeps a price under the remote model’s spec, trimmed and without +think', () => {
    expect(priceSpec(' openai:gpt-4o-mini ')).toEqual({ ok: true, value: 'openai:gpt-4o-mini' });
    expect(priceSpec('ollama:qwen3:8b+think')).toEqual({ ok: true, value: 'ollama:qwen3:8b' });
    expect(priceSpec('vllm:Qwen/Qwen3-8B')).toEqual({ ok: true, value: 'vllm:Qwen/Qwen3-8B' });
  });

  it('refuses empty text, WebLLM models, strategies, unknown providers and long specs, each with its code', () => {
    const refusal = (text: string) => {
      const r = priceSpec(text);
      return r.ok ? null : { code: r.error.code, data: r.error.data };
    };
    expect(refusal('  ')).toEqual({ code: 'no-model', data: {} });
    expect(refusal('webllm:Qwen3-0.6B-q4f32_1-MLC')).toEqual({ code: 'local-model', data: {} });
    expect(refusal('webllm:Qwen3-0.6B-q4f32_1-MLC +think')).toEqual({ code: 'local-model', data: {} });
    expect(refusal(' boulware:beta=0.2 ')).toEqual({ code: 'not-remote', data: { spec: 'boulware:beta=0.2', providers: REMOTE_PROVIDERS } });
    expect(refusal('acme:model')).toMatchObject({ code: 'not-remote', data: { spec: 'acme:model' } });
    expect(refusal(`openai:${'x'.repeat(300)}`)).toEqual({ code: 'spec-too-long', data: { length: 307, max: MAX_PRICE_SPEC_LENGTH } });
    expect(priceSpec(`openai:${'x'.repeat(MAX_PRICE_SPEC_LENGTH - 7)}`).ok).toBe(true);
  });

  it('words each refusal from its table, naming the providers to choose from', () => {
    const r = priceSpec('boulware:beta=0.2');
    expect(r.ok ? null : r.error.message).toBe(PRICE_SPEC_PROBLEMS['not-remote']({ spec: 'boulware:beta=0.2', providers: REMOTE_PROVIDERS }));
    expect(PRICE_SPEC_PROBLEMS['not-remote']({ spec: 'boulware', providers: ['openai', 'groq'] })).toBe(
      '"boulware" is not a remote model; write PROVIDER:MODEL with PROVIDER one of openai, groq',
    );
    expect(PRICE_SPEC_PROBLEMS['no-model']()).toBe('enter a model as PROVIDER:MODEL, e.g. openai:gpt-4o-mini');
    expect(PRICE_SPEC_PROBLEMS['local-model']()).toBe('WebLLM models run on this device and cost nothing; they need no price');
    expect(PRICE_SPEC_PROBLEMS['spec-too-long']({ length: 307, max: 200 })).toBe('a model spec has at most 200 characters');
  });
});
