import { describe, expect, it } from 'vitest';
import {
  createAgentFactory,
  isDeterministic,
  makeAgent,
  parseAgentSpec,
  parseAgentSpecs,
  STRATEGY_NAMES,
  WEBLLM_MODEL_IDS,
  WEBLLM_ONLY_IN_BROWSER,
} from '../../src/agents/registry';
import { observeAfter, scenario } from './fixtures';
import { STRATEGIES } from '../../src/agents/scripted';
import { createRng } from '../../src/core/rng';

const NAMES = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler', 'random'];

function errorOf(text: string): string {
  const parsed = parseAgentSpec(text);
  if (parsed.ok) throw new Error(`"${text}" should have been refused`);
  expect(parsed.error).not.toContain('\n');
  return parsed.error;
}

describe('the strategy list', () => {
  it('lists every strategy once, in the documented order', () => {
    expect(STRATEGY_NAMES).toEqual(NAMES);
  });

  it.each(STRATEGIES)('$name documents its parameters with defaults inside their ranges', (def) => {
    expect(def.summary.length).toBeGreaterThan(10);
    for (const info of Object.values(def.params)) {
      expect(info.min).toBeLessThanOrEqual(info.default);
      expect(info.default).toBeLessThanOrEqual(info.max);
      expect(info.doc.length).toBeGreaterThan(10);
    }
    expect(def.rational).toBe(def.name !== 'random');
    expect(def.deterministic).toBe(def.name !== 'random');
  });
});

describe('parseAgentSpec', () => {
  it('fills in every default and keeps a bare name as the label', () => {
    const parsed = parseAgentSpec('boulware');
    expect(parsed).toEqual({
      ok: true,
      value: {
        name: 'boulware',
        params: { beta: 0.25, kappa: 0 },
        label: 'boulware',
      },
    });
  });

  it('writes the label canonically: definition order, numbers as numbers, spaces trimmed', () => {
    const parsed = parseAgentSpec('  boulware:kappa=0.10:beta=2.50 ');
    expect(parsed.ok && parsed.value.label).toBe('boulware:beta=2.5:kappa=0.1');
    expect(parsed.ok && parsed.value.params).toEqual({ beta: 2.5, kappa: 0.1 });
  });

  it('gives each strategy its own defaults', () => {
    const params = (text: string) => {
      const parsed = parseAgentSpec(text);
      return parsed.ok ? parsed.value.params : null;
    };
    expect(params('conceder')).toEqual({ beta: 4, kappa: 0 });
    expect(params('linear')).toEqual({ kappa: 0 });
    expect(params('hardliner')).toEqual({ anchor: 0.1 });
    expect(params('accommodator')).toEqual({ beta: 10, kappa: 0 });
    expect(params('tit-for-tat')).toEqual({ start: 0.15 });
    expect(params('haggler')).toEqual({ step: 5 });
    expect(params('random')).toEqual({ walk: 0.03 });
  });

  it('accepts values at the ends of a range', () => {
    expect(parseAgentSpec('boulware:beta=0.01').ok).toBe(true);
    expect(parseAgentSpec('boulware:beta=100').ok).toBe(true);
    expect(parseAgentSpec('random:walk=0').ok).toBe(true);
  });

  it('refuses an unknown strategy and names the valid ones', () => {
    const error = errorOf('bouldware:beta=2');
    expect(error).toContain('"bouldware"');
    for (const name of NAMES) expect(error).toContain(name);
    expect(errorOf('   ')).toContain('boulware');
  });

  it('refuses an unknown parameter and names the ones the strategy takes', () => {
    const error = errorOf('linear:beta=2');
    expect(error).toContain('"beta"');
    expect(error).toContain('linear takes: kappa (0 to 0.99)');
    expect(errorOf('hardliner:sellerAnchor=1.2')).toMatch(/"sellerAnchor".*anchor/);
  });

  it('takes only the strategy’s own parameters, never a name every object inherits', () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'prototype']) {
      expect(errorOf(`boulware:${key}=1`)).toBe(
        `unknown parameter "${key}" for boulware; boulware takes: beta (0.01 to 100), kappa (0 to 0.99)`,
      );
    }
    expect(errorOf('random:__proto__=0.5:walk=0.1')).toContain('random takes: walk (0 to 1)');
  });

  it('refuses an out-of-range value and gives the range', () => {
    expect(errorOf('boulware:beta=0')).toContain('0.01 to 100');
    expect(errorOf('boulware:kappa=1')).toContain('0 to 0.99');
    expect(errorOf('random:walk=-0.1')).toContain('0 to 1');
  });

  it('reads plain decimal numbers, with an optional fraction and exponent', () => {
    const beta = (text: string) => {
      const parsed = parseAgentSpec(`boulware:beta=${text}`);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.value.params.beta;
    };
    expect([beta('2'), beta('2.5'), beta('.5'), beta('0.25'), beta('1e1'), beta('25E-1'), beta('1.5e+1'), beta('007')]).toEqual([
      2, 2.5, 0.5, 0.25, 10, 2.5, 15, 7,
    ]);
    expect(parseAgentSpec('random:walk=-0').ok).toBe(true);
  });

  it('refuses a value that is not a plain decimal number, naming the parameters', () => {
    const texts = ['fast', '', 'NaN', 'Infinity', '-Infinity', '0x1', '0X1', '0b1', '0o7', '1_000', '+1', ' 1', '1.', '1e', 'e3', '1e999', '٣', '１'];
    for (const text of texts)
      expect(errorOf(`boulware:beta=${text}`)).toBe(
        `boulware parameter beta=${JSON.stringify(text)} is not a decimal number (such as 0.25); boulware takes: beta (0.01 to 100), kappa (0 to 0.99)`,
      );
  });

  it('keeps every error on one line, whatever the spec holds', () => {
    expect(errorOf('boulware:beta=1\n2')).toContain('"1\\n2"');
    expect(errorOf('bad\nname')).toContain('"bad\\nname"');
    expect(errorOf(`boulware:beta=${'9'.repeat(500)}`).length).toBeLessThan(300);
  });

  it('refuses a part without "=", and a parameter given twice', () => {
    expect(errorOf('boulware:beta')).toContain('beta (0.01 to 100), kappa (0 to 0.99)');
    expect(errorOf('boulware:beta=1:beta=2')).toContain('twice');
  });
});

