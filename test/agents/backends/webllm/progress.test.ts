/**
 * One bar over WebLLM's three progress phases. The report texts are written as WebLLM 0.2.86's
 * tvmjs writes them (fetchTensorCacheInternal's reportCallback, asyncLoadWebGPUPipelines, and
 * reloadInternal's finish line); the test reads those format strings out of the shipped bundle,
 * so a WebLLM that words them differently fails here instead of restarting the bar.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { LoadProgressTracker, loadLine, webLlmPhase, type LoadProgressReport } from '../../../../src/agents/backends/webllm/progress';

const bundle = readFileSync(createRequire(import.meta.url).resolve('@mlc-ai/web-llm'), 'utf8');

const fetching = (i: number, n: number, mb: number, pct: number) =>
  `Fetching param cache[${i}/${n}]: ${mb}MB fetched. ${pct}% completed, ${i} secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.`;
const loading = (i: number, n: number, mb: number, pct: number) => `Loading model from cache[${i}/${n}]: ${mb}MB loaded. ${pct}% completed, ${i} secs elapsed.`;
const shaders = (i: number, n: number) => `Loading GPU shader modules[${i}/${n}]: ${Math.floor((i / n) * 100)}% completed, ${i} secs elapsed.`;

/** WebLLM's reports for one load of `shards` weight shards and `modules` shader modules. */
function webllmReports(download: boolean, shards = 4, modules = 5): [number, string][] {
  const reports: [number, string][] = [[0, 'Start to fetch params']];
  if (download) for (let i = 1; i <= shards; i++) reports.push([i / shards, fetching(i, shards, i * 100, Math.floor((i / shards) * 100))]);
  for (let i = 1; i <= shards; i++) reports.push([i / shards, loading(i, shards, i * 100, Math.floor((i / shards) * 100))]);
  for (let i = 1; i <= modules; i++) reports.push([i / modules, shaders(i, modules)]);
  reports.push([1, 'Finish loading on WebGPU - SwiftShader']);
  return reports;
}

function play(reports: [number, string][]): LoadProgressReport[] {
  const tracker = new LoadProgressTracker();
  return reports.map(([p, text]) => tracker.webllm(p, text));
}

describe('WebLLM load progress as one bar', () => {
  it('reads the phase texts WebLLM 0.2.86 writes', () => {
    for (const start of [
      '"Fetching param cache["',
      '"Loading model from cache["',
      '"Loading GPU shader modules["',
      '"Start to fetch params"',
      '"Finish loading on "',
    ])
      expect(bundle, start).toContain(start);
    expect(webLlmPhase(fetching(1, 3, 10, 33))).toBe('downloading');
    expect(webLlmPhase(loading(1, 3, 10, 33))).toBe('loading');
    expect(webLlmPhase(shaders(1, 3))).toBe('compiling');
    expect(webLlmPhase('Start to fetch params')).toBeNull();
  });

  for (const download of [true, false]) {
    it(`never moves back and ends at 1 (${download ? 'a first download' : 'from the cache'})`, () => {
      const raw = webllmReports(download);
      // WebLLM's own value restarts at each phase: the bug this fixes.
      const restarts = raw.slice(1).filter(([p], i) => p < (raw[i]?.[0] ?? 0)).length;
      expect(restarts).toBe(download ? 2 : 1);
      const bar = play(raw);
      for (let i = 1; i < bar.length; i++) expect(bar[i]!.fraction).toBeGreaterThanOrEqual(bar[i - 1]!.fraction);
      expect(bar[0]!.fraction).toBe(0);
      // WebLLM's part ends where Parley's preparing step starts, then that ends the bar.
      const last = bar.at(-1)!;
      expect(last.phase).toBe('compiling');
      expect(last.fraction).toBeLessThan(1);
      const tracker = new LoadProgressTracker();
      for (const [p, text] of raw) tracker.webllm(p, text);
      expect(tracker.preparing(1, 4, 'x').fraction).toBeGreaterThan(last.fraction);
      expect(tracker.preparing(4, 4, 'x')).toMatchObject({ fraction: 1, phase: 'preparing', phaseFraction: 1 });
    });
  }

  it('names each phase in order, and gives a download most of the bar', () => {
    const bar = play(webllmReports(true));
    // The start names no phase: a load from the cache never shows "Downloading".
    expect(bar[0]!.phase).toBeUndefined();
    const phases = bar
      .slice(1)
      .map((r) => r.phase)
      .filter((p, i, all) => p !== all[i - 1]);
    expect(phases).toEqual(['downloading', 'loading', 'compiling']);
    const endOfDownload = bar.filter((r) => r.phase === 'downloading').at(-1)!;
    expect(endOfDownload.fraction).toBeCloseTo(0.8, 10);
    const cached = play(webllmReports(false));
    expect(
      cached
        .slice(1)
        .map((r) => r.phase)
        .filter((p, i, all) => p !== all[i - 1]),
    ).toEqual(['loading', 'compiling']);
    // Without a download, loading and shaders share the bar.
    expect(cached.filter((r) => r.phase === 'loading').at(-1)!.fraction).toBeCloseTo(0.45, 10);
  });

  it('says the phase and its own progress', () => {
    const tracker = new LoadProgressTracker();
    tracker.webllm(0, 'Start to fetch params');
    const half = tracker.webllm(0.5, fetching(2, 4, 200, 50));
    expect(loadLine(half)).toBe('Downloading, 50% (40% of the load)');
    expect(loadLine({ fraction: 0 })).toBe('0%');
    expect(half.fraction).toBeCloseTo(0.4, 10);
    expect(loadLine(tracker.webllm(0.25, loading(1, 4, 100, 25)))).toBe('Loading from cache, 25% (82% of the load)');
    expect(loadLine(tracker.webllm(1, shaders(5, 5)))).toBe('Compiling shaders, 100% (96% of the load)');
    expect(loadLine(tracker.preparing(1, 2, 'json'))).toBe('Preparing move formats, 50% (98% of the load)');
  });

  it('keeps an odd value inside the bar', () => {
    const tracker = new LoadProgressTracker();
    expect(tracker.webllm(Number.NaN, fetching(1, 2, 1, 50)).fraction).toBe(0);
    expect(tracker.webllm(7, fetching(2, 2, 1, 100)).fraction).toBeCloseTo(0.8, 10);
    // A late report of an earlier phase does not move the bar back.
    tracker.webllm(0.5, shaders(1, 2));
    const late = tracker.webllm(0.1, loading(1, 2, 1, 10));
    expect(late.phase).toBe('compiling');
    expect(late.fraction).toBeCloseTo(0.92, 10);
  });
});
