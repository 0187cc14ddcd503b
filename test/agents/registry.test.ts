import { describe, expect, it } from 'vitest';
import { createAgentFactory, makeAgent, WEBLLM_ONLY_IN_BROWSER } from '../../src/games/bilateral/registry';
import { isDeterministic, parseAgentSpec, parseAgentSpecs, STRATEGY_NAMES } from '../../src/games/bilateral/specs';
import { WEBLLM_MODEL_IDS } from '../../src/agents/specs';
import { observeAfter, scenario } from './fixtures';
import { STRATEGIES } from '../../src/games/bilateral/strategies';
import { createRng } from '../../src/engine/rng';
import { canThink, REMOTE_PROVIDERS } from '../../src/agents/providers';

const NAMES = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler', 'random'];

/** The problem a spec is refused with: its code and data (its message is one line). */
function problemOf(text: string): { code: string; data: Record<string, unknown> } {
  const parsed = parseAgentSpec(text);
  if (parsed.ok) throw new Error(`"${text}" should have been refused`);
  expect(parsed.error.message).not.toContain('\n');
  return { code: parsed.error.code, data: parsed.error.data as Record<string, unknown> };
}
const errorOf = (text: string): string => {
  const parsed = parseAgentSpec(text);
  return parsed.ok ? '' : parsed.error.message;
};
const BOULWARE_PARAMS = [
  { key: 'beta', min: 0.01, max: 100 },
  { key: 'kappa', min: 0, max: 0.99 },
];

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
    expect(problemOf('bouldware:beta=2')).toEqual({ code: 'unknown-strategy', data: { name: 'bouldware' } });
    const error = errorOf('bouldware:beta=2');
    for (const name of NAMES) expect(error).toContain(name);
    expect(problemOf('   ').code).toBe('empty-spec');
    expect(errorOf('   ')).toContain('boulware');
  });

  it('refuses an unknown parameter and names the ones the strategy takes', () => {
    expect(problemOf('linear:beta=2')).toEqual({
      code: 'unknown-parameter',
      data: { key: 'beta', strategy: 'linear', params: [{ key: 'kappa', min: 0, max: 0.99 }] },
    });
    expect(problemOf('hardliner:sellerAnchor=1.2')).toMatchObject({ code: 'unknown-parameter', data: { key: 'sellerAnchor' } });
    expect(errorOf('hardliner:sellerAnchor=1.2')).toMatch(/"sellerAnchor".*anchor/);
  });

  it('takes only the strategy’s own parameters, never a name every object inherits', () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'prototype']) {
      expect(problemOf(`boulware:${key}=1`)).toEqual({ code: 'unknown-parameter', data: { key, strategy: 'boulware', params: BOULWARE_PARAMS } });
    }
    expect(problemOf('random:__proto__=0.5:walk=0.1')).toMatchObject({ code: 'unknown-parameter', data: { strategy: 'random' } });
  });

  it('refuses an out-of-range value and gives the range', () => {
    expect(problemOf('boulware:beta=0')).toEqual({
      code: 'parameter-out-of-range',
      data: { key: 'beta', value: 0, min: 0.01, max: 100, strategy: 'boulware', params: BOULWARE_PARAMS },
    });
    expect(problemOf('boulware:kappa=1')).toMatchObject({ code: 'parameter-out-of-range', data: { min: 0, max: 0.99 } });
    expect(problemOf('random:walk=-0.1')).toMatchObject({ code: 'parameter-out-of-range', data: { min: 0, max: 1 } });
  });

  it('reads plain decimal numbers, with an optional fraction and exponent', () => {
    const beta = (text: string) => {
      const parsed = parseAgentSpec(`boulware:beta=${text}`);
      if (!parsed.ok) throw new Error(parsed.error.message);
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
      expect(problemOf(`boulware:beta=${text}`)).toEqual({
        code: 'parameter-not-decimal',
        data: { key: 'beta', value: text, example: 0.25, strategy: 'boulware', params: BOULWARE_PARAMS },
      });
  });

  it('says each refusal in English, in one line that names the choices', () => {
    expect(errorOf('boulware:beta=fast')).toBe(
      'boulware parameter beta="fast" is not a decimal number (such as 0.25); boulware takes: beta (0.01 to 100), kappa (0 to 0.99)',
    );
    expect(errorOf('boulware:toString=1')).toBe('unknown parameter "toString" for boulware; boulware takes: beta (0.01 to 100), kappa (0 to 0.99)');
    expect(errorOf('boulware:beta=0')).toBe('boulware parameter beta=0 is out of range 0.01 to 100; boulware takes: beta (0.01 to 100), kappa (0 to 0.99)');
    expect(errorOf('boulware:beta')).toBe('"beta" in "boulware:beta" is not key=value; boulware takes: beta (0.01 to 100), kappa (0 to 0.99)');
    expect(errorOf('boulware:beta=1:beta=2')).toBe('parameter "beta" given twice in "boulware:beta=1:beta=2"');
    expect(errorOf('boulware+think')).toBe('"+think" asks a language model to think; "boulware" is not one');
    expect(errorOf('groq:m+think')).toBe(
      '"+think": Groq has no setting that turns thinking on and off for all its models, so groq:m cannot be told to think; providers that can: ' +
        REMOTE_PROVIDERS.filter(canThink).join(', '),
    );
    expect(errorOf('nope')).toMatch(
      /^unknown strategy "nope"; choose one of: boulware, linear, .*, a model as PROVIDER:MODEL \(openai, .*\), or webllm:MODEL$/,
    );
  });

  it('keeps every error on one line, whatever the spec holds', () => {
    expect(errorOf('boulware:beta=1\n2')).toContain('"1\\n2"');
    expect(errorOf('bad\nname')).toContain('"bad\\nname"');
    expect(errorOf(`boulware:beta=${'9'.repeat(500)}`).length).toBeLessThan(300);
  });

  it('refuses a part without "=", and a parameter given twice', () => {
    expect(problemOf('boulware:beta')).toEqual({
      code: 'not-key-value',
      data: { part: 'beta', spec: 'boulware:beta', strategy: 'boulware', params: BOULWARE_PARAMS },
    });
    expect(problemOf('boulware:beta=1:beta=2')).toEqual({ code: 'parameter-twice', data: { key: 'beta', spec: 'boulware:beta=1:beta=2' } });
  });
});

