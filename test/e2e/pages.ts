// Helpers for the browser tests: a fresh Chromium per file, screenshots kept under test-results/.
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { launch, type Browser } from './harness';

export const SCREENSHOTS = 'test-results/screenshots';

/** The built app in a fresh Chromium: its page, its address, and every error the page threw. */
export interface App {
  browser: Browser;
  page: Page;
  url: string;
  errors: string[];
}

export async function openApp(options: Parameters<typeof launch>[0] = {}): Promise<App> {
  const browser = await launch(options);
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { browser, page, url: inject('baseUrl'), errors };
}

/**
 * The app for the tests of one `describe`: opened before the first, closed after the last. Call it
 * in the `describe` and read its fields inside the tests, once it is open.
 */
export function appForTests(options: Parameters<typeof launch>[0] = {}): App {
  let app: App | undefined;
  beforeAll(async () => {
    app = await openApp(options);
  });
  afterAll(async () => {
    await app?.browser.close();
  });
  const open = (): App => {
    if (!app) throw new Error('the app opens before the first test');
    return app;
  };
  return {
    get browser() {
      return open().browser;
    },
    get page() {
      return open().page;
    },
    get url() {
      return open().url;
    },
    get errors() {
      return open().errors;
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

/**
 * Waits until the app's service worker is active (every file of the build precached) and controls
 * the page: the first visit installs it, and a reload puts the page under it.
 */
export async function untilOffline(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
}

/**
 * The Arena visited once, online (no offline badge), until the service worker controls the page;
 * then the network goes and the page is reloaded from the worker's cache, with the offline badge.
 */
export async function reopenOffline(browser: Browser, page: Page, url: string): Promise<void> {
  await page.goto(`${url}#/arena`);
  await untilOffline(page);
  expect(await page.getByTestId('offline-indicator').count()).toBe(0);
  await browser.context.setOffline(true);
  await page.reload();
  await page.getByTestId('offline-indicator').waitFor();
}

/** Every row of one object store of the app's database, read straight from IndexedDB in the page. */
export function storedRows<T>(page: Page, store: 'runs' | 'batches' | 'settings'): Promise<T[]> {
  return page.evaluate(async (name) => {
    const db: IDBDatabase = await new Promise((resolve, reject) => {
      const open = indexedDB.open('parley');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      return await new Promise<T[]>((resolve, reject) => {
        const req = db.transaction(name).objectStore(name).getAll();
        req.onsuccess = () => resolve(req.result as T[]);
        req.onerror = () => reject(req.error);
      });
    } finally {
      db.close();
    }
  }, store);
}

/** Every stored negotiation of every run (its export JSON, and its run's id), read straight from the batch records in the page. */
export async function storedNegotiations<T extends object>(page: Page): Promise<(T & { runId: string })[]> {
  const batches = await storedRows<{ runId: string; negotiations: string[] }>(page, 'batches');
  return batches.flatMap((b) => b.negotiations.map((json) => ({ ...(JSON.parse(json) as T), runId: b.runId })));
}

/** Runs and their negotiation counts, read straight from IndexedDB in the page. */
export async function storedRuns(page: Page): Promise<{ id: string; status: string; done: number; negotiations: number; standings: unknown }[]> {
  const runs = await storedRows<{ id: string; status: string; done: number; standings: unknown }>(page, 'runs');
  const batches = await storedRows<{ runId: string; count: number }>(page, 'batches');
  return runs.map((r) => ({
    id: r.id,
    status: r.status,
    done: r.done,
    standings: r.standings,
    negotiations: batches.filter((b) => b.runId === r.id).reduce((sum, b) => sum + b.count, 0),
  }));
}

/** Sets up a tournament with the given agents and scenario count on the Tournament page. */
export async function configureTournament(page: Page, agents: string[], scenarios: number, seed = 1): Promise<void> {
  // Every locator is read inside the Tournament page's own form: right after a navigation the page
  // before (the Arena, with a Buyer and a Seller "Agent") may still be drawn, and a busy machine may
  // not have drawn the form (and its default agents) yet, so the loop below would find nothing to remove.
  const form = page.getByRole('form', { name: 'Tournament setup' });
  const agent = form.getByLabel('Agent', { exact: true });
  await agent.waitFor();
  const list = form.locator('ul.agents li');
  while ((await list.count()) > 0)
    await list
      .first()
      .getByRole('button', { name: /^Remove/ })
      .click();
  for (const [i, name] of agents.entries()) {
    await agent.selectOption(name);
    await form.getByRole('button', { name: `Add ${name}`, exact: true }).click();
    // The next agent is chosen once this one is listed, whatever the machine's pace.
    await expect.poll(() => list.count()).toBe(i + 1);
  }
  await form.getByLabel('Scenarios per ordered pair').fill(String(scenarios));
  await form.getByLabel('Seed', { exact: true }).fill(String(seed));
}
