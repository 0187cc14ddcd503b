/**
 * The WebLLM engines of one simulation worker: each model is loaded once, on its first call, and
 * then serves every seat that names it, one generation at a time. Runs and games say which
 * models they use (`use`), so engines nobody uses are unloaded before another model is loaded,
 * and a load nobody waits for any more is cancelled. An engine that loses its GPU is marked
 * lost: calls to it fail at once (no reload loop) until a run or game starts using it again.
 *
 * One move at a time follows WebLLM's own per-model lock: the next move is sent only once WebLLM
 * is done with the last one (answered, or stopped by an interrupt), not when its caller gave up.
 * WebLLM clears its interrupt flag when a request takes its lock, so an interrupt meant for a
 * request still waiting there would be lost; here a move cancelled while it waits is never sent.
 * Every move has a time limit (WEBLLM_MOVE_TIMEOUT): past it the move is interrupted and fails as
 * a 'timeout'; an engine that does not stop then is ended, and the model loads again on its next move.
 */
import type { AppConfig } from '@mlc-ai/web-llm';
import type { Clock } from '../../../engine/clock';
import { Limiter } from '../http';
import { BackendError, DEFAULT_CONTEXT_WINDOW, type ChatBackend, type ChatRequest, type ChatResponse } from '../types';
import { webLlmBackend, WEBLLM_CAPABILITIES, type WebLlmEngineLike } from './backend';
import type { LoadedEngine, LoadOptions } from './engine';
import { customModel } from './custom';
import { errorText, moveTimeoutError } from './errors';
import { LoadProgressTracker, type LoadPhase } from './progress';
import { GrammarSet, warmUpGrammars } from './warmup';

/** Loads one model; `loadEngine` in the app, a fake engine in tests. */
export type EngineLoader = (modelId: string, opts: LoadOptions) => Promise<LoadedEngine>;

export type { EngineState } from './engine-state';
import type { EngineState } from './engine-state';

/** What happens to one model's engine, as the page is told. */
export interface EngineStatus {
  modelId: string;
  state: EngineState;
  /** 0 to 1 while loading: the whole load, on one bar that never moves back (progress.ts). */
  fraction?: number;
  /** While loading: the phase (downloading, loading from the cache, compiling shaders) and its own progress. */
  phase?: LoadPhase;
  phaseFraction?: number;
  /** WebLLM's words while loading; the reason when failed or lost. */
  text?: string;
}

/** A move's time limit: `baseMs`, plus `perTokenMs` for every token it may write (its max_tokens). */
export interface MoveTimeout {
  baseMs: number;
  perTokenMs: number;
}

/**
 * A minute for the prefill (and a grammar compile, should a format reach a move uncompiled: they
 * take 0.03–0.2 s each since the move schema dropped its string lengths, and are compiled at
 * load), then 250 ms a token, i.e. a decoder slower than 4 tokens a second: 188 s for a 512-token
 * move, 572 s for a 2,048-token thinking one. A move that takes longer is stalled.
 */
export const WEBLLM_MOVE_TIMEOUT: Readonly<MoveTimeout> = Object.freeze({ baseMs: 60_000, perTokenMs: 250 });

/**
 * How long WebLLM is given to stop after an interrupt, or to unload when asked, before its worker
 * is ended: a grammar compile holds the worker's thread for seconds, and the interrupt with it.
 */
export const WEBLLM_STOP_GRACE_MS = 15_000;

export interface EnginePoolOptions {
  moveTimeout?: MoveTimeout;
  stopGraceMs?: number;
  /** The timers of the move timeout and the grace; tests pass a SimulatedClock's. */
  sleep?: Clock['sleep'];
}

/** How WebLLM was done with a move: it answered or failed ('settled'), or it was ended for outliving its time. */
type Finish = 'settled' | 'ended';

interface Slot {
  modelId: string;
  users: number;
  engine: LoadedEngine | null;
  loading: Promise<LoadedEngine> | null;
  controller: AbortController | null;
  /** Why the engine is unusable (GPU lost), until a run or game uses the model again. */
  lost: string | null;
  /** One move at a time, held until WebLLM is done with it. */
  limiter: Limiter;
  /** Settles once WebLLM is done with the move last sent. */
  busy: Promise<unknown>;
  /** Settles once the engine last unloaded or ended is gone; a new load waits for it. */
  ending: Promise<void>;
  /** The move formats its seats ask for, compiled at load (warmup.ts). */
  grammars: GrammarSet;
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

const realSleep: Clock['sleep'] = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The caller's abort reason when a move outlives its time. */
class Stalled extends Error {}

export class EnginePool {
  private readonly slots = new Map<string, Slot>();
  private readonly listeners = new Set<(status: EngineStatus) => void>();
  private readonly backends = new Map<string, ChatBackend>();

  /**
   * `appConfig` says where a model not in WebLLM's prebuilt list is (the user's own models,
   * custom.ts); undefined leaves WebLLM's list.
   */
  private readonly moveTimeout: MoveTimeout;
  private readonly stopGraceMs: number;
  private readonly sleep: Clock['sleep'];

