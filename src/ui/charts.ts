/**
 * Chart.js, loaded on demand so that it stays out of the first page's bundle, with the colours
 * of theme.css and a Svelte action that creates, updates in place and destroys a chart.
 */
import type { Action } from 'svelte/action';
import type { Chart, ChartConfiguration, ChartDataset, ChartOptions, ChartType, Plugin, ScaleOptions } from 'chart.js';
import { placeLabels, type PlacedLabel } from './chart-marks';

export type ChartClass = typeof Chart;

let loading: Promise<ChartClass> | null = null;

/** Imports Chart.js once and registers only the pieces Parley draws with. */
export async function loadChart(): Promise<ChartClass> {
  loading ??= import('chart.js').then((m) => {
    m.Chart.register(
      m.LineController,
      m.BarController,
      m.ScatterController,
      m.LineElement,
      m.PointElement,
      m.BarElement,
      m.LinearScale,
      m.CategoryScale,
      m.Filler,
      m.Legend,
      m.Tooltip,
    );
    return m.Chart;
  });
  try {
    return await loading;
  } catch (e) {
    loading = null; // a failed download may succeed on the next try
    throw e;
  }
}

export interface ChartTheme {
  buyer: string;
  seller: string;
  valueLine: string;
  costLine: string;
  zone: string;
  deal: string;
  danger: string;
  accent: string;
  grid: string;
  text: string;
  textMuted: string;
  surface: string;
  series: string[];
  reducedMotion: boolean;
  /** The page's body text in px: chart text is drawn in proportion, so it grows with presentation mode. */
  fontSize: number;
}

const FALLBACK: Omit<ChartTheme, 'series' | 'reducedMotion' | 'fontSize'> = {
  buyer: '#1f63c6',
  seller: '#b3541e',
  valueLine: '#1f63c6',
  costLine: '#b3541e',
  zone: 'rgba(46, 139, 87, 0.16)',
  deal: '#1d7a46',
  danger: '#b3261e',
  accent: '#2456a6',
  grid: 'rgba(127, 127, 127, 0.2)',
  text: '#1b1d21',
  textMuted: '#5b616b',
  surface: '#ffffff',
};
const FALLBACK_SERIES = ['#1f63c6', '#b3541e', '#1d7a46', '#8a3ab9', '#c0397a', '#5f6b00', '#00798c', '#6b4f2a'];

const cssName = (key: string) => `--${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`;

/** The chart colours as theme.css currently defines them (its dark values under a dark preference). */
export function readTheme(el: Element = document.documentElement): ChartTheme {
  const style = getComputedStyle(el);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const colours = Object.fromEntries(Object.entries(FALLBACK).map(([key, fallback]) => [key, read(cssName(key), fallback)])) as typeof FALLBACK;
  return {
    ...colours,
    series: FALLBACK_SERIES.map((c, i) => read(`--series-${i + 1}`, c)),
    reducedMotion: matchMedia('(prefers-reduced-motion: reduce)').matches,
    fontSize: parseFloat(getComputedStyle(document.body).fontSize) || BODY_PX,
  };
}

/** theme.css's body text, and the share of it chart text takes: 12 px, Chart.js's own size, beside 15 px text. */
const BODY_PX = 15;
const CHART_TEXT = 0.8;

/**
 * Calls `onChange` whenever the colour scheme or the motion preference changes, or the root's
 * class does (presentation mode sets one, and scales the text); returns the unsubscribe.
 */
export function watchTheme(onChange: () => void): () => void {
  const queries = ['(prefers-color-scheme: dark)', '(prefers-reduced-motion: reduce)'].map((q) => matchMedia(q));
  for (const q of queries) q.addEventListener('change', onChange);
  const root = new MutationObserver(onChange);
  root.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
  return () => {
    for (const q of queries) q.removeEventListener('change', onChange);
    root.disconnect();
  };
}

/** The size chart text is drawn at, in px, for the theme's body text. */
export const chartFontSize = (theme: Pick<ChartTheme, 'fontSize'>): number => Math.round(theme.fontSize * CHART_TEXT * 10) / 10;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Chart.js's option trees are typed per chart type; this walks any of them.
type Loose = Record<string, any>;
/**
 * The config with every text it draws (ticks, axis titles, legend, tooltip, point labels) sized
 * to the page's text, where the chart did not size it itself. Applied to every chart by
 * ChartCanvas, so a chart's own options (a tooltip of its own, say) never drop the size.
 */
