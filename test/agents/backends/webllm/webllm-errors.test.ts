/**
 * errors.ts over the texts WebLLM 0.2.86 and the browser really produce: TVM's disposal errors
 * and WebLLM's own messages are found in its shipped code (so an upgrade that rewords one fails
 * here), ModelNotLoadedError comes from a real MLCEngine in Node, and the browser texts are
 * Chromium's (the Cache API's is pinned in Chromium by engine.browser.test.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { generationError, GPU_LOST_MESSAGE, isModelNotLoaded, loadError, ModelDroppedError } from '../../../../src/agents/backends/webllm/errors';
import { DISPOSED_TEXTS } from './fake-engine';

const WEBLLM_CODE = readFileSync(createRequire(import.meta.url).resolve('@mlc-ai/web-llm'), 'utf8');
const MODEL = 'Qwen3-4B-q4f16_1-MLC';
const OOM_ADVICE = `The GPU ran out of memory while loading ${MODEL}. Choose a smaller model, close other GPU-heavy tabs, and try again.`;

/** As the engine worker sends an Error thrown by TVM: its toString(). */
const asSent = (message: string) => String(new Error(message));

/**
 * What a device lost after load leaves beyond TVM's disposal texts, with where each comes from.
 * WebLLM reads every answer back through mapAsync; Chromium's rejections are pinned in Chromium
 * by engine.browser.test.ts.
 */
const AFTER_LOSS: [string, string][] = [
  ["AbortError: Failed to execute 'mapAsync' on 'GPUBuffer': The Device was lost before mapping was resolved.", 'Chromium, a read-back after the loss'],
  [
    "AbortError: Failed to execute 'mapAsync' on 'GPUBuffer': Buffer was destroyed before mapping was resolved.",
    'Chromium, a read-back whose buffer TVM destroyed',
  ],
  ["AbortError: Failed to execute 'mapAsync' on 'GPUBuffer': Buffer was unmapped before mapping was resolved.", 'Chromium, a read-back under device.destroy()'],
  ["AbortError: Failed to execute 'mapAsync' on 'GPUBuffer': Device is lost", 'Chromium up to 125'],
  [asSent('WebGPU not initialied'), "TVM's asyncLoadWebGPUPipelines, sic"],
];

describe('a GPU lost after load, as WebLLM 0.2.86 reports it', () => {
  it.each(DISPOSED_TEXTS)('TVM\'s "%s" during a move is gpu-lost, with the message of a lost device', (text) => {
    expect(generationError(asSent(text), MODEL)).toMatchObject({ name: 'BackendError', kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
  });

  it.each(AFTER_LOSS)('"%s" (%s) during a move is gpu-lost too', (text) => {
    expect(generationError(text, MODEL)).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
  });

  it("WebLLM's ModelNotLoadedError, from a real MLCEngine, is a lost device: only WebLLM's device-lost handler unloads behind Parley's back", async () => {
    const error = await new MLCEngine().chatCompletion({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(isModelNotLoaded(error)).toBe(true);
    expect(isModelNotLoaded(String(error))).toBe(true);
    expect(generationError(error, MODEL)).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
    // As the engine worker sends it, text only.
    expect(generationError(String(error), MODEL)).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
  });

  it("the engine worker's verdict (WebLLM holds no model after the failure) is a lost device whatever the move's own text", () => {
    const error = generationError(new ModelDroppedError('Error: AssertError:'), MODEL);
    expect(error).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
  });

  it('a failure that is no loss stays a bad response', () => {
    expect(isModelNotLoaded('WorkerEngineModelNotLoadedError: WebWorkerMLCEngine is not loaded with a model.')).toBe(false);
    expect(generationError('Error: AssertError:', MODEL)).toMatchObject({ kind: 'bad-response' });
  });
});

describe('a load that runs out of memory gets the memory advice, not "Try again"', () => {
  it.each([
    ...DISPOSED_TEXTS.map(asSent),
    ...AFTER_LOSS.map(([text]) => text),
    // What WebLLM's unload() aborts a load under way with; a string, so fetch rejects with it as it is.
    'Engine.unload() is called.',
    'GPUOutOfMemoryError: Out of memory',
  ])('"%s"', (text) => {
    expect(loadError(text, MODEL)).toMatchObject({ kind: 'gpu-lost', message: OOM_ADVICE });
  });

  it("WebLLM's own words for the abort, and TVM's for a pipeline load without WebGPU, are in its shipped code", () => {
    expect(WEBLLM_CODE).toContain('this.reloadController.abort("Engine.unload() is called.")');
    expect(WEBLLM_CODE).toContain('throw Error("WebGPU not initialied")');
  });
});

describe('a file the server does not have (404) is a failed download that says so', () => {
  const NOT_THERE = `The download of ${MODEL} failed: the server refused one of its files or does not have it (for example 404 Not Found). Check the model's address, or try again later; finished parts are kept.`;

  it.each([
    // Chromium's Cache API add() (WebLLM's default cache); pinned in Chromium by engine.browser.test.ts.
    "TypeError: Failed to execute 'add' on 'Cache': Request failed",
    // Firefox's.
    'TypeError: Cache.add: Cache got basic response with bad status 404 while trying to add request https://huggingface.co/x/resolve/main/mlc-chat-config.json',
    // WebLLM's IndexedDB, OPFS and cross-origin caches.
    'Error: Failed to store https://huggingface.co/x/resolve/main/params_shard_0.bin with error: Error: Network response was not ok',
    'Error: ArtifactOPFSCache: Unable to fetch https://huggingface.co/x/resolve/main/params_shard_0.bin, received status 404',
  ])('"%s"', (text) => {
    expect(loadError(text, MODEL)).toMatchObject({ kind: 'http', message: NOT_THERE });
  });

  it("WebLLM's caches' words are in its shipped code", () => {
    for (const words of ['yield this.cache.add(request)', "'Network response was not ok'", '"Failed to store "', 'received status ${response.status}'])
      expect(WEBLLM_CODE).toContain(words);
  });

  it('a connection that fails is still told to check the connection', () => {
    expect(loadError(new TypeError('Failed to fetch'), MODEL).message).toMatch(/failed \(Failed to fetch\)\. Check the connection/);
  });
});
