import { probeWebGpu, type GpuProbe } from '../../agents/backends/webllm/gpu';
import { estimateDownloadMB, quantizationFor, QWEN3_SIZES, qwen3ModelId, type Quantization } from '../../agents/backends/webllm/models';
import type { EngineStatus } from '../../agents/backends/webllm/pool';
import { WEBLLM_PREFIX } from '../../agents/specs';
import { sim } from './sim';
import { customModels } from './custom-models.svelte';

export interface LocalModelOption {
  /** The agent spec: `webllm:Qwen3-1.7B-q4f16_1-MLC`. */
  value: string;
  label: string;
}

const sizeText = (mb: number) => (mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${mb} MB`);

/**
 * The page's view of WebLLM: which builds this GPU should run (asked of WebGPU directly, without
 * loading WebLLM), and what the worker's engines are doing (loading with progress, ready, failed,
 * lost). The engines themselves live in the simulation worker.
 */
export class LocalEngines {
  probe = $state.raw<GpuProbe | null>(null);
  statuses = $state<Record<string, EngineStatus>>({});
  private started = false;
  private probing: Promise<GpuProbe> | null = null;

  /** q4f16_1 with shader-f16, q4f32_1 without, null with no WebGPU adapter (or before the check). */
  get quantization(): Quantization | null {
    const probe = this.probe;
    return probe?.kind === 'adapter' ? quantizationFor(probe.features.includes('shader-f16')) : null;
  }

  /** What WebGPU said of this browser's adapter, asked once for the whole page. */
  probeOnce(nav: Pick<Navigator, 'gpu'> = navigator): Promise<GpuProbe> {
    this.probing ??= probeWebGpu(nav).then((probe) => (this.probe = probe));
    return this.probing;
  }

  /** Asks WebGPU once and follows the worker's engines from then on; later calls do nothing. */
  start(nav: Pick<Navigator, 'gpu'> = navigator): void {
    if (this.started) return;
    this.started = true;
    void this.probeOnce(nav);
    void customModels.load();
    // For the whole session of the page: the pickers of every page read these statuses.
    sim().subscribe((m) => {
      // The engines lived in the worker and ended with it.
      if (m.type === 'worker.stopped') this.statuses = {};
      if (m.type !== 'engine.status') return;
      const { type: _, ...status } = m;
      this.statuses[m.modelId] = status;
    });
  }

  /**
   * The Qwen3 builds to offer for a seat, then the user's own models (Models page); `keep` (a spec
   * already chosen) is offered even if this GPU would pick another build.
   */
  options(keep?: string): LocalModelOption[] {
    const q = this.quantization;
    const options: LocalModelOption[] = q
      ? [
          ...QWEN3_SIZES.map((size) => ({
            value: `${WEBLLM_PREFIX}${qwen3ModelId(size, q)}`,
            label: `Qwen3 ${size} (${q.replace(/_\d+$/, '')}, ${sizeText(estimateDownloadMB(size, q))})`,
          })),
          ...customModels.list.map((m) => ({ value: `${WEBLLM_PREFIX}${m.name}`, label: `${m.name} (your model)` })),
        ]
      : [];
    if (keep?.startsWith(WEBLLM_PREFIX) && !options.some((o) => o.value === keep)) options.push({ value: keep, label: keep.slice(WEBLLM_PREFIX.length) });
    return options;
  }

  /** Frees the GPU of every engine no run or game is using. */
  unloadUnused(): void {
    sim().send({ type: 'engines.unload' });
  }
}

/** The page's one view of the worker's engines. */
export const localEngines = new LocalEngines();