export function sizedText(config: AnyChartConfig, theme: ChartTheme): AnyChartConfig {
  const size = chartFontSize(theme);
  const font = (own: Loose | undefined) => ({ size, ...own });
  const options: Loose = config.options ?? {};
  const plugins: Loose = options.plugins ?? {};
  const scales = Object.fromEntries(
    Object.entries((options.scales ?? {}) as Loose).map(([id, scale]: [string, Loose]) => [
      id,
      { ...scale, ticks: { ...scale.ticks, font: font(scale.ticks?.font) }, title: { ...scale.title, font: font(scale.title?.font) } },
    ]),
  );
  return {
    ...config,
    options: {
      ...options,
      scales,
      plugins: {
        ...plugins,
        legend: { ...plugins.legend, labels: { ...plugins.legend?.labels, font: font(plugins.legend?.labels?.font) } },
        tooltip: { ...plugins.tooltip, titleFont: font(plugins.tooltip?.titleFont), bodyFont: font(plugins.tooltip?.bodyFont) },
        [pointLabels.id]: { size, ...plugins[pointLabels.id] },
      },
    },
  };
}

/** Options every Parley chart shares: sized by its container, themed, calm under reduced motion. */
export function baseOptions(theme: ChartTheme): ChartOptions {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: theme.reducedMotion ? false : { duration: 250 },
    color: theme.text,
    plugins: {
      legend: { labels: { color: theme.text, usePointStyle: true } },
      tooltip: { mode: 'nearest', intersect: false },
    },
  };
}

/** A themed linear or category axis with a title. */
export function axis<T extends 'linear' | 'category'>(
  type: T,
  theme: ChartTheme,
  title: string,
  extra: ScaleOptions<T> = {} as ScaleOptions<T>,
): ScaleOptions<T> {
  return {
    type,
    title: { display: true, text: title, color: theme.textMuted },
    grid: { color: theme.grid },
    border: { color: theme.grid },
    ...extra,
    ticks: { color: theme.textMuted, ...(extra.ticks ?? {}) },
  } as ScaleOptions<T>;
}

/**
 * Axis limits that leave room around the data, so no point sits on the plot's edge: the range of
 * `values` and `include` (e.g. `[0, 1]` for a share), widened by `pad` of its span on each side.
 * Pass them as `min` and `max` with `ticks.includeBounds: false`, so the ticks stay round numbers.
 */
export function paddedLimits(values: readonly (number | null | undefined)[], include: readonly number[] = [], pad = 0.06): { min: number; max: number } {
  const all = [...values, ...include].filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (all.length === 0) return { min: 0, max: 1 };
  const low = Math.min(...all);
  const high = Math.max(...all);
  const span = high - low || Math.abs(high) || 1;
  return { min: low - span * pad, max: high + span * pad };
}

const drawnLabels = new WeakMap<Chart, { placed: PlacedLabel[]; unplaced: string[] }>();

/** The point labels last drawn on `chart` (where each went, and those left off for lack of room). */
export const labelsOf = (chart: Chart): { placed: PlacedLabel[]; unplaced: string[] } | undefined => drawnLabels.get(chart);

/** The event a chart's canvas sends when the point labels it leaves off change: `detail` names them. */
export const UNLABELLED_EVENT = 'parley-unlabelled';

/**
 * Writes each point's `label` beside it (scatter charts whose points are agents), in the chart's
 * text colour, no two overlapping (placeLabels): points on one spot share a label, and a label with
 * no free spot is left off, the canvas then saying which in an UNLABELLED_EVENT.
 */
