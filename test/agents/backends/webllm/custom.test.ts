/**
 * The user's own WebLLM models: the form's checks (a message per field), WebLLM's record and app
 * config, specs that name them once the list is known, and the pool loading one with its record
 * and prompting within its context window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  customAppConfig,
  customModelRecord,
  CustomModelListSchema,
  CustomModelSchema,
  modelLocation,
  useCustomModels,
  type CustomModel,
} from '../../../../src/agents/backends/webllm/custom';
import type { LoadedEngine, LoadOptions } from '../../../../src/agents/backends/webllm/engine';
import { EnginePool } from '../../../../src/agents/backends/webllm/pool';
import { parseAgentSpec } from '../../../../src/games/bilateral/specs';
import { readDraft } from '../../../../src/ui/state/custom-models.svelte';
import { fakeEngine } from './fake-engine';

const MINE: CustomModel = {
  name: 'Qwen3-1.7B-parley-q4f16_1-MLC',
  weightsUrl: 'https://huggingface.co/me/Qwen3-1.7B-parley-q4f16_1-MLC/resolve/main',
  libraryUrl: '/libs/Qwen3-1.7B-parley-q4f16_1-webgpu.wasm',
  contextWindow: 8192,
};

afterEach(() => useCustomModels([]));

const URL_PROBLEM = (what: string) => `The URL of ${what} must start with https:// or be a path on this site starting with /.`;
const PATH_PROBLEM = (what: string) =>
  `The URL of ${what} may not hold backslashes, spaces or control characters, and a path on this site starts with one / and stays on it.`;

/** Forms that name another site, another protocol, or read as something else: each refused at input. */
const HOSTILE = [
  '/\\evil.example/w/',
  '/\\/evil.example/w/',
  '//evil.example/w/',
  '\\\\evil.example\\w',
  '\\evil.example',
  '/..//evil.example/w/',
  '/./\\evil.example/w',
  'http://evil.example/w/',
  'HTTP://evil.example/w/',
  'https:evil.example/w/',
  'https:/evil.example/w/',
  'https:\\\\evil.example/w/',
  'https://user:secret@evil.example/w/',
  'https://',
  'javascript:alert(1)',
  ' javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'blob:https://evil.example/1',
  'file:///etc/passwd',
  'ftp://evil.example/w/',
  'evil.example/w/',
  'w/',
  '/\t/evil.example/w/',
  '/\n/evil.example/w/',
  '/\r/evil.example/w/',
  '/w /x',
  '/w\u00a0x',
  '/w\u0000x',
  '/w\u001bx',
  '/w\u007fx',
  '/w\u202ex',
  '/w\u200bx',
  'https://evil.example/\tx',
];

