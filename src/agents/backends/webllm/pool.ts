/**
 * The WebLLM engines of one simulation worker: each model is loaded once, on its first call, and
 * then serves every seat that names it, one generation at a time. Runs and games say which
 * models they use (`use`), so engines nobody uses are unloaded before another model is loaded,
 * and a load nobody waits for any more is cancelled. An engine that loses its GPU is marked
 * lost: calls to it fail at once (no reload loop) until a run or game starts using it again.
 */
import { Limiter } from '../http';
import { BackendError, type ChatBackend } from '../types';
import { webLlmBackend, WEBLLM_CAPABILITIES } from './backend';
import type { AppConfig } from '@mlc-ai/web-llm';
import type { LoadedEngine, LoadOptions } from './engine';
import { customModel } from './custom';
import { errorText } from './errors';

/** Loads one model; `loadEngine` in the app, a fake engine in tests. */
export type EngineLoader = (modelId: string, opts: LoadOptions) => Promise<LoadedEngine>;

export type EngineState = 'loading' | 'ready' | 'failed' | 'lost' | 'unloaded';

/** What happens to one model's engine, as the page is told. */
export interface EngineStatus {
  modelId: string;
  state: EngineState;
  /** 0 to 1 while loading. */
  fraction?: number;
  /** WebLLM's words while loading; the reason when failed or lost. */
  text?: string;
}

interface Slot {
  modelId: string;
  users: number;
  engine: LoadedEngine | null;
  loading: Promise<LoadedEngine> | null;
  controller: AbortController | null;
  /** Why the engine is unusable (GPU lost), until a run or game uses the model again. */
  lost: string | null;
  /** One generation at a time: WebLLM answers requests to one engine in turn anyway. */
  limiter: Limiter;
}