export const pointLabels: Plugin = {
  id: 'parleyPointLabels',
  afterDatasetsDraw(chart) {
    const { ctx, chartArea } = chart;
    const size = Number((chart.options.plugins as Loose | undefined)?.[pointLabels.id]?.size) || BODY_PX * CHART_TEXT;
    ctx.save();
    ctx.fillStyle = String(chart.options.color ?? '#000');
    ctx.font = `${size}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    const points = chart.data.datasets.flatMap((dataset, d) => {
      const meta = chart.getDatasetMeta(d);
      if (meta.hidden) return [];
      return meta.data.flatMap((element, i) => {
        const label = (dataset.data[i] as { label?: string } | undefined)?.label;
        return label ? [{ x: element.x, y: element.y, label }] : [];
      });
    });
    const result = placeLabels(points, (text) => ctx.measureText(text).width, chartArea, { height: Math.ceil(size * 1.2) });
    for (const label of result.placed) ctx.fillText(label.text, label.at.x, label.at.y);
    ctx.restore();
    const before = drawnLabels.get(chart)?.unplaced.join('\u0000');
    drawnLabels.set(chart, result);
    if (before !== result.unplaced.join('\u0000')) chart.canvas.dispatchEvent(new CustomEvent(UNLABELLED_EVENT, { bubbles: true, detail: result.unplaced }));
  },
};

/**
 * The chart on `canvas` as a PNG, drawn over `background` (the canvas itself is transparent, so
 * a dark theme's light text would vanish on a white page). Null if no chart is drawn there yet.
 */
export async function chartPng(canvas: HTMLCanvasElement, background: string): Promise<Blob | null> {
  const instance = (await loadChart()).getChart(canvas);
  if (!instance) return null;
  instance.update('none'); // the finished frame, not one mid-animation
  const out = document.createElement('canvas');
  out.width = canvas.width;
  out.height = canvas.height;
  const ctx = out.getContext('2d');
  if (!ctx) return null;
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(canvas, 0, 0);
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}

// Charts of every type pass through one action; Chart.js checks each config against its own type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Chart.js's own way to say a config of any data.
export type AnyChartConfig = ChartConfiguration<ChartType, any, any>;

/**
 * Replaces data and options while keeping each dataset object (matched by index), so Chart.js
 * animates from the old values and keeps its state instead of rebuilding the chart.
 */
function applyConfig(chart: Chart, config: AnyChartConfig, mode?: 'none'): void {
  const data = chart.data;
  data.labels = config.data.labels ?? [];
  const next = config.data.datasets as ChartDataset[];
  next.forEach((dataset, i) => {
    const current = data.datasets[i] as Record<string, unknown> | undefined;
    if (!current) {
      data.datasets.push(dataset);
      return;
    }
    for (const key of Object.keys(current)) if (!(key in dataset)) delete current[key];
    Object.assign(current, dataset);
  });
  data.datasets.length = next.length;
  chart.options = config.options ?? {};
  chart.update(mode);
}

/**
 * Runs `job` in a task of its own, after the jobs queued before it: a page that draws several
 * charts at once never blocks the main thread for the sum of them. Returns a cancel.
 */
export function inOwnTask(job: () => void): () => void {
  const entry = { job };
  jobs.push(entry);
  if (!draining) {
    draining = true;
    setTimeout(drain, 0);
  }
  return () => {
    entry.job = () => {};
  };
}
const jobs: { job: () => void }[] = [];
let draining = false;
function drain(): void {
  jobs.shift()?.job();
  if (jobs.length > 0) setTimeout(drain, 0);
  else draining = false;
}

/** The chart without its data: its canvas, scales and events, the cheaper half of building it. */
const withoutData = (config: AnyChartConfig): AnyChartConfig => ({
  ...config,
  data: { labels: [], datasets: [] },
  options: { ...config.options, animation: false },
});

/**
 * `<canvas use:chart={config}>`: draws once Chart.js has loaded, redraws in place whenever
 * `config` changes (coalescing changes that arrive before the redraw) and destroys the chart
 * with the canvas. The first drawing takes two tasks (the chart, then its data) and does not
 * animate in; later changes animate as the config says.
 */
export const chart: Action<HTMLCanvasElement, AnyChartConfig> = (canvas, initial) => {
  let latest = initial;
  let instance: Chart | null = null;
  let drawn = false;
  let destroyed = false;
  let cancelBuild: (() => void)[] = [];
  let cancelRedraw: (() => void) | null = null;
  loadChart().then(
    (ChartJs) => {
      if (destroyed) return;
      cancelBuild = [
        inOwnTask(() => {
          instance = new ChartJs(canvas, withoutData(latest));
        }),
        inOwnTask(() => {
          if (!instance) return;
          applyConfig(instance, latest, 'none');
          drawn = true;
          canvas.dataset.chartReady = 'true';
        }),
      ];
    },
    (e: unknown) => {
      canvas.dataset.chartError = e instanceof Error ? e.message : String(e);
    },
  );
  return {
    update(config) {
      latest = config;
      if (!drawn || cancelRedraw) return;
      cancelRedraw = inOwnTask(() => {
        cancelRedraw = null;
        if (instance) applyConfig(instance, latest);
      });
    },
    destroy() {
      destroyed = true;
      for (const cancel of cancelBuild) cancel();
      cancelRedraw?.();
      instance?.destroy();
      instance = null;
    },
  };
};
