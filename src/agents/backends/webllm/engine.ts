/**
 * The simulation worker's side of the engine workers (protocol.ts): loading a model, and asking
 * WebLLM's model list and cache. WebLLM itself runs only in engine.worker.ts; nothing here
 * imports it but its types. Each load gets a fresh worker; a failed or cancelled load ends it,
 * so trying again starts clean (WebLLM keeps the files it had finished downloading in its cache).
 */
import type { AppConfig, ChatCompletion, ChatCompletionRequestNonStreaming } from '@mlc-ai/web-llm';
import { BackendError } from '../types';
import type { WebLlmEngineLike } from './backend';
import { errorText, loadError, ModelDroppedError, plain } from './errors';
import type { ModelListEntry } from './models';
import { FromEngineSchema, type FromEngine, type ToEngine } from './protocol';

/** An engine worker as the connection uses it; a test hands in one that serves a fake WebLLM. */
export interface EngineWorker {
  post(message: ToEngine): void;
  /** Delivers the worker's messages, and the reason if it stops (crashes or cannot start). */
  listen(onMessage: (data: unknown) => void, onStop: (reason: string) => void): void;
  terminate(): void;
}

export interface LoadProgress {
  /** 0 to 1. */
  fraction: number;
  /** WebLLM's own words: what it is fetching or compiling. */
  text: string;
}

export interface LoadOptions {
  onProgress?: (progress: LoadProgress) => void;
  /** Cancels the load: the worker is terminated and the promise rejects with the reason. */
  signal?: AbortSignal;
  /** Where WebLLM finds the model's files; WebLLM's prebuilt list (Hugging Face) when left out. */
  appConfig?: AppConfig;
}

export interface LoadedEngine extends WebLlmEngineLike {
  /** Asks WebLLM to free the GPU memory, then ends the worker. */
  unload(): Promise<void>;
  /**
   * Ends the worker at once without asking WebLLM, which may be stuck or hold a lost device;
   * the browser frees the worker's GPU memory. A test's engine may have no worker to end.
   */
  terminate?(): void;
}

export interface EngineDeps {
  createWorker?: () => EngineWorker;
}

/** The worker's error event says little; where it says nothing, the script did not start. */
function startWorker(): EngineWorker {
  const worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'parley-webllm' });
  return {
    post: (message) => worker.postMessage(message),
    listen(onMessage, onStop) {
      worker.onmessage = (event: MessageEvent) => onMessage(event.data);
      worker.onmessageerror = () => onStop('a message from it could not be read');
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        onStop(event.message || 'it could not start');
      };
    },
    terminate: () => worker.terminate(),
  };
}

type Reply<T extends FromEngine['type']> = Extract<FromEngine, { type: T }>;
type Call = ToEngine extends infer M ? (M extends { callId: number } ? Omit<M, 'callId'> : never) : never;

interface Pending {
  expect: FromEngine['type'];
  resolve(reply: FromEngine): void;
  reject(reason: unknown): void;
  onProgress?: (progress: LoadProgress) => void;
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * One engine worker: calls out, answers in, each by its id. Once the worker stops (it crashed,
 * or it was closed) every call still waiting is rejected with the reason, and so is every later one.
 */
class EngineConnection {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private stopped: unknown = null;

  constructor(private readonly worker: EngineWorker) {
    worker.listen(
      (data) => this.receive(data),
      (reason) => this.close(new Error(`the WebLLM worker stopped: ${reason}`)),
    );
  }

  call<T extends FromEngine['type']>(message: Call, expect: T, onProgress?: (p: LoadProgress) => void): Promise<Reply<T>> {
    if (this.stopped !== null) return Promise.reject(this.stopped);
    const callId = this.nextId++;
    return new Promise<Reply<T>>((resolve, reject) => {
      this.pending.set(callId, { expect, resolve: resolve as (reply: FromEngine) => void, reject, ...(onProgress && { onProgress }) });
      try {
        this.worker.post({ ...message, callId } as ToEngine);
      } catch (e) {
        // A request the worker cannot be sent (one that does not clone) is not waited for.
        this.pending.delete(callId);
        reject(e);
      }
    });
  }

  interrupt(): void {
    if (this.stopped === null) this.worker.post({ type: 'interrupt' });
  }

