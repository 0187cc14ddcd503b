/**
 * A new version of the app, announced by its service worker: the page says so and waits; "Update"
 * reloads into the new version, and the runs stored before are all still there. The new version
 * is the same build with a changed service worker script, served from a copy of the e2e build.
 */
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launch, serve, type Browser, type Served } from './harness';
import { configureTournament, screenshot, storedRuns, untilOffline } from './pages';

describe('a new version', () => {
  let dir: string;
  let served: Served;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-update-'));
    await cp(inject('buildDir'), dir, { recursive: true });
    served = await serve(dir);
    browser = await launch({ serviceWorkers: 'allow' });
    page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is announced with an "Update" prompt, and updating keeps every stored run', async () => {
    await page.goto(`${served.url}#/arena`);
    await untilOffline(page);
    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
    await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
    await configureTournament(page, ['linear', 'conceder'], 3);
    await page.getByRole('button', { name: /^Run \d+ negotiations$/ }).click();
    await page.getByText('Finished.').waitFor({ timeout: 60_000 });
    const before = (await storedRuns(page)).toSorted((a, b) => a.id.localeCompare(b.id));
    expect(before.map((r) => r.negotiations).toSorted()).toEqual([1, 6]);
    const prompt = page.getByRole('alert').filter({ hasText: 'A new version of Parley is ready' });
    expect(await prompt.count()).toBe(0);

    // Publish a new version and let the browser look for it, as it does on a visit.
    await appendFile(join(dir, 'sw.js'), '\n// the next version\n');
    await page.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())?.update();
    });
    await prompt.waitFor({ timeout: 30_000 });
    await screenshot(page, 'update-prompt');
    // It waits for the user: the running version still controls the page.
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting !== null)).toBe(true);

    await Promise.all([page.waitForEvent('load'), prompt.getByRole('button', { name: 'Update' }).click()]);
    // The waiting version took over: none waits any more, and the one in control is active.
    await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting ?? null)).toBeNull();
    expect(await prompt.count()).toBe(0);

    const after = (await storedRuns(page)).toSorted((a, b) => a.id.localeCompare(b.id));
    expect(after).toEqual(before);
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('tr[data-run-id]').count()).toBe(2);
    expect(errors).toEqual([]);
  });
});

describe('a new version with two tabs open', () => {
  let dir: string;
  let served: Served;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-update-tabs-'));
    await cp(inject('buildDir'), dir, { recursive: true });
    served = await serve(dir);
    browser = await launch({ serviceWorkers: 'allow' });
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (hash: string): Promise<Page> => {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${served.url}${hash}`);
    await untilOffline(page);
    return page;
  };

  it("another tab's Update never reloads a tab that said Later with a game in play: the game goes on", async () => {
    const playing = await open('#/arena');
    const other = await open('#/runs');
    // Tab 1 plays the buyer's seat itself; the seller has moved and the game waits for the user.
    await playing.getByLabel('The buyer').check();
    await playing.getByLabel('Speed').selectOption({ label: 'Instant' });
    await playing.getByRole('button', { name: 'Play', exact: true }).click();
    const send = playing.getByRole('button', { name: 'Send move' });
    await send.waitFor({ timeout: 30_000 });
    // A mark on this very document: a reload would take it away.
    await playing.evaluate(() => Object.assign(window, { parleySameDocument: true }));

    await appendFile(join(dir, 'sw.js'), '\n// the next version\n');
    await other.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())?.update();
    });
    const promptIn = (page: Page) => page.getByRole('alert').filter({ hasText: 'A new version of Parley is ready' });
    await promptIn(playing).waitFor({ timeout: 30_000 });
    await promptIn(other).waitFor({ timeout: 30_000 });
    expect(await promptIn(playing).textContent()).toContain('This tab is playing your Arena game: Update waits until it ends.');
    await promptIn(playing).getByRole('button', { name: 'Later' }).click();
    expect(await promptIn(playing).count()).toBe(0);

    // Tab 2 updates and reloads into the new version...
    await Promise.all([other.waitForEvent('load'), promptIn(other).getByRole('button', { name: 'Update' }).click()]);
    await other.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
    // ...and tab 1 hears that the new version took over, and stays as it was.
    const replaced = playing.getByTestId('update-elsewhere');
    await replaced.waitFor({ timeout: 30_000 });
    expect(await replaced.textContent()).toMatch(/took over [\s\S]* so your Arena game goes on/);
    await screenshot(playing, 'update-other-tab');
    expect(await playing.evaluate(() => (window as { parleySameDocument?: boolean }).parleySameDocument)).toBe(true);

    // The game is still there to finish, and it is stored.
    const runsBefore = (await storedRuns(playing)).length;
    await playing.getByLabel('Walk away (no deal)').check();
    await send.click();
    await playing.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await storedRuns(playing)).length).toBe(runsBefore + 1);
    expect(await playing.evaluate(() => (window as { parleySameDocument?: boolean }).parleySameDocument)).toBe(true);
    expect(errors).toEqual([]);
  });
});
