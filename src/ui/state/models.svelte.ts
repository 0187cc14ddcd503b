import type { GpuReport, LoadProgress } from '../../agents/backends/webllm';

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
  private controllers = new Map<string, AbortController>();

  async check(): Promise<void> {
    try {
      const w = await webLlm();
      const report = await w.checkWebGpu();
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

  /** Downloads a model into the browser's cache (and loads it once, which is what fills the cache). */
  async download(modelId: string): Promise<void> {
    const state = this.states[modelId];
    if (!state || state.busy) return;
    const controller = new AbortController();
    this.controllers.set(modelId, controller);
    Object.assign(state, { busy: 'download', error: null, progress: { fraction: 0, text: 'Starting…' } });
    try {
      const w = await webLlm();
      const engine = await w.loadEngine(modelId, {
        signal: controller.signal,
        onProgress: (progress) => {
          state.progress = progress;
        },
      });
      await engine.unload();
      state.cached = true;
    } catch (e) {
      state.error = controller.signal.aborted ? 'The download was cancelled; download again to continue.' : describe(e);
      state.cached = await cachedNow(modelId);
    } finally {
      this.controllers.delete(modelId);
      state.busy = null;
      state.progress = null;
    }
  }

  cancel(modelId: string): void {
    this.controllers.get(modelId)?.abort(new Error('cancelled'));
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
