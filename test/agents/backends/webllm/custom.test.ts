/**
 * The user's own WebLLM models: the form's checks (a message per field), WebLLM's record and app
 * config, specs that name them once the list is known, and the pool loading one with its record
 * and prompting within its context window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  customAppConfig,
  customModelRecord,
  CustomModelSchema,
  useCustomModels,
  type CustomModel,
} from '../../../../src/agents/backends/webllm/custom';
import type { LoadedEngine, LoadOptions } from '../../../../src/agents/backends/webllm/engine';
import { EnginePool } from '../../../../src/agents/backends/webllm/pool';
import { parseAgentSpec } from '../../../../src/agents/specs';
import { readDraft } from '../../../../src/ui/state/custom-models.svelte';
import { fakeEngine } from './fake-engine';

const MINE: CustomModel = {
  name: 'Qwen3-1.7B-parley-q4f16_1-MLC',
  weightsUrl: 'https://huggingface.co/me/Qwen3-1.7B-parley-q4f16_1-MLC/resolve/main',
  libraryUrl: '/libs/Qwen3-1.7B-parley-q4f16_1-webgpu.wasm',
  contextWindow: 8192,
};

afterEach(() => useCustomModels([]));

describe('custom WebLLM models', () => {
  it('checks each field with its own message, and keeps what is typed', () => {
    const draft = { name: 'my model!', weightsUrl: 'http://example.org/w/', libraryUrl: '', contextWindow: '512' };
    const read = readDraft(draft, []);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems).toEqual({
      name: 'The name may hold letters, digits, ".", "_" and "-", and starts with a letter or digit.',
      weightsUrl: 'The URL of the MLC weights must start with https:// or be a path on this site starting with /.',
      libraryUrl: 'Give the URL of the model library.',
      contextWindow: 'The context window is at least 1,024 tokens.',
    });
    expect(draft).toEqual({ name: 'my model!', weightsUrl: 'http://example.org/w/', libraryUrl: '', contextWindow: '512' });
    expect(readDraft({ ...draft, name: 'Qwen3-4B-q4f16_1-MLC' }, []).ok).toBe(false);
    const built = readDraft({ ...draft, name: 'Qwen3-4B-q4f16_1-MLC', weightsUrl: '/w/', libraryUrl: '/l.wasm', contextWindow: '4096' }, []);
    expect(!built.ok && built.problems).toEqual({ name: 'That name is a built-in Qwen3 build; choose another.' });
    expect(readDraft({ ...draft, contextWindow: 'lots' }, []).ok).toBe(false);
    expect(readDraft({ ...draft, weightsUrl: '//evil.example/w' }, []).ok).toBe(false);
    expect(readDraft({ ...draft, weightsUrl: 'javascript:alert(1)' }, []).ok).toBe(false);

    const good = { name: MINE.name, weightsUrl: ` ${MINE.weightsUrl} `, libraryUrl: MINE.libraryUrl, contextWindow: '8,192' };
    expect(readDraft(good, [])).toEqual({ ok: true, value: MINE });
    expect(readDraft(good, [MINE.name])).toEqual({ ok: false, problems: { name: 'A model of yours already has that name.' } });
  });

  it('is one record of WebLLM’s app config: weights as a folder, paths on this site made absolute, its context window', () => {
    expect(customModelRecord(MINE, 'https://parley.example')).toEqual({
      model: 'https://huggingface.co/me/Qwen3-1.7B-parley-q4f16_1-MLC/resolve/main/',
      model_id: MINE.name,
      model_lib: 'https://parley.example/libs/Qwen3-1.7B-parley-q4f16_1-webgpu.wasm',
      overrides: { context_window_size: 8192 },
    });
    expect(CustomModelSchema.safeParse(MINE).success).toBe(true);
  });

  it('takes a seat as webllm:<name> once the list holds it, and not after it is removed', () => {
    expect(parseAgentSpec(`webllm:${MINE.name}`).ok).toBe(false);
    useCustomModels([MINE]);
    const spec = parseAgentSpec(`webllm:${MINE.name}+think`);
    expect(spec.ok && spec.value).toMatchObject({ webllm: MINE.name, thinking: true, label: `webllm:${MINE.name}+think` });
    expect(customAppConfig(MINE.name, 'https://parley.example')?.model_list.map((r) => r.model_id)).toEqual([MINE.name]);
    expect(customAppConfig('Qwen3-0.6B-q4f32_1-MLC', 'https://parley.example')).toBeUndefined();
    useCustomModels([]);
    const gone = parseAgentSpec(`webllm:${MINE.name}`);
    expect(!gone.ok && gone.error).toContain(`unknown WebLLM model "${MINE.name}"`);
  });

  it('the pool loads it with its record and gives its backend the model’s context window', async () => {
    useCustomModels([MINE]);
    const seen: LoadOptions[] = [];
    const pool = new EnginePool(
      async (modelId: string, opts: LoadOptions): Promise<LoadedEngine> => {
        seen.push(opts);
        const engine = fakeEngine(() => '{"action":{"type":"walk_away"}}', { loaded: [modelId] });
        return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: async () => {} };
      },
      (modelId) => customAppConfig(modelId, 'https://parley.example'),
    );
    const backend = pool.backend(MINE.name);
    expect(backend.contextWindow).toBe(8192);
    expect(pool.backend('Qwen3-0.6B-q4f32_1-MLC').contextWindow).toBeUndefined();
    const release = pool.use([MINE.name, 'Qwen3-0.6B-q4f32_1-MLC']);
    await backend.complete({ messages: [{ role: 'user', content: 'Your move.' }] }, new AbortController().signal);
    await pool.backend('Qwen3-0.6B-q4f32_1-MLC').complete({ messages: [{ role: 'user', content: 'Your move.' }] }, new AbortController().signal);
    release();
    expect(seen[0]?.appConfig).toEqual({ model_list: [customModelRecord(MINE, 'https://parley.example')] });
    expect(seen[1]?.appConfig).toBeUndefined();
  });
});
