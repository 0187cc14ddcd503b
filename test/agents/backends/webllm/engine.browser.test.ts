/**
 * The real loading path in Chromium, as far as it goes without weights: WebLLM's code in our
 * engine worker (engine.worker.ts) and WebLLM's cache. An unknown model id is refused by WebLLM
 * inside the worker before any download, so nothing is fetched.
 */
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../src/agents/backends/types';
import { listModels, loadEngine } from '../../../../src/agents/backends/webllm/engine';
import { WEBLLM_MODEL_IDS } from '../../../../src/agents/specs';

describe('loadEngine in Chromium, with the real WebLLM and worker', () => {
  it('an id WebLLM does not know is refused from inside the worker, as a plain BackendError', async () => {
    const progress: unknown[] = [];
    const error = await loadEngine('Parley-no-such-model', { onProgress: (p) => progress.push(p) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind: 'bad-response' });
    expect((error as Error).message).toMatch(/^Loading Parley-no-such-model failed: Cannot find model record in appConfig for Parley-no-such-model/);
    expect(progress).toEqual([]);
  }, 60_000);

  it("reads WebLLM's list and cache in an engine worker: every Qwen3 build is listed, none is cached here", async () => {
    const { models, cached } = await listModels(WEBLLM_MODEL_IDS);
    expect(models.map((m) => m.model_id)).toEqual([...WEBLLM_MODEL_IDS]);
    expect(models.every((m) => typeof m.vram_required_MB === 'number')).toBe(true);
    expect(Object.values(cached)).toEqual(WEBLLM_MODEL_IDS.map(() => false));
  }, 60_000);
});
