/**
 * One progress bar for a WebLLM load. WebLLM 0.2.86 reports each phase of a load from 0 to 1 on
 * its own (its tvmjs `fetchTensorCacheInternal` and `asyncLoadWebGPUPipelines`): the download
 * ("Fetching param cache[i/n]", only when the weights are not all cached), then copying the
 * weights from the cache to the GPU ("Loading model from cache[i/n]"), then the shaders ("Loading
 * GPU shader modules[i/n]"), and last "Finish loading on …" at 1. Shown raw, the bar reaches 100%
 * and starts over, up to three times. Here each phase gets a fixed part of one bar, named, and the
 * bar never moves back.
 *
 * The parts are set by whether a download happens, which WebLLM's first phase says: a download is
 * most of a first load (it fetches the whole model over the network), while a load from the cache
 * spends its time copying weights and compiling shaders about equally. Parley's own last step,
 * compiling the move formats' grammars (`preparing`), gets a small part of its own.
 */

export const LOAD_PHASES = ['downloading', 'loading', 'compiling', 'preparing'] as const;
export type LoadPhase = (typeof LOAD_PHASES)[number];

/** The phase's name as a status line shows it. */
export const LOAD_PHASE_LABELS: Readonly<Record<LoadPhase, string>> = {
  downloading: 'Downloading',
  loading: 'Loading from cache',
  compiling: 'Compiling shaders',
  preparing: 'Preparing move formats',
};

/** Where each phase starts and ends on the one bar, with a download and without. */
const SPANS: Readonly<Record<'download' | 'cached', Readonly<Record<LoadPhase, readonly [number, number]>>>> = {
  download: { downloading: [0, 0.8], loading: [0.8, 0.88], compiling: [0.88, 0.96], preparing: [0.96, 1] },
  cached: { downloading: [0, 0], loading: [0, 0.45], compiling: [0.45, 0.9], preparing: [0.9, 1] },
};

/** The phase a WebLLM progress text belongs to; null for its start and finish lines. */
export function webLlmPhase(text: string): LoadPhase | null {
  if (text.startsWith('Fetching param cache')) return 'downloading';
  if (text.startsWith('Loading model from cache')) return 'loading';
  if (text.startsWith('Loading GPU shader modules')) return 'compiling';
  return null;
}

export interface LoadProgressReport {
  /** The whole load, 0 to 1; never smaller than the last report's. */
  fraction: number;
  /** Undefined until WebLLM names its first phase (it starts with "Start to fetch params"). */
  phase: LoadPhase | undefined;
  /** The phase's own progress, 0 to 1, as WebLLM counts it. */
  phaseFraction: number;
  /** WebLLM's own words (or Parley's, while preparing). */
  text: string;
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * Folds one load's progress reports into one bar. Feed WebLLM's reports to `webllm`, and Parley's
 * grammar compilation to `preparing`; a fresh tracker per load.
 */
export class LoadProgressTracker {
  private mode: 'download' | 'cached' | null = null;
  private phase: LoadPhase | undefined = undefined;
  private phaseFraction = 0;
  private fraction = 0;

  /** One of WebLLM's reports (`initProgressCallback`'s progress and text). */
  webllm(progress: number, text: string): LoadProgressReport {
    const phase = webLlmPhase(text);
    if (phase !== null) {
      // The first phase WebLLM names says whether this load downloads.
      this.mode ??= phase === 'downloading' ? 'download' : 'cached';
      return this.at(phase, progress, text);
    }
    // "Start to fetch params" (0) and "Finish loading on …" (1) name no phase: the finish ends
    // WebLLM's part, the start changes nothing.
    if (/^Finish loading/.test(text)) return this.at('compiling', 1, text);
    return { fraction: this.fraction, phase: this.phase, phaseFraction: this.phaseFraction, text };
  }

  /** Parley's last step: `done` of `total` move formats compiled. */
  preparing(done: number, total: number, text: string): LoadProgressReport {
    return this.at('preparing', total > 0 ? done / total : 1, text);
  }

  private at(phase: LoadPhase, progress: number, text: string): LoadProgressReport {
    const [start, end] = SPANS[this.mode ?? 'download'][phase];
    // A phase never goes back to an earlier one (WebLLM's order is fixed).
    if (this.phase === undefined || LOAD_PHASES.indexOf(phase) >= LOAD_PHASES.indexOf(this.phase)) {
      this.phase = phase;
      this.phaseFraction = clamp01(progress);
    }
    this.fraction = Math.max(this.fraction, start + (end - start) * clamp01(progress));
    return { fraction: this.fraction, phase: this.phase, phaseFraction: this.phaseFraction, text };
  }
}

/** "Downloading, 45%", the way a status line names where a load is. */
export const phaseText = (report: { phase: LoadPhase; phaseFraction: number }): string =>
  `${LOAD_PHASE_LABELS[report.phase]}, ${Math.floor(report.phaseFraction * 100)}%`;

/**
 * Where a load is, for a status line: the phase and its own progress, then the whole load's
 * ("Downloading, 45% (36% of the load)"); the whole load's alone where no phase is known yet.
 */
export function loadLine(bar: { fraction: number; phase?: LoadPhase | undefined; phaseFraction?: number | undefined }): string {
  const whole = `${Math.floor(clamp01(bar.fraction) * 100)}%`;
  if (bar.phase === undefined) return whole;
  return `${phaseText({ phase: bar.phase, phaseFraction: clamp01(bar.phaseFraction ?? 0) })} (${whole} of the load)`;
}
