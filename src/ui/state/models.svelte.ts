import type { GpuReport, LoadProgress } from '../../agents/backends/webllm';
import { sim } from './sim';
import { localEngines } from './engines.svelte';

/** Loaded on first use: @mlc-ai/web-llm must never enter the main bundle. */
const webLlm = () => import('../../agents/backends/webllm');

export interface LocalModelState {
  /** null until the cache has been asked. */
  cached: boolean | null;
  busy: 'download' | 'delete' | null;
  progress: LoadProgress | null;
  error: string | null;
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The WebLLM side of the Models page: what this GPU can run, and the Qwen3 models in the cache. */
export class LocalModels {
  report = $state.raw<GpuReport | null>(null);
  checkError = $state<string | null>(null);
  states = $state<Record<string, LocalModelState>>({});

  async check(): Promise<void> {
    try {
      const w = await webLlm();
      // The adapter the agent pickers already asked for, assessed against WebLLM's model list.
      const report = w.assessGpu(await localEngines.probeOnce(), await w.prebuiltModelList());
      this.report = report;
      for (const { model } of report.models) this.states[model.id] ??= { cached: null, busy: null, progress: null, error: null };
      await Promise.all(
        report.models.map(async ({ model }) => {
          const state = this.states[model.id];
          if (!state) return;
          try {
            state.cached = await w.isCached(model.id);
          } catch {
            state.cached = false;
          }
        }),
      );
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
    sim().send({ type: 'engines.load', modelId });
  }

  cancel(modelId: string): void {
    if (this.states[modelId]?.busy !== 'download') return;
    this.cancelled.add(modelId);
    sim().send({ type: 'engines.cancel', modelId });
  }

  private cancelled = new Set<string>();
  private following = false;

  /** Listens to the worker's engines once: a download ends when its model is ready or fails. */
  private follow(): void {
    if (this.following) return;
    this.following = true;
    sim().subscribe((m) => {
      if (m.type !== 'engine.status') return;
      const state = this.states[m.modelId];
      if (!state || state.busy !== 'download') return;
      if (m.state === 'loading') state.progress = { fraction: m.fraction ?? 0, text: m.text ?? '' };
      else if (m.state === 'ready') {
        Object.assign(state, { busy: null, progress: null, cached: true });
      } else {
        // failed, lost, or unloaded: a cancelled load is stopped, not failed.
        const cancelled = this.cancelled.delete(m.modelId);
        Object.assign(state, {
          busy: null,
          progress: null,
          error: cancelled ? 'The download was cancelled; download again to continue.' : (m.text ?? 'The download failed.'),
        });
        void cachedNow(m.modelId).then((cached) => (state.cached = cached));
      }
    });
  }

  async remove(modelId: string): Promise<void> {
    const state = this.states[modelId];
    if (!state || state.busy) return;
    state.busy = 'delete';
    state.error = null;
    try {
      const w = await webLlm();
      await w.deleteCached(modelId);
      state.cached = false;
    } catch (e) {
      state.error = `The model could not be deleted: ${describe(e)}`;
    } finally {
      state.busy = null;
    }
  }
}

async function cachedNow(modelId: string): Promise<boolean> {
  try {
    return await (await webLlm()).isCached(modelId);
  } catch {
    return false;
  }
}
