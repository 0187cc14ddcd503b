/**
 * The real loading path in Chromium, as far as it goes without weights: WebLLM's code in our
 * worker (engine.worker.ts, WebLLM's own handler) and WebLLM's cache. An unknown model id is
 * refused by WebLLM inside the worker before any download, so nothing is fetched.
 */
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../src/agents/backends/types';
import { isCached, loadEngine } from '../../../../src/agents/backends/webllm/engine';

describe('loadEngine in Chromium, with the real WebLLM and worker', () => {
  it("an id WebLLM does not know is refused from inside the worker, as a plain BackendError", async () => {
    const progress: unknown[] = [];
    const error = await loadEngine('Parley-no-such-model', { onProgress: (p) => progress.push(p) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind: 'bad-response' });
    expect((error as Error).message).toMatch(/^Loading Parley-no-such-model failed: Cannot find model record in appConfig for Parley-no-such-model/);
    expect(progress).toEqual([]);
  }, 60_000);

  it("reads WebLLM's cache: nothing is cached here", async () => {
    expect(await isCached('Qwen3-0.6B-q4f32_1-MLC')).toBe(false);
    expect(await isCached('Qwen3-8B-q4f16_1-MLC')).toBe(false);
  });
});
