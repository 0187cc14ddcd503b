import { assessGpu, type GpuReport } from '../../agents/backends/webllm/gpu';
import type { LoadPhase } from '../../agents/backends/webllm/progress';
import type { SimClient, SimMessage } from '../../worker/client';
import { newId, sim } from './sim';
import { localEngines } from './engines.svelte';
import { customModels } from './custom-models.svelte';

export interface LocalModelState {
  /** null until the cache has been asked. */
  cached: boolean | null;
  busy: 'download' | 'delete' | null;
  /** The whole load on one bar, its phase named once WebLLM says it (progress.ts). */
  progress: { fraction: number; text: string; phase?: LoadPhase | undefined; phaseFraction?: number | undefined } | null;
  error: string | null;
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The WebLLM side of the Models page: what this GPU can run, and the Qwen3 models in the cache.
 * WebLLM's model list, its cache, downloads and deletes are all asked of the simulation worker
 * (which asks an engine worker), so the page never loads WebLLM itself. `dispose` undoes the
 * page's subscription when it leaves.
 */
export class LocalModels {
  report = $state.raw<GpuReport | null>(null);
  checkError = $state<string | null>(null);
  states = $state<Record<string, LocalModelState>>({});

  private readonly cancelled = new Set<string>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly client: () => SimClient = sim) {}

  /** Asks what this GPU runs and what the cache holds, and follows the worker's engines from then on. */
  async check(): Promise<void> {
    this.follow();
    try {
      // The worker is told of the user's own models first, so the list and the cache cover them too.
      await customModels.load();
      // The adapter the agent pickers already asked for, assessed against WebLLM's model list.
      const [probe, reply] = await Promise.all([localEngines.probeOnce(), this.client().request({ type: 'models.list', requestId: newId() })]);
      if (reply.type === 'failed') {
        this.checkError = `WebLLM's model list could not be read: ${reply.message}`;
        return;
      }
      const report = assessGpu(probe, reply.models);
      for (const { model } of report.models) this.states[model.id] ??= { cached: reply.cached[model.id] ?? false, busy: null, progress: null, error: null };
      for (const { name } of customModels.list) this.states[name] ??= { cached: reply.cached[name] ?? false, busy: null, progress: null, error: null };
      this.report = report;
    } catch (e) {
      this.checkError = `The WebGPU check could not run: ${describe(e)}`;
    }
  }

  /**
   * Downloads a model into the browser's cache by loading it in the simulation worker, where it
   * then stays loaded for the next game; progress and the outcome come back as engine statuses.
   */
  download(modelId: string): void {
    const state = this.states[modelId];
    if (!state || state.busy) return;
    this.follow();
    this.cancelled.delete(modelId);
    Object.assign(state, { busy: 'download', error: null, progress: { fraction: 0, text: 'Starting…' } });
    this.client().send({ type: 'engines.load', modelId });
  }

  cancel(modelId: string): void {
    if (this.states[modelId]?.busy !== 'download') return;
    this.cancelled.add(modelId);
    this.client().send({ type: 'engines.cancel', modelId });
  }

  async remove(modelId: string): Promise<void> {
    const state = this.states[modelId];
    if (!state || state.busy) return;
    state.busy = 'delete';
    state.error = null;
    const reply = await this.client().request({ type: 'models.delete', requestId: newId(), modelId });
    if (reply.type === 'failed') state.error = `The model could not be deleted: ${reply.message}`;
    else state.cached = false;
    state.busy = null;
  }

  /** Follows one more model (one of the user's own, just added): its state, and whether the cache holds it. */
  track(modelId: string): void {
    this.states[modelId] ??= { cached: null, busy: null, progress: null, error: null };
    void this.cachedNow(modelId).then((cached) => {
      // Read back through the reactive record: the object assigned above is not it.
      const state = this.states[modelId];
      if (cached !== null && state) state.cached = cached;
    });
  }

  /** Stops listening to the worker: the page is leaving. */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Listens to the worker (once): a download ends when its model is ready or fails. */
  private follow(): void {
    this.unsubscribe ??= this.client().subscribe((m) => this.hear(m));
  }

  private hear(m: SimMessage): void {
    if (m.type === 'worker.stopped') {
      for (const state of Object.values(this.states)) if (state.busy === 'download') Object.assign(state, { busy: null, progress: null, error: m.message });
      return;
    }
    if (m.type !== 'engine.status') return;
    const state = this.states[m.modelId];
    if (!state || state.busy !== 'download') return;
    if (m.state === 'loading') state.progress = { fraction: m.fraction ?? 0, text: m.text ?? '', phase: m.phase, phaseFraction: m.phaseFraction };
    else if (m.state === 'ready') Object.assign(state, { busy: null, progress: null, cached: true });
    else {
      // failed, lost, or unloaded: a cancelled load is stopped, not failed.
      const cancelled = this.cancelled.delete(m.modelId);
      Object.assign(state, {
        busy: null,
        progress: null,
        error: cancelled ? 'The download was cancelled; download again to continue.' : (m.text ?? 'The download failed.'),
      });
      void this.cachedNow(m.modelId).then((cached) => {
        if (cached !== null) state.cached = cached;
      });
    }
  }

  /** Whether the cache holds the model now (after a download stopped part way); null if it could not be asked. */
  private async cachedNow(modelId: string): Promise<boolean | null> {
    const reply = await this.client().request({ type: 'models.list', requestId: newId() });
    return reply.type === 'failed' ? null : (reply.cached[modelId] ?? false);
  }
}
