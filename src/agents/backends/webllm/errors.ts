/**
 * WebLLM's failures as BackendErrors with a plain message. Across the worker an error arrives
 * as its `toString()` ("DeviceLostError: The WebGPU device was lost …"), not as an Error, so
 * everything here reads text.
 */
import { BackendError } from '../types';

/** The text of whatever was thrown or rejected: an Error, the string a worker sends, anything. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message.includes(e.name) ? e.message : `${e.name}: ${e.message}`;
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string')
    return (e as { message: string }).message;
  return String(e);
}

/** The message without a leading `SomethingError: `, cut to a length a status line can show. */
export function plain(text: string): string {
  const bare = text.replace(/^\s*(?:Uncaught\s+)?[A-Za-z]*Error:\s*/, '').trim() || 'unknown error';
  return bare.length > 300 ? `${bare.slice(0, 299)}…` : bare;
}

const GPU_LOST = /device\s+(?:was\s+|is\s+|has\s+been\s+)?lost|DeviceLostError|out\s+of\s+memory|OutOfMemory|\bOOM\b/i;
const NOT_LOADED = /ModelNotLoadedError|EngineNotLoadedError|not loaded with a model|Model not loaded/i;
const NO_WEBGPU = /WebGPUNotAvailableError|WebGPUNotFoundError|WebGPU is not supported|Cannot find WebGPU|compatible GPU/i;
const NO_F16 = /ShaderF16SupportError|shader-f16/i;
const LIMITS = /FeatureSupportError|Cannot initialize runtime because of requested/i;
const NETWORK = /Failed to fetch|NetworkError|network error|Load failed|Cannot fetch|Unable to fetch|received status \d{3}/i;
const STORAGE = /QuotaExceeded|quota/i;
/** engine.ts's words for an engine worker that crashed: the engine it held is gone. */
const WORKER_STOPPED = /the WebLLM worker stopped/;

export const GPU_LOST_MESSAGE =
  'The GPU stopped working (device lost), most likely because it ran out of memory. Load the model again, or choose a smaller one.';

const gpuLost = (message: string, cause: unknown) => new BackendError('gpu-lost', message, { cause });

/** A failure while answering (chat.completions.create). */
export function generationError(e: unknown, modelId: string): BackendError {
  const text = errorText(e);
  if (GPU_LOST.test(text)) return gpuLost(GPU_LOST_MESSAGE, e);
  if (NOT_LOADED.test(text))
    return gpuLost(`${modelId} is no longer loaded on the GPU (after a GPU error, or it was unloaded). Load it again.`, e);
  if (WORKER_STOPPED.test(text)) return gpuLost(`${modelId} is no longer loaded: ${plain(text)}. Load it again.`, e);
  return new BackendError('bad-response', `WebLLM could not answer with ${modelId}: ${plain(text)}`, { cause: e });
}

/** A failure while downloading or loading a model; the message says what to do next. */
export function loadError(e: unknown, modelId: string): BackendError {
  const text = errorText(e);
  if (GPU_LOST.test(text))
    return gpuLost(
      `The GPU ran out of memory while loading ${modelId}. Choose a smaller model, close other GPU-heavy tabs, and try again.`,
      e,
    );
  if (NO_WEBGPU.test(text)) return gpuLost(`${modelId} cannot load: this browser gives WebLLM no GPU (${plain(text)}).`, e);
  if (NO_F16.test(text)) return gpuLost(`${modelId} needs shader-f16, which this GPU lacks; choose its q4f32 build instead.`, e);
  if (LIMITS.test(text)) return gpuLost(`This GPU cannot run ${modelId}: ${plain(text)}`, e);
  if (STORAGE.test(text)) {
    const message = `There is not enough storage space to keep ${modelId}. Delete other models or free disk space, then try again.`;
    return new BackendError('bad-response', message, { cause: e });
  }
  if (NETWORK.test(text)) {
    const message = `The download of ${modelId} failed (${plain(text)}). Check the connection and try again; finished parts are kept.`;
    return new BackendError('http', message, { cause: e });
  }
  return new BackendError('bad-response', `Loading ${modelId} failed: ${plain(text)}. Try again.`, { cause: e });
}
