/**
 * The simulation worker's side (engine.ts) talking to the engine worker's side (engine-host.ts)
 * through an in-memory channel, with a fake WebLLM: no weights can be downloaded here. The
 * messages are cloned as a worker's are, and arrive a task later.
 */
import { MLCEngine, prebuiltAppConfig, type AppConfig, type InitProgressCallback, type MLCEngineConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../src/agents/backends/types';
import { webLlmBackend } from '../../../../src/agents/backends/webllm/backend';
import { deleteCached, listModels, loadEngine, type EngineWorker } from '../../../../src/agents/backends/webllm/engine';
import { GPU_LOST_MESSAGE, ModelDroppedError } from '../../../../src/agents/backends/webllm/errors';
import { serveEngine, type EnginePort, type WebLlmApi } from '../../../../src/agents/backends/webllm/engine-host';
import type { ToEngine } from '../../../../src/agents/backends/webllm/protocol';
import { fakeEngine, webLlmLoadReports, type FakeModel, type FakeReply } from './fake-engine';

const MODEL = 'Qwen3-1.7B-q4f32_1-MLC';

interface TestWorker extends EngineWorker {
  terminated: boolean;
  posted: ToEngine[];
  /** The worker dies as a crashed worker does: an error event with a message. */
  crash(message: string): void;
  /** Delivers a message as if the engine worker had sent it. */
  deliver(data: unknown): void;
}

/** An engine worker in this thread: engine-host.ts serving `webllm`, behind a channel that clones. */
function engineWorker(webllm: WebLlmApi): TestWorker {
  const hostListeners: ((event: MessageEvent) => void)[] = [];
  let onMessage: (data: unknown) => void = () => undefined;
  let onStop: (reason: string) => void = () => undefined;
  const later = (deliver: () => void) => setTimeout(() => worker.terminated || deliver(), 0);
  const port: EnginePort = {
    postMessage: (message) => later(() => onMessage(structuredClone(message))),
    addEventListener: (_, listener) => hostListeners.push(listener),
  };
  serveEngine(port, webllm);
  const worker: TestWorker = {
    terminated: false,
    posted: [],
    post(message) {
      worker.posted.push(message);
      later(() => hostListeners.forEach((l) => l({ data: structuredClone(message) } as MessageEvent)));
    },
    listen(message, stop) {
      onMessage = message;
      onStop = stop;
    },
    terminate() {
      worker.terminated = true;
    },
    crash: (message) => onStop(message),
    deliver: (data) => onMessage(data),
  };
  return worker;
}

/** A WebLLM whose CreateMLCEngine runs `load`, reporting progress through the config, and then answers as `model`. */
function fakeWebLlm(
  load: (progress: InitProgressCallback) => Promise<void> = async () => undefined,
  model: FakeModel | readonly FakeReply[] = ['{"action":{"type":"accept"}}'],
) {
  const calls: { modelId: string | string[]; config: MLCEngineConfig | undefined }[] = [];
  const engine = fakeEngine(model, { loaded: [MODEL] });
  const cache = new Set<string>(['Qwen3-0.6B-q4f16_1-MLC']);
  const api: WebLlmApi = {
    async CreateMLCEngine(modelId, config) {
      calls.push({ modelId, config });
      await load((r) => config?.initProgressCallback?.(r));
      return engine as unknown as MLCEngine;
    },
    hasModelInCache: async (id) => cache.has(id),
    deleteModelAllInfoInCache: async (id) => void cache.delete(id),
    prebuiltAppConfig,
  };
  return { api, calls, engine, cache };
}

const report = (progress: number, text: string) => ({ progress, text, timeElapsed: 1 });
/**
 * The test channel delivers each message in a task of its own (`later`): a task queued after those
 * runs after them, so once this resolves every message sent before it has been delivered or dropped.
 */
const delivered = () => new Promise((r) => setTimeout(r, 0));
/** Resolves once the client has posted a message of this type to the engine worker. */
const posted = (worker: TestWorker, type: ToEngine['type']) => expect.poll(() => worker.posted.map((m) => m.type)).toContain(type);

describe('loadEngine', () => {
  it('rejects at once with the reason when aborted before it starts, starting no worker', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    controller.abort(reason);
    let workers = 0;
    const pending = loadEngine(MODEL, { signal: controller.signal }, { createWorker: () => (workers++, engineWorker(fakeWebLlm().api)) });
    await expect(pending).rejects.toBe(reason);
    expect(workers).toBe(0);
  });

  it('loads in a fresh worker, reports progress as {fraction, text}, answers through it, and unloads and ends it', async () => {
    const web = fakeWebLlm(async (progress) => {
      progress(report(0, 'Fetching param cache[0/20]: 0MB fetched'));
      progress(report(0.5, 'Fetching param cache[10/20]: 500MB fetched'));
      progress(report(1.2, 'Finish loading on WebGPU'));
    });
    const worker = engineWorker(web.api);
    const seen: unknown[] = [];
    const engine = await loadEngine(MODEL, { onProgress: (p) => seen.push(p) }, { createWorker: () => worker });
    expect(web.calls.map((c) => c.modelId)).toEqual([MODEL]);
    expect(seen).toEqual([
      { fraction: 0, text: 'Fetching param cache[0/20]: 0MB fetched' },
      { fraction: 0.5, text: 'Fetching param cache[10/20]: 500MB fetched' },
      { fraction: 1, text: 'Finish loading on WebGPU' },
    ]);

    const response = await webLlmBackend({ engine, modelId: MODEL }).complete(
      { messages: [{ role: 'user', content: 'Your move.' }] },
      new AbortController().signal,
    );
    expect(response.text).toContain('{"action":{"type":"accept"}}');
    expect(web.engine.requests[0]).toMatchObject({ model: MODEL, messages: [{ role: 'user', content: 'Your move.' }] });
    engine.interruptGenerate();
    await expect.poll(() => web.engine.interrupts).toBe(1);
    expect(worker.terminated).toBe(false);
    await engine.unload();
    expect(web.engine.unloads).toBe(1);
    expect(worker.terminated).toBe(true);
    await expect(engine.chat.completions.create({ messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(`${MODEL} was unloaded`);
  });

  it("passes WebLLM's three load phases on as they come, each from 0 to 1, in WebLLM's words", async () => {
    const reports = webLlmLoadReports({ shards: 2, shaders: 2 });
    const web = fakeWebLlm(async (progress) => reports.forEach(progress));
    const seen: unknown[] = [];
    await loadEngine(MODEL, { onProgress: (p) => seen.push(p) }, { createWorker: () => engineWorker(web.api) });
    expect(seen).toEqual(reports.map((r) => ({ fraction: r.progress, text: r.text })));
  });

  it('passes an appConfig on to WebLLM (the e2e build points one model at a closed port)', async () => {
    const web = fakeWebLlm();
    const model_list = [{ model: 'http://127.0.0.1:9/x/', model_id: MODEL, model_lib: 'http://127.0.0.1:9/x/lib.wasm' }];
    await loadEngine(MODEL, { appConfig: { model_list } }, { createWorker: () => engineWorker(web.api) });
    expect(web.calls[0]?.config?.appConfig).toEqual({ model_list });
  });

  it('cancelled mid-download: terminates the worker, rejects with the reason, and reports no more progress', async () => {
    const controller = new AbortController();
    let later: InitProgressCallback = () => undefined;
    const web = fakeWebLlm(async (progress) => {
      progress(report(0.1, 'Fetching param cache[2/20]'));
      later = progress;
      return new Promise(() => undefined);
    });
    const worker = engineWorker(web.api);
    const seen: number[] = [];
    const pending = loadEngine(MODEL, { signal: controller.signal, onProgress: (p) => seen.push(p.fraction) }, { createWorker: () => worker });
    await expect.poll(() => seen).toEqual([0.1]);
    controller.abort(new Error('stop the download'));
    await expect(pending).rejects.toThrow('stop the download');
    later(report(0.2, 'Fetching param cache[4/20]'));
    await delivered();
    expect(seen).toEqual([0.1]);
    expect(worker.terminated).toBe(true);
  });

  it.each([
    [
      'Error: Cannot fetch https://huggingface.co/mlc-ai/x/resolve/main/params_shard_3.bin',
      'http',
      /^The download of .* failed \(Cannot fetch https:.*\)\. Check the connection and try again/,
    ],
    [new TypeError('Failed to fetch'), 'http', /^The download of .* failed \(Failed to fetch\)/],
    ['DeviceLostError: The WebGPU device was lost while loading the model.', 'gpu-lost', /ran out of memory while loading .*Choose a smaller model/],
    ['ShaderF16SupportError: This model requires WebGPU extension shader-f16', 'gpu-lost', /needs shader-f16, which this GPU lacks; choose its q4f32 build/],
    [
      'WebGPUNotAvailableError: WebGPU is not supported in your current environment',
      'gpu-lost',
      /cannot load: this browser gives WebLLM no GPU \(WebGPU is not supported/,
    ],
    ['Error: Cannot initialize runtime because of requested maxBufferSize exceeds limit.', 'gpu-lost', /^This GPU cannot run /],
    ['Error: Tensor has already been disposed', 'gpu-lost', /ran out of memory while loading .*Choose a smaller model/],
    ['Engine.unload() is called.', 'gpu-lost', /ran out of memory while loading .*Choose a smaller model/],
    [
      "TypeError: Failed to execute 'add' on 'Cache': Request failed",
      'http',
      /^The download of .* failed: the server refused one of its files or does not have it \(for example 404 Not Found\)/,
    ],
    ['QuotaExceededError: The quota has been exceeded.', 'bad-response', /not enough storage space to keep/],
    ['IntegrityError: hash mismatch', 'bad-response', /^Loading .* failed: hash mismatch\. Try again\.$/],
  ] as const)('a load that fails in the worker with "%s" is a BackendError %s with a plain message; the worker is ended', async (thrown, kind, message) => {
    const worker = engineWorker(fakeWebLlm(async () => Promise.reject(thrown)).api);
    const error = await loadEngine(MODEL, {}, { createWorker: () => worker }).catch((e: unknown) => e);
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
    const workers: TestWorker[] = [];
    const deps = { createWorker: () => (workers.push(engineWorker(web.api)), workers.at(-1) as TestWorker) };
    await expect(loadEngine(MODEL, {}, deps)).rejects.toMatchObject({ kind: 'http' });
    await loadEngine(MODEL, {}, deps);
    expect(workers.map((w) => w.terminated)).toEqual([true, false]);
  });

  it('a worker that crashes while loading ends the load with an error instead of leaving it waiting', async () => {
    const worker = engineWorker(fakeWebLlm(() => new Promise(() => undefined)).api);
    const pending = loadEngine(MODEL, {}, { createWorker: () => worker });
    await posted(worker, 'load');
    worker.crash('Uncaught SyntaxError: Unexpected token');
    await expect(pending).rejects.toMatchObject({
      kind: 'bad-response',
      message: `Loading ${MODEL} failed: the WebLLM worker stopped: Uncaught SyntaxError: Unexpected token. Try again.`,
    });
    expect(worker.terminated).toBe(true);
  });

  it('a worker that crashes while answering fails the call as a lost engine, and every later call at once', async () => {
    const web = fakeWebLlm();
    web.engine.chat.completions.create = () => new Promise(() => undefined);
    const worker = engineWorker(web.api);
    const engine = await loadEngine(MODEL, {}, { createWorker: () => worker });
    const backend = webLlmBackend({ engine, modelId: MODEL });
    const request = { messages: [{ role: 'user' as const, content: 'Your move.' }] };
    const pending = backend.complete(request, new AbortController().signal);
    await posted(worker, 'chat');
    worker.crash('Uncaught RangeError: Array buffer allocation failed');
    const lost = {
      kind: 'gpu-lost',
      message: `${MODEL} is no longer loaded: the WebLLM worker stopped: Uncaught RangeError: Array buffer allocation failed. Load it again.`,
    };
    await expect(pending).rejects.toMatchObject(lost);
    await expect(backend.complete(request, new AbortController().signal)).rejects.toMatchObject(lost);
    expect(worker.terminated).toBe(true);
  });

  it('a load that ends with no model in WebLLM (a real MLCEngine holding none) is a lost GPU with the memory advice; the worker is ended', async () => {
    // WebLLM's reload swallows the AbortError of a load its device-lost handler unloaded: CreateMLCEngine resolves, empty.
    const web = fakeWebLlm();
    web.api.CreateMLCEngine = async () => new MLCEngine();
    const worker = engineWorker(web.api);
    const error = await loadEngine(MODEL, {}, { createWorker: () => worker }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'gpu-lost',
      message: `The GPU ran out of memory while loading ${MODEL}. Choose a smaller model, close other GPU-heavy tabs, and try again.`,
    });
    expect(String((error as Error).cause)).toMatch(/^ModelNotLoadedError: Model not loaded before trying to complete getMessage/);
    expect(worker.terminated).toBe(true);
  });

  it('a device lost after load: the move in progress fails as a lost GPU, and so does every later one', async () => {
    const web = fakeWebLlm(undefined, ['{"action":{"type":"accept"}}', { lose: true }]);
    const engine = await loadEngine(MODEL, {}, { createWorker: () => engineWorker(web.api) });
    const backend = webLlmBackend({ engine, modelId: MODEL });
    const request = { messages: [{ role: 'user' as const, content: 'Your move.' }] };
    await backend.complete(request, new AbortController().signal);
    const lost = await backend.complete(request, new AbortController().signal).catch((e: unknown) => e);
    expect(lost).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
    // The engine worker asked WebLLM after the failure, and WebLLM no longer held the model.
    expect((lost as Error).cause).toBeInstanceOf(ModelDroppedError);
    expect(String((lost as Error).cause)).toBe('ModelDroppedError: Error: Tensor has already been disposed');
    const later = await backend.complete(request, new AbortController().signal).catch((e: unknown) => e);
    expect(later).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
    expect(String((later as Error).cause)).toMatch(/ModelNotLoadedError: Model not loaded before trying to complete ChatCompletionRequest/);
  });

  it('a move that fails with words no pattern knows is still a lost GPU when WebLLM says afterwards that it holds no model', async () => {
    const web = fakeWebLlm(undefined, [{ lose: true, error: new Error('AssertError:') }]);
    const engine = await loadEngine(MODEL, {}, { createWorker: () => engineWorker(web.api) });
    const error = await webLlmBackend({ engine, modelId: MODEL })
      .complete({ messages: [{ role: 'user', content: 'Your move.' }] }, new AbortController().signal)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
  });

  it('a move that fails while WebLLM still holds the model is a bad response, not a lost GPU', async () => {
    const web = fakeWebLlm(undefined, [{ reject: 'ContextWindowSizeExceededError: Prompt tokens exceed context window size' }]);
    const engine = await loadEngine(MODEL, {}, { createWorker: () => engineWorker(web.api) });
    const error = await webLlmBackend({ engine, modelId: MODEL })
      .complete({ messages: [{ role: 'user', content: 'Your move.' }] }, new AbortController().signal)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'bad-response', message: `WebLLM could not answer with ${MODEL}: Prompt tokens exceed context window size` });
  });

  it('terminate ends the worker at once, without asking WebLLM, and fails the move it was stuck on', async () => {
    const web = fakeWebLlm(undefined, [{ stall: true }]);
    const worker = engineWorker(web.api);
    const engine = await loadEngine(MODEL, {}, { createWorker: () => worker });
    const stuck = engine.chat.completions.create({ messages: [{ role: 'user', content: 'Your move.' }] }).catch((e: unknown) => e);
    await expect.poll(() => web.engine.requests.length).toBe(1);
    engine.terminate?.();
    expect(worker.terminated).toBe(true);
    expect(worker.posted.map((m) => m.type)).toEqual(['load', 'chat']);
    expect(String(await stuck)).toContain(`${MODEL} was unloaded`);
    expect(web.engine.unloads).toBe(0);
  });

  it('a malformed message from the engine worker ends it rather than being acted on', async () => {
    const worker = engineWorker(fakeWebLlm(() => new Promise(() => undefined)).api);
    const pending = loadEngine(MODEL, {}, { createWorker: () => worker });
    await posted(worker, 'load');
    worker.deliver({ type: 'done', callId: 'zero' });
    await expect(pending).rejects.toThrow(/the WebLLM worker sent a malformed message/);
    expect(worker.terminated).toBe(true);
  });
});

describe("WebLLM's model list and cache, asked of an engine worker", () => {
  it('lists the records WebLLM has for the ids asked, in that order, with whether each is cached; the worker is ended', async () => {
    const web = fakeWebLlm();
    const worker = engineWorker(web.api);
    const list = await listModels(['Qwen3-0.6B-q4f16_1-MLC', 'Parley-no-such-model', 'Qwen3-8B-q4f32_1-MLC'], { createWorker: () => worker });
    expect(list.models.map((m) => m.model_id)).toEqual(['Qwen3-0.6B-q4f16_1-MLC', 'Qwen3-8B-q4f32_1-MLC']);
    const record = prebuiltAppConfig.model_list.find((r) => r.model_id === 'Qwen3-8B-q4f32_1-MLC');
    expect(list.models[1]).toEqual({
      model_id: 'Qwen3-8B-q4f32_1-MLC',
      vram_required_MB: record?.vram_required_MB,
      low_resource_required: record?.low_resource_required,
      ...(record?.required_features && { required_features: record.required_features }),
      ...(record?.buffer_size_required_bytes !== undefined && { buffer_size_required_bytes: record.buffer_size_required_bytes }),
    });
    expect(list.cached).toEqual({ 'Qwen3-0.6B-q4f16_1-MLC': true, 'Qwen3-8B-q4f32_1-MLC': false });
    expect(worker.terminated).toBe(true);
  });

  it('a cache WebLLM cannot read counts as not cached', async () => {
    const web = fakeWebLlm();
    web.api.hasModelInCache = () => Promise.reject(new Error('SecurityError: caches is not defined'));
    const list = await listModels(['Qwen3-0.6B-q4f16_1-MLC'], { createWorker: () => engineWorker(web.api) });
    expect(list.cached).toEqual({ 'Qwen3-0.6B-q4f16_1-MLC': false });
  });

  it("a model of the user's own is listed, checked and deleted with its record added to WebLLM's list", async () => {
    const web = fakeWebLlm();
    const seen: (AppConfig | undefined)[] = [];
    web.api.hasModelInCache = async (id, config) => {
      seen.push(config);
      return id === 'Mine-q4f16_1-MLC';
    };
    web.api.deleteModelAllInfoInCache = async (_id, config) => void seen.push(config);
    const mine = {
      model: 'https://example.org/mine/',
      model_id: 'Mine-q4f16_1-MLC',
      model_lib: 'https://example.org/mine.wasm',
      overrides: { context_window_size: 8192 },
    };
    const list = await listModels(['Qwen3-0.6B-q4f16_1-MLC', 'Mine-q4f16_1-MLC'], { createWorker: () => engineWorker(web.api) }, { model_list: [mine] });
    expect(list.models).toEqual([expect.objectContaining({ model_id: 'Qwen3-0.6B-q4f16_1-MLC' }), { model_id: 'Mine-q4f16_1-MLC' }]);
    expect(list.cached).toEqual({ 'Qwen3-0.6B-q4f16_1-MLC': false, 'Mine-q4f16_1-MLC': true });
    await deleteCached('Mine-q4f16_1-MLC', { createWorker: () => engineWorker(web.api) }, { model_list: [mine] });
    // Every call sees WebLLM's own records and the user's one, first (WebLLM takes an id's first record).
    expect(seen).toHaveLength(3);
    for (const config of seen) {
      expect(config?.model_list[0]).toEqual(mine);
      expect(config?.model_list.length).toBe(prebuiltAppConfig.model_list.length + 1);
    }
  });

  it("a model of the user's own named like a WebLLM prebuilt build is checked and deleted as itself", async () => {
    const web = fakeWebLlm();
    const prebuilt = prebuiltAppConfig.model_list.find((r) => !r.model_id.startsWith('Qwen3-'));
    if (!prebuilt) throw new Error('WebLLM lists only Qwen3 builds');
    const mine = { model: 'https://example.org/mine/', model_id: prebuilt.model_id, model_lib: 'https://example.org/mine.wasm' };
    const seen: (AppConfig | undefined)[] = [];
    web.api.hasModelInCache = async (_id, config) => {
      seen.push(config);
      return false;
    };
    web.api.deleteModelAllInfoInCache = async (_id, config) => void seen.push(config);
    const deps = { createWorker: () => engineWorker(web.api) };
    const list = await listModels([prebuilt.model_id], deps, { model_list: [mine] });
    expect(list.models).toEqual([{ model_id: prebuilt.model_id }]);
    await deleteCached(prebuilt.model_id, deps, { model_list: [mine] });
    for (const config of seen) {
      // The record WebLLM finds for the id (its first) is the user's, and the id is there once.
      expect(config?.model_list.find((r) => r.model_id === prebuilt.model_id)).toEqual(mine);
      expect(config?.model_list.filter((r) => r.model_id === prebuilt.model_id)).toHaveLength(1);
    }
    expect(seen).toHaveLength(2);
  });

  it("deleteCached goes to WebLLM's delete", async () => {
    const web = fakeWebLlm();
    const worker = engineWorker(web.api);
    await deleteCached('Qwen3-0.6B-q4f16_1-MLC', { createWorker: () => worker });
    expect(web.cache.has('Qwen3-0.6B-q4f16_1-MLC')).toBe(false);
    expect(worker.terminated).toBe(true);
  });

  it('a delete WebLLM cannot finish (it fetches the file list of a model it never cached) is a plain BackendError', async () => {
    const web = fakeWebLlm();
    web.api.deleteModelAllInfoInCache = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(deleteCached(MODEL, { createWorker: () => engineWorker(web.api) })).rejects.toMatchObject({
      name: 'BackendError',
      kind: 'http',
      message: `Could not delete ${MODEL} from the cache (Failed to fetch).`,
    });
  });

  it('an engine worker that cannot start fails the question with the reason', async () => {
    const worker = engineWorker(fakeWebLlm().api);
    const pending = listModels(['Qwen3-0.6B-q4f16_1-MLC'], { createWorker: () => worker });
    worker.crash('it could not start');
    await expect(pending).rejects.toMatchObject({
      kind: 'bad-response',
      message: "WebLLM's model list could not be read (the WebLLM worker stopped: it could not start).",
    });
  });
});