describe('custom WebLLM models', () => {
  it('checks each field with its own message, and keeps what is typed', () => {
    const draft = { name: 'my model!', weightsUrl: 'http://example.org/w/', libraryUrl: '', contextWindow: '512' };
    const read = readDraft(draft, []);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error).toEqual({
      name: 'The name may hold letters, digits, ".", "_" and "-", and starts with a letter or digit.',
      weightsUrl: URL_PROBLEM('the MLC weights'),
      libraryUrl: 'Give the URL of the model library.',
      contextWindow: 'The context window is at least 1,024 tokens.',
    });
    expect(draft).toEqual({ name: 'my model!', weightsUrl: 'http://example.org/w/', libraryUrl: '', contextWindow: '512' });
    expect(readDraft({ ...draft, name: 'Qwen3-4B-q4f16_1-MLC' }, []).ok).toBe(false);
    const built = readDraft({ ...draft, name: 'Qwen3-4B-q4f16_1-MLC', weightsUrl: '/w/', libraryUrl: '/l.wasm', contextWindow: '4096' }, []);
    expect(!built.ok && built.error).toEqual({ name: 'That name is a built-in Qwen3 build; choose another.' });
    expect(readDraft({ ...draft, contextWindow: 'lots' }, []).ok).toBe(false);
    expect(readDraft({ ...draft, weightsUrl: '//evil.example/w' }, []).ok).toBe(false);
    expect(readDraft({ ...draft, weightsUrl: 'javascript:alert(1)' }, []).ok).toBe(false);

    const good = { name: MINE.name, weightsUrl: ` ${MINE.weightsUrl} `, libraryUrl: MINE.libraryUrl, contextWindow: '8,192' };
    expect(readDraft(good, [])).toEqual({ ok: true, value: MINE });
    expect(readDraft(good, [MINE.name])).toEqual({ ok: false, error: { name: 'A model of yours already has that name.' } });
  });

  it('takes only a path on this site or an https URL, parsed as a URL: hostile forms are refused at input with the message', () => {
    for (const url of HOSTILE) {
      const read = readDraft({ name: MINE.name, weightsUrl: url, libraryUrl: url, contextWindow: '4096' }, []);
      expect(read.ok, JSON.stringify(url)).toBe(false);
      if (read.ok) continue;
      expect(Object.keys(read.error).sort()).toEqual(['libraryUrl', 'weightsUrl']);
      expect([URL_PROBLEM('the MLC weights'), PATH_PROBLEM('the MLC weights')]).toContain(read.error.weightsUrl);
      expect(modelLocation(url), JSON.stringify(url)).toBeNull();
    }
    // A form that looks like a path, or holds what no URL may, is told so; another scheme is told to use https.
    const problem = (url: string) => {
      const read = readDraft({ name: MINE.name, weightsUrl: url, libraryUrl: '/l.wasm', contextWindow: '4096' }, []);
      return read.ok ? null : read.error.weightsUrl;
    };
    for (const url of ['/\\evil.example/w/', '/\t/evil.example/w/', '/..//evil.example/w/', '/w\u202ex', 'https:\\\\evil.example/w/'])
      expect(problem(url), JSON.stringify(url)).toBe(PATH_PROBLEM('the MLC weights'));
    for (const url of ['//evil.example/w/', 'http://evil.example/w/', 'javascript:alert(1)', 'https://user:secret@evil.example/w/'])
      expect(problem(url), url).toBe(URL_PROBLEM('the MLC weights'));
    // What is good stays good, and a path resolves to the page's own origin, whatever it is.
    for (const url of [
      '/w/',
      '/models/Qwen3-1.7B-parley/',
      '/libs/a.wasm?v=2',
      '/%2F%2Fevil.example',
      'https://huggingface.co/me/x/resolve/main/',
      'HTTPS://Example.ORG/w/',
    ])
      expect(modelLocation(url), url).not.toBeNull();
    const paths = customModelRecord({ ...MINE, weightsUrl: '/w/', libraryUrl: '/%2F%2Fevil.example' }, 'http://localhost:5173');
    expect(new URL(paths.model).origin).toBe('http://localhost:5173');
    expect(new URL(paths.model_lib).origin).toBe('http://localhost:5173');
  });

  it('never builds a record that fetches from elsewhere, even for a list that skipped the check', () => {
    // The case: "/\\host/w/" passed the old "path on this site" rule and resolved to http://host/w/.
    expect(new URL('/\\host/w/', 'http://parley.example').origin).toBe('http://host');
    for (const url of HOSTILE)
      expect(() => customModelRecord({ ...MINE, weightsUrl: url }, 'http://parley.example'), JSON.stringify(url)).toThrow(/not a model URL/);
    // Nor does a stored list holding one pass the schema that reads it back (settings, the worker's messages).
    expect(CustomModelListSchema.safeParse([{ ...MINE, weightsUrl: '/\\host/w/' }]).success).toBe(false);
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
    expect(!gone.ok && gone.error).toMatchObject({ code: 'unknown-webllm-model', data: { model: MINE.name } });
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
