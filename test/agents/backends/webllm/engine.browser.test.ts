/**
 * The real loading path in Chromium, as far as it goes without weights: WebLLM's code in our
 * engine worker (engine.worker.ts) and WebLLM's cache. An unknown model id is refused by WebLLM
 * inside the worker before any download, so nothing is fetched; a missing file is asked of a
 * local server (test/support/chat-server.ts) that answers 404 to every GET. WebGPU's own words
 * for a lost device come from Chromium's software adapter (SwiftShader), destroyed on purpose.
 */
import { describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import type {} from '../../../support/chat-server-commands';
import { BackendError } from '../../../../src/agents/backends/types';
import { listModels, loadEngine } from '../../../../src/agents/backends/webllm/engine';
import { generationError, GPU_LOST_MESSAGE, loadError } from '../../../../src/agents/backends/webllm/errors';
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

  it('a file the server does not have (404) fails the download with words that say so, through the Cache API', async () => {
    const server = await commands.chatServerStart([]);
    try {
      const base = `${server.url}/parley-no-such-model/`;
      const model_list = [{ model: base, model_id: 'Parley-404-q4f16_1-MLC', model_lib: `${base}lib.wasm` }];
      const error = await loadEngine('Parley-404-q4f16_1-MLC', { appConfig: { model_list } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackendError);
      expect(error).toMatchObject({ kind: 'http' });
      expect((error as Error).message).toMatch(
        /^The download of Parley-404-q4f16_1-MLC failed: the server refused one of its files or does not have it \(for example 404 Not Found\)/,
      );
      // Chromium's words, as WebLLM's worker passed them on: Cache.add names no status.
      expect(String((error as Error).cause)).toBe("TypeError: Failed to execute 'add' on 'Cache': Request failed");
    } finally {
      await commands.chatServerClose(server.id);
    }
  }, 60_000);
});

describe("WebGPU's words for a lost device, in Chromium", () => {
  it('every read-back a lost device refuses is read as a lost GPU, during a move or a load', async () => {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('this Chromium gives no WebGPU adapter');
    const device = await adapter.requestDevice();
    // WebGPU's flag namespaces, which this TypeScript's DOM library does not declare.
    const { GPUBufferUsage, GPUMapMode } = globalThis as unknown as { GPUBufferUsage: { MAP_READ: number; COPY_DST: number }; GPUMapMode: { READ: number } };
    const readBack = () => device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const refusal = (p: Promise<void>) =>
      p.then(
        () => null,
        (e: unknown) => String(e),
      );
    // TVM destroys its buffers when WebLLM's device-lost handler disposes it; the device goes with it.
    const destroyed = readBack();
    const underDestroy = refusal(destroyed.mapAsync(GPUMapMode.READ));
    destroyed.destroy();
    const unmapped = readBack();
    const underLoss = refusal(unmapped.mapAsync(GPUMapMode.READ));
    device.destroy();
    await device.lost;
    const afterLoss = await refusal(readBack().mapAsync(GPUMapMode.READ));
    const texts = [await underDestroy, await underLoss, afterLoss];
    expect(texts.every((t) => t?.startsWith("AbortError: Failed to execute 'mapAsync' on 'GPUBuffer'"))).toBe(true);
    for (const text of texts) {
      expect(generationError(text, 'Qwen3-0.6B-q4f32_1-MLC'), String(text)).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
      expect(loadError(text, 'Qwen3-0.6B-q4f32_1-MLC').message, String(text)).toMatch(/^The GPU ran out of memory while loading/);
    }
  });
});