describe('parseAgentSpecs', () => {
  it('parses a list and refuses two specs with the same label', () => {
    const parsed = parseAgentSpecs(['boulware', 'conceder:kappa=0.2']);
    expect(parsed.ok && parsed.value.map((s) => s.label)).toEqual(['boulware', 'conceder:kappa=0.2']);
    const twice = parseAgentSpecs(['boulware:beta=0.5', 'boulware:beta=0.50']);
    expect(twice).toEqual({ ok: false, error: 'agent "boulware:beta=0.5" is listed twice' });
    expect(parseAgentSpecs(['linear', 'nope']).ok).toBe(false);
  });
});

describe('makeAgent', () => {
  it('builds an agent for either seat and refuses a bad spec', () => {
    const ctx = { rng: createRng(1), jobId: 'n', seed: 1 };
    for (const name of NAMES) {
      expect(typeof makeAgent(name, 'buyer', ctx).act).toBe('function');
      expect(typeof makeAgent(name, 'seller', ctx).act).toBe('function');
    }
    expect(() => makeAgent('nope', 'buyer', ctx)).toThrow(/unknown strategy/);
  });

  it('knows which strategies are deterministic', () => {
    const spec = (text: string) => {
      const parsed = parseAgentSpec(text);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.value;
    };
    expect(isDeterministic(spec('tit-for-tat'))).toBe(true);
    expect(isDeterministic(spec('random'))).toBe(false);
  });
});

describe('language model specs', () => {
  it('names a WebLLM build by its model id, and refuses one WebLLM does not offer', () => {
    const parsed = parseAgentSpec(' webllm:Qwen3-1.7B-q4f16_1-MLC ');
    expect(parsed.ok && parsed.value).toMatchObject({ name: 'webllm', webllm: 'Qwen3-1.7B-q4f16_1-MLC', label: 'webllm:Qwen3-1.7B-q4f16_1-MLC' });
    expect(parsed.ok && parsed.value.thinking).toBeUndefined();
    expect(WEBLLM_MODEL_IDS).toHaveLength(8);
    const error = errorOf('webllm:Llama-3-8B');
    expect(error).toContain('unknown WebLLM model "Llama-3-8B"');
    expect(error).toContain('Qwen3-8B-q4f32_1-MLC');
  });

  it('reads "+think" on a model as thinking on, and refuses it on a scripted strategy', () => {
    const local = parseAgentSpec('webllm:Qwen3-4B-q4f32_1-MLC+think');
    expect(local.ok && local.value).toMatchObject({ webllm: 'Qwen3-4B-q4f32_1-MLC', thinking: true, label: 'webllm:Qwen3-4B-q4f32_1-MLC+think' });
    const remote = parseAgentSpec('ollama:qwen3:8b +think');
    expect(remote.ok && remote.value).toMatchObject({ remote: { provider: 'ollama', model: 'qwen3:8b' }, thinking: true, label: 'ollama:qwen3:8b+think' });
    expect(errorOf('boulware+think')).toContain('"boulware" is not one');
    // Thinking and not thinking are two agents in one tournament.
    expect(parseAgentSpecs(['openai:gpt-4o', 'openai:gpt-4o+think']).ok).toBe(true);
  });

  it('builds WebLLM agents only where the page gives the factory its engines', async () => {
    expect(() => makeAgent('webllm:Qwen3-0.6B-q4f32_1-MLC', 'buyer', { rng: createRng(1), jobId: 'x', seed: 1 })).toThrow(WEBLLM_ONLY_IN_BROWSER);
    const asked: { model: string; thinking: boolean | undefined }[] = [];
    const factory = createAgentFactory({}, {
      webllm: (model) => ({
        name: 'webllm',
        model,
        capabilities: { jsonSchema: true, tools: true, thinking: true },
        async complete(request) {
          asked.push({ model, thinking: request.thinking });
          return { text: '{"message":"no","action":{"type":"walk_away"}}', tokensIn: 1, tokensOut: 1 };
        },
      }),
    });
    const s = scenario(150, 90);
    const agent = factory('webllm:Qwen3-0.6B-q4f32_1-MLC+think', 'buyer', { rng: createRng(1), jobId: 'x', seed: 1 });
    const reply = await agent.act(observeAfter(s, [{ message: '', action: { type: 'offer', price: 120 } }]), new AbortController().signal);
    expect(reply).toMatchObject({ kind: 'move', move: { action: { type: 'walk_away' } } });
    expect(asked).toEqual([{ model: 'Qwen3-0.6B-q4f32_1-MLC', thinking: true }]);
  });
});