  constructor(
    private readonly loader: EngineLoader,
    private readonly appConfig: (modelId: string) => AppConfig | undefined = () => undefined,
    opts: EnginePoolOptions = {},
  ) {
    this.moveTimeout = opts.moveTimeout ?? WEBLLM_MOVE_TIMEOUT;
    this.stopGraceMs = opts.stopGraceMs ?? WEBLLM_STOP_GRACE_MS;
    this.sleep = opts.sleep ?? realSleep;
  }

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
      slot = {
        modelId,
        users: 0,
        engine: null,
        loading: null,
        controller: null,
        lost: null,
        limiter: new Limiter(1),
        busy: Promise.resolve(),
        ending: Promise.resolve(),
        grammars: new GrammarSet(modelId),
      };
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
        prepare: (ask) => this.slot(modelId).grammars.add(ask),
      };
      this.backends.set(modelId, backend);
    }
    return backend;
  }

  private async complete(modelId: string, request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const slot = this.slot(modelId);
    if (slot.lost !== null) throw new BackendError('gpu-lost', slot.lost);
    // A move cancelled while it waits here is never sent to WebLLM.
    const release = await slot.limiter.acquire(signal);
    const sent: { done: Promise<Finish> | null } = { done: null };
    try {
      if (slot.lost !== null) throw new BackendError('gpu-lost', slot.lost);
      // Asked after the wait: the engine may have been lost, unloaded or ended meanwhile.
      const engine = await raced(this.ready(slot), signal);
      // A format a seat made since the load is compiled now, outside the move's time: not
      // cancelled with the move (it is one token long), so the engine is free once it is done.
      await this.warmUp(slot, engine, new AbortController().signal, (e) => {
        if (e instanceof BackendError && e.kind === 'gpu-lost' && slot.engine === engine) this.lose(slot, e.message);
        else if (slot.engine === engine) this.end(slot, engine);
      });
      return await this.move(slot, engine, request, signal, sent);
    } finally {
      // WebLLM's lock, followed: the next move goes once WebLLM is done with this one, not when its caller gave up.
      if (sent.done) void sent.done.then(release, release);
      else release();
    }
  }

  /** The time limit of one move: the base, and the per-token allowance for every token it may write. */
  private timeoutFor(modelId: string, request: ChatRequest): number {
    const tokens = request.maxTokens ?? customModel(modelId)?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    return this.moveTimeout.baseMs + this.moveTimeout.perTokenMs * tokens;
  }

  /**
   * One move through WebLLM, bounded by its time limit. `sent.done` is set when the request
   * reaches WebLLM, and settles once WebLLM is done with it (see `watch`).
   */
  private async move(
    slot: Slot,
    engine: LoadedEngine,
    request: ChatRequest,
    signal: AbortSignal,
    sent: { done: Promise<Finish> | null },
  ): Promise<ChatResponse> {
    signal.throwIfAborted();
    const timeoutMs = this.timeoutFor(slot.modelId, request);
    // Aborted by the caller's cancel or by the time limit; either way the backend interrupts WebLLM.
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const watched: WebLlmEngineLike = {
      interruptGenerate: () => engine.interruptGenerate(),
      chat: {
        completions: {
          create: (body) => {
            const answer = engine.chat.completions.create(body);
            sent.done = this.watch(slot, engine, answer, timeoutMs, () => stop.abort(new Stalled()));
            slot.busy = sent.done;
            return answer;
          },
        },
      },
    };
    try {
      // Timed here, so a call's latency is the generation alone, not the download, load or queue.
      const started = performance.now();
      const response = await webLlmBackend({ engine: watched, modelId: slot.modelId }).complete(request, stop.signal);
      return { ...response, latencyMs: performance.now() - started };
    } catch (e) {
      if (stop.signal.reason instanceof Stalled && !signal.aborted && sent.done) {
        const finish = await raced(sent.done, signal);
        throw moveTimeoutError(slot.modelId, timeoutMs, finish === 'ended');
      }
      // Only the engine the slot still holds can be lost; one unloaded under a move fails it too.
      if (e instanceof BackendError && e.kind === 'gpu-lost' && slot.engine === engine) this.lose(slot, e.message);
      throw e;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Settles once WebLLM is done with a move it was sent: 'settled' when its answer or failure
   * comes back; 'ended' when the move outlived its time limit (then `onStall` interrupts it) and
   * the grace after it, and the engine was ended.
   */
  private async watch(slot: Slot, engine: LoadedEngine, answer: Promise<unknown>, timeoutMs: number, onStall: () => void): Promise<Finish> {
    const timers = new AbortController();
    const settled = answer.then(
      () => 'settled' as const,
      () => 'settled' as const,
    );
    const overdue = this.sleep(timeoutMs, timers.signal)
      .then(() => {
        onStall();
        return this.sleep(this.stopGraceMs, timers.signal);
      })
      .then(
        () => 'ended' as const,
        // The timers were stopped: the answer came first.
        () => 'settled' as const,
      );
    const finish = await Promise.race([settled, overdue]);
    timers.abort();
    if (finish === 'ended') this.end(slot, engine);
    return finish;
  }

  /** Ends an engine that did not stop when interrupted: its worker goes, and the model loads afresh on its next move. */
  private end(slot: Slot, engine: LoadedEngine): void {
    const held = slot.engine === engine;
    if (held) slot.engine = null;
    slot.ending = this.dispose(engine, true);
    if (held)
      this.emit({
        modelId: slot.modelId,
        state: 'unloaded',
        text: `${slot.modelId} stopped answering and was unloaded; it loads again on its next move.`,
      });
  }

  /**
   * Ends an engine's worker: at once where it can be (`terminate`) and `atOnce` asks it, else by
   * asking WebLLM to unload, and ended anyway if that takes longer than the grace.
   */
  private async dispose(engine: LoadedEngine, atOnce: boolean): Promise<void> {
    if (!atOnce || !engine.terminate) {
      const timers = new AbortController();
      const unloaded = await Promise.race([
        engine.unload().then(
          () => true,
          () => false,
        ),
        this.sleep(this.stopGraceMs, timers.signal).then(
          () => false,
          () => false,
        ),
      ]);
      timers.abort();
      if (unloaded) return;
    }
    engine.terminate?.();
  }

  /** The slot's engine, loading it (once, whoever asks) if needed. */
  private ready(slot: Slot): Promise<LoadedEngine> {
    if (slot.engine) return Promise.resolve(slot.engine);
    if (slot.loading) return slot.loading;
    const controller = new AbortController();
    slot.controller = controller;
    this.emit({ modelId: slot.modelId, state: 'loading', fraction: 0, text: 'Starting…' });
    const appConfig = this.appConfig(slot.modelId);
    // WebLLM counts each phase from 0 to 1 again: the tracker makes them one bar.
    const bar = new LoadProgressTracker();
    // The GPU is freed first: of idle engines, and of this model's last engine if it is still going.
    slot.loading = Promise.all([this.unloadIdle(slot), slot.ending])
      .then(() =>
        this.loader(slot.modelId, {
          ...(appConfig && { appConfig }),
          signal: controller.signal,
          onProgress: (p) => {
            const { fraction, phase, phaseFraction } = bar.webllm(p.fraction, p.text);
            this.emit({ modelId: slot.modelId, state: 'loading', fraction, ...(phase && { phase, phaseFraction }), text: p.text });
          },
        }),
      )
      .then(async (engine) => {
        // The formats the seats asked for are compiled before the first move, as the load's last step.
        await this.warmUp(
          slot,
          engine,
          controller.signal,
          () => void this.dispose(engine, true),
          (done, total) =>
            this.emit({
              modelId: slot.modelId,
              state: 'loading',
              ...bar.preparing(done, total, `Compiling the move grammar${total > 1 ? `s (${done} of ${total} done)` : ''}…`),
            }),
        );
        return engine;
      })
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

  /**
   * Compiles the formats `engine` has not (one request each, a token long: warmup.ts), within the
   * time limit of a one-token move each. A failure or a stall is handed to `onFailure` (which
   * lets the engine go) and rethrown: a stall as a timeout, the rest as WebLLM's failure reads.
   */
  private async warmUp(
    slot: Slot,
    engine: LoadedEngine,
    signal: AbortSignal,
    onFailure: (e: unknown) => void,
    onProgress?: (done: number, total: number) => void,
  ): Promise<void> {
    const asks = slot.grammars.pending(engine);
    if (asks.length === 0) return;
    const limitMs = asks.length * this.timeoutFor(slot.modelId, { messages: [], maxTokens: 1 });
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timers = new AbortController();
    this.sleep(limitMs, timers.signal).then(
      () => stop.abort(new Stalled()),
      () => undefined,
    );
    try {
      await warmUpGrammars(engine, slot.modelId, asks, stop.signal, { onGrammar: (i, n) => onProgress?.(i, n) });
      onProgress?.(asks.length, asks.length);
      slot.grammars.compiled(engine, asks);
    } catch (e) {
      const stalled = stop.signal.reason instanceof Stalled;
      onFailure(e);
      // Not a 'timeout' (a move's, which the seat retries): the load itself failed.
      if (stalled)
        throw new BackendError(
          'bad-response',
          `${slot.modelId} did not compile its move formats within ${Math.round(limitMs / 1000)} s, so it was unloaded; it loads again on its next move.`,
        );
      throw e;
    } finally {
      timers.abort();
      signal.removeEventListener('abort', onAbort);
    }
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
    // A move WebLLM is still finishing (its caller gave up) is let finish, within its time limit.
    slot.ending = slot.busy.catch(() => undefined).then(() => this.dispose(engine, false));
    await slot.ending;
    this.emit({ modelId: slot.modelId, state: 'unloaded' });
  }

  private lose(slot: Slot, message: string): void {
    if (slot.lost !== null) return;
    slot.lost = message;
    const engine = slot.engine;
    slot.engine = null;
    // The engine's worker holds a dead device: end it at once; a later load starts a fresh one.
    if (engine) slot.ending = this.dispose(engine, true);
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