describe('parseAgentSpecs', () => {
  it('parses a list and refuses two specs with the same label', () => {
    const parsed = parseAgentSpecs(['boulware', 'conceder:kappa=0.2']);
    expect(parsed.ok && parsed.value.map((s) => s.label)).toEqual(['boulware', 'conceder:kappa=0.2']);
    const twice = parseAgentSpecs(['boulware:beta=0.5', 'boulware:beta=0.50']);
    expect(twice).toMatchObject({
      ok: false,
      error: { code: 'listed-twice', data: { label: 'boulware:beta=0.5' }, message: 'agent "boulware:beta=0.5" is listed twice' },
    });
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
      if (!parsed.ok) throw new Error(parsed.error.message);
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
    expect(problemOf('webllm:Llama-3-8B')).toEqual({ code: 'unknown-webllm-model', data: { model: 'Llama-3-8B', choices: WEBLLM_MODEL_IDS } });
    expect(errorOf('webllm:Llama-3-8B')).toContain('unknown WebLLM model "Llama-3-8B"; choose one of: Qwen3-0.6B');
  });

  it('reads "+think" on a model as thinking on, and refuses it on a scripted strategy', () => {
    const local = parseAgentSpec('webllm:Qwen3-4B-q4f32_1-MLC+think');
    expect(local.ok && local.value).toMatchObject({ webllm: 'Qwen3-4B-q4f32_1-MLC', thinking: true, label: 'webllm:Qwen3-4B-q4f32_1-MLC+think' });
    const remote = parseAgentSpec('ollama:qwen3:8b +think');
    expect(remote.ok && remote.value).toMatchObject({ remote: { provider: 'ollama', model: 'qwen3:8b' }, thinking: true, label: 'ollama:qwen3:8b+think' });
    expect(problemOf('boulware+think')).toEqual({ code: 'not-a-model', data: { spec: 'boulware' } });
    expect(problemOf('groq:m+think')).toEqual({ code: 'cannot-think', data: { provider: 'groq', model: 'm' } });
    // Thinking and not thinking are two agents in one tournament.
    expect(parseAgentSpecs(['openai:gpt-4o', 'openai:gpt-4o+think']).ok).toBe(true);
  });

  it('builds WebLLM agents only where the page gives the factory its engines', async () => {
    expect(() => makeAgent('webllm:Qwen3-0.6B-q4f32_1-MLC', 'buyer', { rng: createRng(1), jobId: 'x', seed: 1 })).toThrow(WEBLLM_ONLY_IN_BROWSER);
    const asked: { model: string; thinking: boolean | undefined }[] = [];
    const factory = createAgentFactory(
      {},
      {
        webllm: (model) => ({
          name: 'webllm',
          model,
          capabilities: { jsonSchema: true, tools: true, thinking: true },
          async complete(request) {
            asked.push({ model, thinking: request.thinking });
            return { text: '{"message":"no","action":{"type":"walk_away"}}', tokensIn: 1, tokensOut: 1 };
          },
        }),
      },
    );
    const s = scenario(150, 90);
    const agent = factory('webllm:Qwen3-0.6B-q4f32_1-MLC+think', 'buyer', { rng: createRng(1), jobId: 'x', seed: 1 });
    const reply = await agent.act(observeAfter(s, [{ message: '', action: { type: 'offer', price: 120 } }]), new AbortController().signal);
    expect(reply).toMatchObject({ kind: 'move', move: { action: { type: 'walk_away' } } });
    expect(asked).toEqual([{ model: 'Qwen3-0.6B-q4f32_1-MLC', thinking: true }]);
  });
});
