// `npm run bench:browser`: a paper-scale scripted tournament in headless Chromium through the
// real page, worker and IndexedDB. Prints figures; asserts nothing (targets are read by people).
import os from 'node:os';
import { buildAndServe, launch } from '../e2e/harness';

const SCENARIOS_PER_PAIR = Number(process.env.SCENARIOS ?? 500);

const served = await buildAndServe('dist-bench');
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { __longest: number; __peakHeap: number };
    w.__longest = 0;
    w.__peakHeap = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
    setInterval(() => {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      if (memory) w.__peakHeap = Math.max(w.__peakHeap, memory.usedJSHeapSize);
    }, 50);
  });
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(`${served.url}#/tournament`);
  await page.getByLabel('Scenarios per ordered pair').fill(String(SCENARIOS_PER_PAIR));
  const usage = () =>
    page.evaluate(async () => {
      const e = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: { indexedDB?: number } };
      return e.usageDetails?.indexedDB ?? e.usage ?? 0;
    });
  const before = await usage();
  // Start measuring from a quiet page.
  await page.evaluate(() => {
    (window as unknown as { __longest: number }).__longest = 0;
  });
  const run = page.getByRole('button', { name: /^Run [\d,]+ negotiations$/ });
  const label = (await run.textContent()) ?? '';
  const planned = Number(label.replace(/[^\d]/g, ''));
  const t0 = performance.now();
  await run.click();
  await page.getByText('Finished.').waitFor({ timeout: 600_000 });
  const seconds = (performance.now() - t0) / 1000;
  const metrics = await cdp.send('Performance.getMetrics');
  const heapNow = metrics.metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  const { longest, peakHeap } = await page.evaluate(() => {
    const w = window as unknown as { __longest: number; __peakHeap: number };
    return { longest: w.__longest, peakHeap: w.__peakHeap };
  });
  // Give IndexedDB a moment to settle its files before measuring.
  await page.waitForTimeout(1500);
  const after = await usage();
  // Reopen the stored run and filter its negotiations, as a reader would.
  await page.getByRole('link', { name: 'Open this run' }).click();
  const status = page.getByRole('status').filter({ hasText: 'matching negotiations' });
  await status.filter({ hasText: `${planned.toLocaleString('en-US')} matching` }).waitFor({ timeout: 120_000 });
  await page.evaluate(() => {
    (window as unknown as { __longest: number }).__longest = 0;
  });
  const f0 = performance.now();
  await page.getByLabel('Outcome').selectOption('walk_away');
  await page.waitForFunction(
    (all) => [...document.querySelectorAll('[role=status]')].some((e) => /matching negotiations/.test(e.textContent ?? '') && !(e.textContent ?? '').startsWith(all)),
    planned.toLocaleString('en-US'),
  );
  const filterMs = performance.now() - f0;
  const filterLongest = await page.evaluate(() => (window as unknown as { __longest: number }).__longest);
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; Chromium headless`);
  console.log(`tournament: ${planned.toLocaleString('en-US')} negotiations (6 deterministic strategies, ${SCENARIOS_PER_PAIR} scenarios per ordered pair)`);
  console.log(`total time, click to every negotiation stored: ${seconds.toFixed(2)} s`);
  console.log(`negotiations stored per second: ${Math.round(planned / seconds).toLocaleString('en-US')}`);
  console.log(`longest main-thread task (longtask): ${longest.toFixed(0)} ms`);
  console.log(`page JS heap: peak ${mb(peakHeap)}, at the end ${mb(heapNow)}`);
  console.log(`filter the stored run by outcome: ${filterMs.toFixed(0)} ms, longest main-thread task ${filterLongest.toFixed(0)} ms`);
  console.log(`IndexedDB per stored negotiation: ${((after - before) / planned / 1024).toFixed(2)} KB (${mb(after - before)} in all)`);
} finally {
  await browser.close();
  await served.close();
}
