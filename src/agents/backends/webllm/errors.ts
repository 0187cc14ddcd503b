/**
 * WebLLM's failures as BackendErrors with a plain message. Across the worker an error arrives
 * as its `toString()` ("DeviceLostError: The WebGPU device was lost …"), not as an Error, so
 * everything here reads text, except the one verdict the engine worker reaches by asking WebLLM's
 * state (ModelDroppedError).
 *
 * The texts are WebLLM 0.2.86's and its bundled TVM runtime's (node_modules/@mlc-ai/web-llm/lib/index.js):
 * webllm-errors.test.ts finds each of them in that file, so an upgrade that rewords one fails a test.
 */
import { BackendError } from '../types';

/** The text of whatever was thrown or rejected: an Error, the string a worker sends, anything. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message.includes(e.name) ? e.message : `${e.name}: ${e.message}`;
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return String(e);
}

/** The message without a leading `SomethingError: `, cut to a length a status line can show. */
export function plain(text: string): string {
  const bare = text.replace(/^\s*(?:Uncaught\s+)?[A-Za-z]*Error:\s*/, '').trim() || 'unknown error';
  return bare.length > 300 ? `${bare.slice(0, 299)}…` : bare;
}

/**
 * The engine worker's verdict after a failed move: WebLLM no longer holds the model (asked, it
 * answers ModelNotLoadedError). In Parley's engine worker only WebLLM's own device-lost handler
 * unloads a model behind Parley's back, so this is a lost GPU whatever the move's own error said.
 */
export class ModelDroppedError extends Error {
  override readonly name = 'ModelDroppedError';
}

/** WebGPU's own words for a lost device (Chromium's mapAsync: "AbortError: … Device is lost"), and out of memory. */
const GPU_LOST = /device\s+(?:was\s+|is\s+|has\s+been\s+)?lost|DeviceLostError|out\s+of\s+memory|OutOfMemory|\bOOM\b/i;
/**
 * What a move or a load in progress meets once WebLLM's device-lost handler has disposed the
 * runtime under it: TVM's disposed tensors, objects and functions, its WebGPU context gone
 * (and "WebGPU not initialied", sic), read-backs whose buffers were destroyed, and the abort
 * WebLLM's unload() sends a load under way.
 */
const DISPOSED =
  /(?:Tensor|Object) has already been disposed|Asyncify packed function has already been disposed|WebGPU (?:context is )?not initiali[sz]?ed|(?:destroyed|unmapped) before mapping was resolved|Engine\.unload\(\) is called/i;
/** WebLLM's engine holds no model: after a load, in Parley's worker, only because its device-lost handler unloaded it. */
const WEBLLM_DROPPED = /\bModelNotLoadedError\b|Model not loaded before trying to complete/;
/** A worker client or Parley's engine worker with nothing loaded (WebLLM's web-worker client, engine-host.ts). */
const NOT_LOADED = /WorkerEngineModelNotLoadedError|EngineNotLoadedError|not loaded with a model/i;
const NO_WEBGPU = /WebGPUNotAvailableError|WebGPUNotFoundError|WebGPU is not supported|Cannot find WebGPU|compatible GPU/i;
const NO_F16 = /ShaderF16SupportError|shader-f16/i;
const LIMITS = /FeatureSupportError|Cannot initialize runtime because of requested/i;
/**
 * A file the server answered with an error status (404 Not Found, 403, 500): the Cache API's
 * add() rejects with no status ("Failed to execute 'add' on 'Cache': Request failed" in
 * Chromium, "… bad status 404 …" in Firefox), WebLLM's IndexedDB cache says "Network response
 * was not ok", its OPFS and cross-origin caches "received status 404".
 */
const BAD_STATUS = /Failed to execute 'add' on 'Cache'|Cache\.add|bad status \d{3}|Network response was not ok|received status \d{3}/i;
const NETWORK = /Failed to fetch|NetworkError|network error|Load failed|Cannot fetch|Unable to fetch/i;
const STORAGE = /QuotaExceeded|quota/i;
/** engine.ts's words for an engine worker that crashed: the engine it held is gone. */
const WORKER_STOPPED = /the WebLLM worker stopped/;