  /** Ends the worker; what still waits is rejected with `reason`. */
  close(reason: unknown): void {
    if (this.stopped !== null) return;
    this.stopped = reason;
    this.worker.terminate();
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const call of waiting) call.reject(reason);
  }

  private receive(data: unknown): void {
    const parsed = FromEngineSchema.safeParse(data);
    if (!parsed.success) return this.close(new Error(`the WebLLM worker sent a malformed message (${parsed.error.issues[0]?.message ?? ''})`));
    const message = parsed.data;
    const call = this.pending.get(message.callId);
    if (!call) return;
    if (message.type === 'progress') return call.onProgress?.({ fraction: clamp01(message.fraction), text: message.text });
    this.pending.delete(message.callId);
    // WebLLM's error as text, the way its own worker client rejects: errors.ts reads it.
    if (message.type === 'failed') call.reject(message.lost ? new ModelDroppedError(message.error) : message.error);
    else if (message.type !== call.expect) call.reject(new Error(`the WebLLM worker answered ${message.type}, not ${call.expect}`));
    else call.resolve(message);
  }
}

/**
 * Downloads (or reads from the cache) and loads one model in a fresh engine worker. Rejects with
 * the signal's reason when cancelled, otherwise with a BackendError whose message says what to do.
 */
export async function loadEngine(modelId: string, opts: LoadOptions = {}, deps: EngineDeps = {}): Promise<LoadedEngine> {
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const connection = new EngineConnection((deps.createWorker ?? startWorker)());
  const onAbort = () => connection.close(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const load: Call = { type: 'load', modelId, ...(opts.appConfig && { appConfig: opts.appConfig }) };
    await connection.call(load, 'done', (p) => {
      if (!signal?.aborted) onProgress?.(p);
    });
  } catch (e) {
    connection.close(e);
    if (signal?.aborted) throw signal.reason;
    throw loadError(e, modelId);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return {
    chat: {
      completions: {
        create: async (request: ChatCompletionRequestNonStreaming): Promise<ChatCompletion> =>
          (await connection.call({ type: 'chat', request }, 'answer')).completion,
      },
    },
    interruptGenerate: () => connection.interrupt(),
    async unload() {
      try {
        await connection.call({ type: 'unload' }, 'done');
      } finally {
        connection.close(new Error(`${modelId} was unloaded`));
      }
    },
    terminate: () => connection.close(new Error(`${modelId} was unloaded`)),
  };
}

/** Asks one short-lived engine worker, which is ended after its answer. */
async function ask<T>(deps: EngineDeps, question: (connection: EngineConnection) => Promise<T>): Promise<T> {
  const connection = new EngineConnection((deps.createWorker ?? startWorker)());
  try {
    return await question(connection);
  } finally {
    connection.close(new Error('the question was answered'));
  }
}

export interface ModelList {
  /** WebLLM's records of the models asked about that its list has, in the order asked. */
  models: ModelListEntry[];
  /** Per model of `models`: all its files are in WebLLM's cache, so loading needs no download. */
  cached: Record<string, boolean>;
}

/** WebLLM's records of these models, and which of them are in its cache; `appConfig` holds records its prebuilt list lacks. */
export async function listModels(modelIds: readonly string[], deps: EngineDeps = {}, appConfig?: AppConfig): Promise<ModelList> {
  try {
    const { models, cached } = await ask(deps, (c) => c.call({ type: 'models', modelIds: [...modelIds], ...(appConfig && { appConfig }) }, 'models'));
    return { models, cached };
  } catch (e) {
    throw new BackendError('bad-response', `WebLLM's model list could not be read (${plain(errorText(e))}).`, { cause: e });
  }
}

/**
 * Deletes the model's weights, configuration and library from WebLLM's cache. WebLLM reads the
 * list of weight files from the cache, or from the network where the cache lacks it, so deleting
 * a model that was never downloaded needs the connection; that failure is a BackendError.
 */
export async function deleteCached(modelId: string, deps: EngineDeps = {}, appConfig?: AppConfig): Promise<void> {
  try {
    await ask(deps, (c) => c.call({ type: 'delete', modelId, ...(appConfig && { appConfig }) }, 'done'));
  } catch (e) {
    throw new BackendError('http', `Could not delete ${modelId} from the cache (${plain(errorText(e))}).`, { cause: e });
  }
}
