/**
 * Loading a model for real: WebLLM is imported only here, lazily, and the engine runs in its
 * own worker (engine.worker.ts), so neither enters the main bundle. Each load gets a fresh
 * worker; a failed or cancelled load terminates it, so trying again starts clean (WebLLM keeps
 * the files it had finished downloading in its cache).
 */
import type { AppConfig, InitProgressReport } from '@mlc-ai/web-llm';
import { BackendError } from '../types';
import { errorText, loadError } from './errors';
import type { WebLlmEngineLike } from './backend';

/** The parts of the WebLLM package used here; a test passes its own. */
export type WebLlmModule = Pick<
  typeof import('@mlc-ai/web-llm'),
  'CreateWebWorkerMLCEngine' | 'hasModelInCache' | 'deleteModelAllInfoInCache'
>;

/** The parts of a Worker used here. */
export interface WorkerLike {
  terminate(): void;
  addEventListener?(type: 'error', listener: (event: { message?: string }) => void): void;
  removeEventListener?(type: 'error', listener: (event: { message?: string }) => void): void;
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
  /** Frees the GPU memory and ends the worker. */
  unload(): Promise<void>;
}

export interface EngineDeps {
  importWebLlm?: () => Promise<WebLlmModule>;
  createWorker?: () => WorkerLike;
}

const importWebLlm = (): Promise<WebLlmModule> => import('@mlc-ai/web-llm');
const createWorker = (): WorkerLike =>
  new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'parley-webllm' });

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * Downloads (or reads from the cache) and loads one model in a fresh worker. Rejects with the
 * signal's reason when cancelled, otherwise with a BackendError whose message says what to do.
 */
export async function loadEngine(modelId: string, opts: LoadOptions = {}, deps: EngineDeps = {}): Promise<LoadedEngine> {
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  let webllm: WebLlmModule;
  try {
    webllm = await (deps.importWebLlm ?? importWebLlm)();
  } catch (e) {
    const message = `Could not load WebLLM itself (${errorText(e)}). Check the connection and reload the page.`;
    throw new BackendError('http', message, { cause: e });
  }
  signal?.throwIfAborted();

  const worker = (deps.createWorker ?? createWorker)();
  const report = (r: InitProgressReport) => {
    if (!signal?.aborted) onProgress?.({ fraction: clamp01(r.progress), text: String(r.text ?? '') });
  };
  let onAbort = () => {};
  // A worker that fails to start or crashes would otherwise leave the load waiting forever.
  let onCrash = (_: { message?: string }) => {};
  try {
    const engine = await new Promise<Awaited<ReturnType<WebLlmModule['CreateWebWorkerMLCEngine']>>>((resolve, reject) => {
      onAbort = () => reject(signal?.reason);
      onCrash = (event) => reject(new Error(`the WebLLM worker stopped: ${event.message || 'it could not start'}`));
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.addEventListener?.('error', onCrash);
      const config = { initProgressCallback: report, ...(opts.appConfig && { appConfig: opts.appConfig }) };
      webllm.CreateWebWorkerMLCEngine(worker, modelId, config).then(resolve, reject);
    });
    return {
      chat: engine.chat,
      interruptGenerate: () => engine.interruptGenerate(),
      async unload() {
        try {
          await engine.unload();
        } finally {
          worker.terminate();
        }
      },
    };
  } catch (e) {
    worker.terminate();
    if (signal?.aborted) throw signal.reason;
    throw loadError(e, modelId);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    worker.removeEventListener?.('error', onCrash);
  }
}

/** Whether the model's files are all in WebLLM's cache, so loading needs no download. */
export async function isCached(modelId: string, deps: Pick<EngineDeps, 'importWebLlm'> = {}): Promise<boolean> {
  const webllm = await (deps.importWebLlm ?? importWebLlm)();
  return webllm.hasModelInCache(modelId);
}

/**
 * Deletes the model's weights, configuration and library from WebLLM's cache. WebLLM reads the
 * list of weight files from the cache, or from the network where the cache lacks it, so deleting
 * a model that was never downloaded needs the connection; that failure is a BackendError.
 */
export async function deleteCached(modelId: string, deps: Pick<EngineDeps, 'importWebLlm'> = {}): Promise<void> {
  const webllm = await (deps.importWebLlm ?? importWebLlm)();
  try {
    await webllm.deleteModelAllInfoInCache(modelId);
  } catch (e) {
    throw new BackendError('http', `Could not delete ${modelId} from the cache (${errorText(e)}).`, { cause: e });
  }
}
