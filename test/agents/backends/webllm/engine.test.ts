/**
 * loadEngine without WebLLM or a worker: no weights can be downloaded here, so the WebLLM
 * module and the worker are injected fakes with the same functions.
 */
import type { InitProgressCallback, MLCEngineConfig, WebWorkerMLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../src/agents/backends/types';
import { deleteCached, isCached, loadEngine, type WebLlmModule, type WorkerLike } from '../../../../src/agents/backends/webllm/engine';
import { fakeEngine } from './fake-engine';

const MODEL = 'Qwen3-1.7B-q4f32_1-MLC';

interface FakeWorker extends WorkerLike {
  terminated: boolean;
}
const fakeWorker = (): FakeWorker => {
  const w = {
    terminated: false,
    terminate() {
      w.terminated = true;
    },
  };
  return w;
};

/** A WebLLM module whose CreateWebWorkerMLCEngine runs `load`, reporting progress through the config. */
function fakeWebLlm(load: (progress: InitProgressCallback) => Promise<void>) {
  const calls: { worker: unknown; modelId: string | string[]; config: MLCEngineConfig | undefined }[] = [];
  const engine = Object.assign(fakeEngine(['{}']), {
    unloaded: 0,
    async unload() {
      engine.unloaded++;
    },
  });
  const cache = new Set<string>(['Qwen3-0.6B-q4f16_1-MLC']);
  const module: WebLlmModule = {
    async CreateWebWorkerMLCEngine(worker, modelId, config) {
      calls.push({ worker, modelId, config });
      await load((r) => config?.initProgressCallback?.(r));
      return engine as unknown as WebWorkerMLCEngine;
    },
    hasModelInCache: async (id) => cache.has(id),
    deleteModelAllInfoInCache: async (id) => void cache.delete(id),
  };
  return { module, calls, engine, cache };
}

const report = (progress: number, text: string) => ({ progress, text, timeElapsed: 1 });

describe('loadEngine', () => {
  it('rejects at once with the reason when aborted before it starts, importing and starting nothing', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    controller.abort(reason);
    let imported = 0;
    let workers = 0;
    const pending = loadEngine(MODEL, { signal: controller.signal }, {
      importWebLlm: async () => {
        imported++;
        return fakeWebLlm(async () => undefined).module;
      },
      createWorker: () => {
        workers++;
        return fakeWorker();
      },
    });
    await expect(pending).rejects.toBe(reason);
    expect([imported, workers]).toEqual([0, 0]);
  });

  it('loads in a fresh worker, reports progress as {fraction, text}, and returns an engine that unloads and ends the worker', async () => {
    const web = fakeWebLlm(async (progress) => {
      progress(report(0, 'Fetching param cache[0/20]: 0MB fetched'));
      progress(report(0.5, 'Fetching param cache[10/20]: 500MB fetched'));
      progress(report(1.2, 'Finish loading on WebGPU'));
    });
    const worker = fakeWorker();
    const seen: unknown[] = [];
    const engine = await loadEngine(MODEL, { onProgress: (p) => seen.push(p) }, { importWebLlm: async () => web.module, createWorker: () => worker });
    expect(web.calls).toHaveLength(1);
    expect(web.calls[0]).toMatchObject({ worker, modelId: MODEL });
    expect(typeof web.calls[0]?.config?.initProgressCallback).toBe('function');
    expect(seen).toEqual([
      { fraction: 0, text: 'Fetching param cache[0/20]: 0MB fetched' },
      { fraction: 0.5, text: 'Fetching param cache[10/20]: 500MB fetched' },
      { fraction: 1, text: 'Finish loading on WebGPU' },
    ]);
    expect(engine.chat).toBe(web.engine.chat);
    engine.interruptGenerate();
    expect(web.engine.interrupts).toBe(1);
    expect(worker.terminated).toBe(false);
    await engine.unload();
    expect(web.engine.unloaded).toBe(1);
    expect(worker.terminated).toBe(true);
  });

  it('cancelled mid-download: terminates the worker, rejects with the reason, and reports no more progress', async () => {
    const controller = new AbortController();
    let later: InitProgressCallback = () => undefined;
    const web = fakeWebLlm(async (progress) => {
      progress(report(0.1, 'Fetching param cache[2/20]'));
      later = progress;
      controller.abort(new Error('stop the download'));
      return new Promise(() => undefined);
    });
    const worker = fakeWorker();
    const seen: number[] = [];
    const pending = loadEngine(MODEL, { signal: controller.signal, onProgress: (p) => seen.push(p.fraction) }, {
      importWebLlm: async () => web.module,
      createWorker: () => worker,
    });
    await expect(pending).rejects.toThrow('stop the download');
    later(report(0.2, 'Fetching param cache[4/20]'));
    expect(seen).toEqual([0.1]);
    expect(worker.terminated).toBe(true);
  });

  it.each([
    ['Error: Cannot fetch https://huggingface.co/mlc-ai/x/resolve/main/params_shard_3.bin', 'http', /^The download of .* failed \(Cannot fetch https:.*\)\. Check the connection and try again/],
    ['TypeError: Failed to fetch', 'http', /^The download of .* failed \(Failed to fetch\)/],
    ['DeviceLostError: The WebGPU device was lost while loading the model.', 'gpu-lost', /ran out of memory while loading .*Choose a smaller model/],
    ['ShaderF16SupportError: This model requires WebGPU extension shader-f16', 'gpu-lost', /needs shader-f16, which this GPU lacks; choose its q4f32 build/],
    ['WebGPUNotAvailableError: WebGPU is not supported in your current environment', 'gpu-lost', /cannot load: this browser gives WebLLM no GPU \(WebGPU is not supported/],
    ['Error: Cannot initialize runtime because of requested maxBufferSize exceeds limit.', 'gpu-lost', /^This GPU cannot run /],
    ['QuotaExceededError: The quota has been exceeded.', 'bad-response', /not enough storage space to keep/],
    ['IntegrityError: hash mismatch', 'bad-response', /^Loading .* failed: hash mismatch\. Try again\.$/],
  ] as const)('a load that fails with "%s" is a BackendError %s with a plain message; the worker is ended', async (thrown, kind, message) => {
    const web = fakeWebLlm(async () => Promise.reject(thrown));
    const worker = fakeWorker();
    const error = await loadEngine(MODEL, {}, { importWebLlm: async () => web.module, createWorker: () => worker }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(MODEL);
    expect(worker.terminated).toBe(true);
  });

  it('a failed download can be tried again, in a new worker', async () => {
    let attempt = 0;
    const web = fakeWebLlm(async () => {
      if (attempt++ === 0) throw new TypeError('Failed to fetch');
    });
    const workers: FakeWorker[] = [];
    const deps = { importWebLlm: async () => web.module, createWorker: () => (workers.push(fakeWorker()), workers.at(-1) as FakeWorker) };
    await expect(loadEngine(MODEL, {}, deps)).rejects.toMatchObject({ kind: 'http' });
    const engine = await loadEngine(MODEL, {}, deps);
    expect(engine.chat).toBe(web.engine.chat);
    expect(workers.map((w) => w.terminated)).toEqual([true, false]);
  });

  it('a worker that crashes while loading ends the load with an error instead of leaving it waiting', async () => {
    const web = fakeWebLlm(() => new Promise(() => undefined));
    let crash: ((event: { message?: string }) => void) | undefined;
    const worker = {
      ...fakeWorker(),
      terminated: false,
      terminate() {
        worker.terminated = true;
      },
      addEventListener: (_: 'error', listener: (event: { message?: string }) => void) => void (crash = listener),
      removeEventListener: () => void (crash = undefined),
    };
    const pending = loadEngine(MODEL, {}, { importWebLlm: async () => web.module, createWorker: () => worker });
    await new Promise((r) => setTimeout(r, 0));
    crash?.({ message: 'Uncaught SyntaxError: Unexpected token' });
    await expect(pending).rejects.toMatchObject({
      kind: 'bad-response',
      message: `Loading ${MODEL} failed: the WebLLM worker stopped: Uncaught SyntaxError: Unexpected token. Try again.`,
    });
    expect(worker.terminated).toBe(true);
    expect(crash).toBeUndefined();
  });

  it("WebLLM's code failing to load is a plain http error", async () => {
    const pending = loadEngine(MODEL, {}, {
      importWebLlm: () => Promise.reject(new TypeError('Failed to fetch dynamically imported module')),
      createWorker: fakeWorker,
    });
    await expect(pending).rejects.toMatchObject({
      kind: 'http',
      message: 'Could not load WebLLM itself (TypeError: Failed to fetch dynamically imported module). Check the connection and reload the page.',
    });
  });
});

describe('the model cache', () => {
  it("isCached and deleteCached go to WebLLM's cache functions", async () => {
    const web = fakeWebLlm(async () => undefined);
    const deps = { importWebLlm: async () => web.module };
    expect(await isCached('Qwen3-0.6B-q4f16_1-MLC', deps)).toBe(true);
    expect(await isCached(MODEL, deps)).toBe(false);
    await deleteCached('Qwen3-0.6B-q4f16_1-MLC', deps);
    expect(await isCached('Qwen3-0.6B-q4f16_1-MLC', deps)).toBe(false);
  });

  it('a delete WebLLM cannot finish (it fetches the file list of a model it never cached) is a plain BackendError', async () => {
    const web = fakeWebLlm(async () => undefined);
    web.module.deleteModelAllInfoInCache = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(deleteCached(MODEL, { importWebLlm: async () => web.module })).rejects.toMatchObject({
      name: 'BackendError',
      kind: 'http',
      message: `Could not delete ${MODEL} from the cache (TypeError: Failed to fetch).`,
    });
  });
});