/** Waits for `promise`, or rejects with the signal's reason when it aborts first. */
function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class EnginePool {
  private readonly slots = new Map<string, Slot>();
  private readonly listeners = new Set<(status: EngineStatus) => void>();
  private readonly backends = new Map<string, ChatBackend>();

  /**
   * `appConfig` says where a model not in WebLLM's prebuilt list is (the user's own models,
   * custom.ts); undefined leaves WebLLM's list.
   */
  constructor(
    private readonly loader: EngineLoader,
    private readonly appConfig: (modelId: string) => AppConfig | undefined = () => undefined,
  ) {}

  subscribe(listener: (status: EngineStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(status: EngineStatus): void {
    for (const listener of this.listeners) listener(status);
  }

  private slot(modelId: string): Slot {
    let slot = this.slots.get(modelId);
    if (!slot) {
      slot = { modelId, users: 0, engine: null, loading: null, controller: null, lost: null, limiter: new Limiter(1) };
      this.slots.set(modelId, slot);
    }
    return slot;
  }

  /** The state of each model the pool knows, for a page that asks. */
  states(): EngineStatus[] {
    return [...this.slots.values()].map((s) => ({
      modelId: s.modelId,
      state: s.lost !== null ? 'lost' : s.engine ? 'ready' : s.loading ? 'loading' : 'unloaded',
      ...(s.lost !== null && { text: s.lost }),
    }));
  }

  /**
   * A run or game uses these models until it calls the returned release. A model whose GPU was
   * lost is cleared, so its next call loads it afresh.
   */
  use(modelIds: Iterable<string>): () => void {
    const slots = [...new Set(modelIds)].map((id) => this.slot(id));
    for (const slot of slots) {
      slot.users++;
      slot.lost = null;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const slot of slots) {
        slot.users--;
        // A download or load that nothing waits for any more is stopped.
        if (slot.users === 0 && slot.loading) slot.controller?.abort(new Error('no longer needed'));
      }
    };
  }

  /** The ChatBackend for one model: it loads the model on its first call. */
  backend(modelId: string): ChatBackend {
    let backend = this.backends.get(modelId);
    if (!backend) {
      backend = {
        name: 'webllm',
        model: modelId,
        capabilities: WEBLLM_CAPABILITIES,
        // A custom model's own window; the built-in Qwen3 builds hold the default.
        get contextWindow() {
          return customModel(modelId)?.contextWindow;
        },
        complete: (request, signal) => this.complete(modelId, request, signal),
      };
      this.backends.set(modelId, backend);
    }
    return backend;
  }

  private async complete(modelId: string, request: Parameters<ChatBackend['complete']>[0], signal: AbortSignal) {
    const slot = this.slot(modelId);
    if (slot.lost !== null) throw new BackendError('gpu-lost', slot.lost);
    const engine = await raced(this.ready(slot), signal);
    const release = await slot.limiter.acquire(signal);
    try {
      // Timed here, so a call's latency is the generation alone, not the download, load or queue.
      const started = performance.now();
      const response = await webLlmBackend({ engine, modelId }).complete(request, signal);
      return { ...response, latencyMs: performance.now() - started };
    } catch (e) {
      if (e instanceof BackendError && e.kind === 'gpu-lost') this.lose(slot, e.message);
      throw e;
    } finally {
      release();
    }
  }

  /** The slot's engine, loading it (once, whoever asks) if needed. */
  private ready(slot: Slot): Promise<LoadedEngine> {
    if (slot.engine) return Promise.resolve(slot.engine);
    if (slot.loading) return slot.loading;
    const controller = new AbortController();
    slot.controller = controller;
    this.emit({ modelId: slot.modelId, state: 'loading', fraction: 0, text: 'Starting…' });
    const appConfig = this.appConfig(slot.modelId);
    slot.loading = this.unloadIdle(slot)
      .then(() =>
        this.loader(slot.modelId, {
          ...(appConfig && { appConfig }),
          signal: controller.signal,
          onProgress: (p) => this.emit({ modelId: slot.modelId, state: 'loading', fraction: p.fraction, text: p.text }),
        }),
      )
      .then(
        (engine) => {
          slot.engine = engine;
          this.emit({ modelId: slot.modelId, state: 'ready', fraction: 1 });
          return engine;
        },
        (e: unknown) => {
          // Stopped on purpose (a cancel) is not a failure: the model is simply not loaded.
          if (controller.signal.aborted) this.emit({ modelId: slot.modelId, state: 'unloaded', text: 'The load was stopped.' });
          else this.emit({ modelId: slot.modelId, state: 'failed', text: e instanceof Error ? e.message : errorText(e) });
          throw e;
        },
      )
      .finally(() => {
        slot.loading = null;
        slot.controller = null;
      });
    return slot.loading;
  }

  /** Frees the GPU for `keep`: every other loaded engine that no run or game uses is unloaded. */
  private async unloadIdle(keep: Slot): Promise<void> {
    const idle = [...this.slots.values()].filter((s) => s !== keep && s.users === 0 && s.engine);
    await Promise.all(idle.map((s) => this.unload(s)));
  }

  private async unload(slot: Slot): Promise<void> {
    const engine = slot.engine;
    slot.engine = null;
    if (!engine) return;
    await engine.unload().catch(() => undefined);
    this.emit({ modelId: slot.modelId, state: 'unloaded' });
  }

  private lose(slot: Slot, message: string): void {
    if (slot.lost !== null) return;
    slot.lost = message;
    const engine = slot.engine;
    slot.engine = null;
    // The engine's worker holds a dead device: end it; a later load starts a fresh one.
    engine?.unload().catch(() => undefined);
    this.emit({ modelId: slot.modelId, state: 'lost', text: message });
  }

  /**
   * Loads a model ahead of play (the Models page's Download): downloaded into the cache and left
   * loaded for the next game. Aborting the signal stops the load unless a run or game needs it too.
   */
  async preload(modelId: string, signal: AbortSignal): Promise<void> {
    const release = this.use([modelId]);
    signal.addEventListener('abort', release, { once: true });
    try {
      const slot = this.slot(modelId);
      const loadedBefore = slot.engine !== null;
      await raced(this.ready(slot), signal);
      // A model already loaded says so, so the page's download ends too.
      if (loadedBefore) this.emit({ modelId, state: 'ready', fraction: 1 });
    } finally {
      signal.removeEventListener('abort', release);
      release();
    }
  }

  /** Unloads every engine no run or game uses (the page's "free the GPU"). */
  async unloadUnused(): Promise<void> {
    await Promise.all([...this.slots.values()].filter((s) => s.users === 0).map((s) => this.unload(s)));
  }
}