export const GPU_LOST_MESSAGE =
  'The GPU stopped working (device lost), most likely because it ran out of memory. Load the model again, or choose a smaller one.';

const gpuLost = (message: string, cause: unknown) => new BackendError('gpu-lost', message, { cause });

/** Whether the text is one a lost GPU leaves: WebGPU's, TVM's disposed runtime's, or WebLLM's engine emptied by its device-lost handler. */
const lostGpuText = (text: string): boolean => GPU_LOST.test(text) || DISPOSED.test(text) || WEBLLM_DROPPED.test(text);

/** Whether WebLLM refused a call because it holds no model: its ModelNotLoadedError, by name or by text. */
export function isModelNotLoaded(e: unknown): boolean {
  return (e instanceof Error && e.name === 'ModelNotLoadedError') || WEBLLM_DROPPED.test(errorText(e));
}

/** A failure while answering (chat.completions.create). */
export function generationError(e: unknown, modelId: string): BackendError {
  const text = errorText(e);
  if (e instanceof ModelDroppedError || lostGpuText(text)) return gpuLost(GPU_LOST_MESSAGE, e);
  if (NOT_LOADED.test(text)) return gpuLost(`${modelId} is no longer loaded on the GPU (after a GPU error, or it was unloaded). Load it again.`, e);
  if (WORKER_STOPPED.test(text)) return gpuLost(`${modelId} is no longer loaded: ${plain(text)}. Load it again.`, e);
  return new BackendError('bad-response', `WebLLM could not answer with ${modelId}: ${plain(text)}`, { cause: e });
}

/**
 * A move WebLLM did not finish in time (pool.ts's move timeout). `ended`: it did not stop when
 * interrupted either, so its engine worker was ended and the model loads again on the next move.
 */
export function moveTimeoutError(modelId: string, timeoutMs: number, ended: boolean): BackendError {
  const seconds = Math.round(timeoutMs / 1000);
  const after = ended ? 'WebLLM did not stop when asked, so its worker was ended; the model loads again on the next move.' : 'The move was stopped.';
  return new BackendError('timeout', `${modelId} gave no answer within ${seconds} s. ${after}`);
}

/** A failure while downloading or loading a model; the message says what to do next. */
export function loadError(e: unknown, modelId: string): BackendError {
  const text = errorText(e);
  if (lostGpuText(text))
    return gpuLost(`The GPU ran out of memory while loading ${modelId}. Choose a smaller model, close other GPU-heavy tabs, and try again.`, e);
  if (NO_WEBGPU.test(text)) return gpuLost(`${modelId} cannot load: this browser gives WebLLM no GPU (${plain(text)}).`, e);
  if (NO_F16.test(text)) return gpuLost(`${modelId} needs shader-f16, which this GPU lacks; choose its q4f32 build instead.`, e);
  if (LIMITS.test(text)) return gpuLost(`This GPU cannot run ${modelId}: ${plain(text)}`, e);
  if (STORAGE.test(text)) {
    const message = `There is not enough storage space to keep ${modelId}. Delete other models or free disk space, then try again.`;
    return new BackendError('bad-response', message, { cause: e });
  }
  if (BAD_STATUS.test(text)) {
    const message = `The download of ${modelId} failed: the server refused one of its files or does not have it (for example 404 Not Found). Check the model's address, or try again later; finished parts are kept.`;
    return new BackendError('http', message, { cause: e });
  }
  if (NETWORK.test(text)) {
    const message = `The download of ${modelId} failed (${plain(text)}). Check the connection and try again; finished parts are kept.`;
    return new BackendError('http', message, { cause: e });
  }
  return new BackendError('bad-response', `Loading ${modelId} failed: ${plain(text)}. Try again.`, { cause: e });
}
