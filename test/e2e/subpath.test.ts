/**
 * The build served from a sub-path, as a project page is (`/parley/`): every page loads, every file
 * (workers, manifest, service worker) is asked for under that path and found, the service worker's
 * scope is that path alone, Chromium finds the app installable, and a game plays (the workers load
 * from there).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launch, serve, type Browser, type Served } from './harness';
import { screenshot, storedRuns } from './pages';

const BASE = '/parley/';

describe('served from a sub-path', () => {
  let served: Served;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  /** Every URL the page, its workers and its service worker asked for, and those that failed. */
  const requested: string[] = [];
  const failed: string[] = [];

  beforeAll(async () => {
    served = await serve(inject('buildDir'), BASE);
    browser = await launch({ serviceWorkers: 'allow' });
    page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    browser.context.on('request', (r) => requested.push(r.url()));
    browser.context.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('loads every page, keeps every request under the path, is installable, and plays a game', async () => {
    expect(served.url).toMatch(/\/parley\/$/);
    const pages: [string, RegExp][] = [
      ['#/arena', /^Arena$/],
      ['#/tournament', /^Tournament$/],
      ['#/runs', /^Runs$/],
      ['#/models', /^Models$/],
      ['#/no-such-page', /^Page not found$/],
    ];
    for (const [hash, title] of pages) {
      await page.goto(`${served.url}${hash}`);
      await expect.poll(() => page.locator('main h1').first().textContent()).toMatch(title);
    }
    await page.getByRole('navigation').getByRole('link', { name: 'Models' }).click();
    await page.getByTestId('offline-models').waitFor({ timeout: 30_000 });
    await screenshot(page, 'subpath-models');

    const registration = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.ready;
      return { scope: r.scope, script: r.active?.scriptURL ?? '' };
    });
    const origin = new URL(served.url).origin;
    expect(registration).toEqual({ scope: `${origin}${BASE}`, script: `${origin}${BASE}sw.js` });
    const manifest = await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>('link[rel="manifest"]');
      const response = await fetch(link?.href ?? '');
      return { href: link?.href, body: (await response.json()) as { start_url: string; scope: string; icons: { src: string }[] } };
    });
    expect(manifest.href).toBe(`${origin}${BASE}manifest.webmanifest`);
    // Relative to the manifest, so they resolve under the sub-path too.
    expect(manifest.body).toMatchObject({ start_url: '.', scope: '.' });
    for (const icon of manifest.body.icons) expect(await page.evaluate((src) => fetch(src).then((r) => r.status), icon.src)).toBe(200);
    // Chromium itself finds nothing that keeps it from installing the app.
    const cdp = await browser.context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);

    await page.goto(`${served.url}#/arena`);
    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
    const [run] = await storedRuns(page);
    expect(run).toMatchObject({ status: 'done', done: 1, negotiations: 1 });
    await page.goto(`${served.url}#/runs/${run!.id}`);
    await expect.poll(() => page.locator('main h1').first().textContent()).not.toMatch(/not found/i);

    const local = requested.filter((u) => u.startsWith(origin));
    expect(local.length).toBeGreaterThan(0);
    expect(local.filter((u) => !new URL(u).pathname.startsWith(BASE))).toEqual([]);
    // The workers were fetched from under the path.
    expect(local.some((u) => /\/parley\/assets\/sim\.worker-[\w-]+\.js$/.test(u))).toBe(true);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
  });
});
