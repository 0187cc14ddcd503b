// `npm run bench:browser`: a paper-scale scripted tournament in headless Chromium through the
// real page, worker and IndexedDB. Prints figures; asserts nothing (targets are read by people).
//
// What it measures, all from the click on "Run":
// - stored: the page says "Finished.", which the worker posts after its last write;
// - charted: every chart of the results (CHARTS of them) is built and a frame has been painted
//   after the last one (Chart.js then animates for 250 ms, not counted);
// - main-thread tasks: the Long Tasks API in the page (every task over 50 ms, with its start);
// - JavaScript heap: CDP Runtime.getHeapUsage of the page and of the simulation worker, sampled
//   every 100 ms (peaks between samples can be missed);
// - IndexedDB: navigator.storage.estimate() before and after, per stored negotiation.
// BENCH_PROFILE=file.cpuprofile also records the page's CPU profile (open it in DevTools).
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import type { CDPSession } from 'playwright-core';
import { buildAndServe, launch } from '../e2e/harness';

const SCENARIOS_PER_PAIR = Number(process.env.SCENARIOS ?? 500);
/** The results page's charts: four by tier and zone width, two of behaviour, one of deal positions. */
const CHARTS = 7;
const PROFILE = process.env.BENCH_PROFILE;
/** BENCH_CPU_SLOWDOWN=4 runs the page's main thread four times slower (CDP CPU throttling), as a busy machine would. */
const SLOWDOWN = Number(process.env.BENCH_CPU_SLOWDOWN ?? 1);

interface Marks {
  clickAt: number | null;
  finishedAt: number | null;
  chartsAt: number | null;
  longTasks: { start: number; duration: number }[];
}

/** Runs in the page before its scripts: records the marks above without polling. */
function instrument(charts: number): void {
  const marks: Marks = { clickAt: null, finishedAt: null, chartsAt: null, longTasks: [] };
  (window as unknown as { __bench: Marks }).__bench = marks;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) marks.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener(
    'click',
    (e) => {
      const button = (e.target as Element | null)?.closest('button');
      if (button && /^Run [\d,]+ negotiations$/.test(button.textContent?.trim() ?? '')) marks.clickAt = performance.now();
    },
    true,
  );
  let painting = false;
  new MutationObserver(() => {
    if (marks.clickAt === null) return;
    if (marks.finishedAt === null) {
      const statuses = document.querySelectorAll('[role=status]');
      if ([...statuses].some((s) => s.textContent?.includes('Finished.'))) marks.finishedAt = performance.now();
      else return;
    }
    if (painting) return;
    const canvases = [...document.querySelectorAll<HTMLCanvasElement>('main canvas')];
    if (canvases.length < charts || !canvases.every((c) => c.dataset.chartReady === 'true')) return;
    painting = true;
    // A frame is painted after the next animation frame callback: wait for the one after it.
    requestAnimationFrame(() => requestAnimationFrame(() => (marks.chartsAt = performance.now())));
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-chart-ready'] });
}

/**
 * JS heap of the page and of its simulation worker. The worker is reached through the page's own
 * CDP session (auto-attach without flattening), since Playwright opens sessions on pages only.
 */
async function heapMeter(cdp: CDPSession) {
  let workerSession: string | null = null;
  let nextId = 1;
  const replies = new Map<number, (result: { usedSize: number } | undefined) => void>();
  cdp.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type === 'worker' && /sim\.worker|parley-sim/.test(`${e.targetInfo.url} ${e.targetInfo.title}`)) workerSession = e.sessionId;
  });
  cdp.on('Target.detachedFromTarget', (e) => {
    if (e.sessionId === workerSession) workerSession = null;
  });
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const message = JSON.parse(e.message) as { id?: number; result?: { usedSize: number } };
    if (message.id !== undefined) replies.get(message.id)?.(message.result);
    if (message.id !== undefined) replies.delete(message.id);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const workerHeap = (): Promise<number | null> => {
    const sessionId = workerSession;
    if (sessionId === null) return Promise.resolve(null);
    const id = nextId++;
    return new Promise((resolve) => {
      replies.set(id, (r) => resolve(r?.usedSize ?? null));
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method: 'Runtime.getHeapUsage' }) }).catch(() => resolve(null));
      setTimeout(() => resolve(null), 1000);
    });
  };
  const pageHeap = async (): Promise<number> => (await cdp.send('Runtime.getHeapUsage')).usedSize;
  const peak = { page: 0, worker: 0, workerSeen: false };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [p, w] = await Promise.all([pageHeap().catch(() => 0), workerHeap()]);
      peak.page = Math.max(peak.page, p);
      if (w !== null) {
        peak.worker = Math.max(peak.worker, w);
        peak.workerSeen = true;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    now: async () => ({ page: await pageHeap(), worker: await workerHeap() }),
    stop: async () => {
      sampling = false;
      await sampler;
      return peak;
    },
  };
}

const served = await buildAndServe('dist-bench');
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.addInitScript(instrument, CHARTS);
  const cdp = await browser.context.newCDPSession(page);
  const heap = await heapMeter(cdp);
  if (SLOWDOWN > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: SLOWDOWN });
  await page.goto(`${served.url}#/tournament`);
  await page.getByLabel('Scenarios per ordered pair').fill(String(SCENARIOS_PER_PAIR));
  const usage = () =>
    page.evaluate(async () => {
      const e = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: { indexedDB?: number } };
      return e.usageDetails?.indexedDB ?? e.usage ?? 0;
    });
  const before = await usage();
  const run = page.getByRole('button', { name: /^Run [\d,]+ negotiations$/ });
  const label = (await run.textContent()) ?? '';
  const planned = Number(label.replace(/[^\d]/g, ''));
  if (PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  await run.click();
  await page.waitForFunction(() => (window as unknown as { __bench: Marks }).__bench.chartsAt !== null, undefined, { timeout: 600_000, polling: 500 });
  if (PROFILE) {
    const { profile } = await cdp.send('Profiler.stop');
    await writeFile(PROFILE, JSON.stringify(profile));
  }
  const marks = await page.evaluate(() => (window as unknown as { __bench: Marks }).__bench);
  const end = await heap.now();
  const peak = await heap.stop();
  const clickAt = marks.clickAt ?? 0;
  const storedS = ((marks.finishedAt ?? 0) - clickAt) / 1000;
  const chartedS = ((marks.chartsAt ?? 0) - clickAt) / 1000;
  // "Finished." is seen at the end of the task that rendered it: that task is the results' first.
  const finishedAt = marks.finishedAt ?? Infinity;
  const during = marks.longTasks.filter((t) => t.start >= clickAt && t.start + t.duration < finishedAt);
  const charting = marks.longTasks.filter((t) => t.start + t.duration >= finishedAt);
  const longest = (tasks: { duration: number }[]) => Math.max(0, ...tasks.map((t) => t.duration));
  // Give IndexedDB a moment to settle its files before measuring.
  await page.waitForTimeout(1500);
  const after = await usage();

  // Reopen the stored run and filter its negotiations, as a reader would.
  const reopen = await page.evaluate(() => performance.now());
  await page.getByRole('link', { name: 'Open this run' }).click();
  const status = page.getByRole('status').filter({ hasText: 'matching negotiations' });
  await status.filter({ hasText: `${planned.toLocaleString('en-US')} matching` }).waitFor({ timeout: 120_000 });
  const f0 = performance.now();
  const filterAt = await page.evaluate(() => performance.now());
  await page.getByLabel('Outcome').selectOption('walk_away');
  await page.waitForFunction(
    (all) =>
      [...document.querySelectorAll('[role=status]')].some((e) => /matching negotiations/.test(e.textContent ?? '') && !(e.textContent ?? '').startsWith(all)),
    planned.toLocaleString('en-US'),
  );
  const filterMs = performance.now() - f0;
  const tasks = await page.evaluate(() => (window as unknown as { __bench: Marks }).__bench.longTasks);
  const opening = tasks.filter((t) => t.start >= reopen && t.start < filterAt);
  const filtering = tasks.filter((t) => t.start >= filterAt);

  const mb = (b: number | null) => (b === null ? 'not measured' : `${(b / 2 ** 20).toFixed(1)} MB`);
  const ms = (t: number) => `${t.toFixed(0)} ms`;
  const list = (ts: { start: number; duration: number }[]) =>
    ts.length === 0 ? 'none' : ts.map((t) => `${ms(t.duration)} at ${((t.start - clickAt) / 1000).toFixed(2)} s`).join(', ');
  console.log(
    `machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, load ${os.loadavg()[0]?.toFixed(2)}; Chromium headless (${browser.context.browser()?.version() ?? 'Debian build'})${SLOWDOWN > 1 ? `, page CPU slowed ${SLOWDOWN}×` : ''}`,
  );
  console.log(`tournament: ${planned.toLocaleString('en-US')} negotiations (6 deterministic strategies, ${SCENARIOS_PER_PAIR} scenarios per ordered pair)`);
  console.log(`click to every negotiation stored ("Finished."): ${storedS.toFixed(2)} s (${Math.round(planned / storedS).toLocaleString('en-US')} per second)`);
  console.log(`click to all ${CHARTS} charts drawn (built, one frame painted): ${chartedS.toFixed(2)} s`);
  console.log(
    `longest main-thread task: ${ms(longest([...during, ...charting]))} (while playing ${ms(longest(during))}, drawing results ${ms(longest(charting))})`,
  );
  console.log(`  tasks over 50 ms: ${list([...during, ...charting])}`);
  console.log(`JS heap, page: peak ${mb(peak.page)}, at the end ${mb(end.page)}`);
  console.log(`JS heap, worker: peak ${peak.workerSeen ? mb(peak.worker) : 'not measured'}, at the end ${mb(end.worker)}`);
  console.log(`IndexedDB per stored negotiation: ${((after - before) / planned / 1024).toFixed(2)} KB (${mb(after - before)} in all; the browser's estimate)`);
  console.log(`reopen the stored run: longest main-thread task ${ms(longest(opening))}`);
  console.log(`filter the stored run by outcome: ${filterMs.toFixed(0)} ms, longest main-thread task ${ms(longest(filtering))}`);
} finally {
  await browser.close();
  await served.close();
}
