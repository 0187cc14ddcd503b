/**
 * The build served over plain http to a host that is not this machine, as a teacher serves it from
 * a laptop to a class (`python3 -m http.server` on http://192.168.1.20:8080/): the page is not a
 * secure context, so it has no crypto.randomUUID, no Web Locks, no service worker, no WebGPU and no
 * storage manager. Chromium is told that `class.test` is 127.0.0.1 (the test reaches nothing else),
 * and an address by name that is not localhost is not trustworthy, as a LAN address is not.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launch, serve, type Browser, type Served } from './harness';
import { configureTournament, storedRuns } from './pages';
import { HAND_IN_PATH, linkGame, resultPayload } from '../../src/storage/result-link';
import { classGames } from '../support/class-games';

describe('served over plain http to another host', () => {
  let served: Served;
  let browser: Browser;
  let page: Page;
  let url: string;
  const errors: string[] = [];

  beforeAll(async () => {
    served = await serve(inject('buildDir'), '/', ['class.test']);
    url = served.url.replace('127.0.0.1', 'class.test');
    browser = await launch({ serviceWorkers: 'allow', args: ['--host-resolver-rules=MAP class.test 127.0.0.1'] });
    page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('plays an Arena game and a tournament, stores both, and threw nothing', async () => {
    await page.goto(`${url}#/arena`);
    const context = await page.evaluate(() => ({
      secure: isSecureContext,
      randomUUID: typeof crypto.randomUUID,
      locks: typeof navigator.locks,
      serviceWorker: 'serviceWorker' in navigator,
      // What a student's result link is made with.
      compression: typeof CompressionStream,
    }));
    expect(context).toEqual({ secure: false, randomUUID: 'undefined', locks: 'undefined', serviceWorker: false, compression: 'function' });

    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });

    await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
    await configureTournament(page, ['linear', 'conceder'], 2);
    await page.getByRole('button', { name: /^Run \d+ negotiations$/ }).click();
    await page.getByRole('region', { name: 'Progress', exact: true }).getByText('Finished.').waitFor({ timeout: 60_000 });

    const runs = await storedRuns(page);
    expect(runs.map((r) => [r.status, r.negotiations]).sort()).toEqual([
      ['done', 1],
      ['done', 4],
    ]);
    // Ids made without crypto.randomUUID are still version-4 UUIDs.
    for (const run of runs) expect(run.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(errors).toEqual([]);
  });

  it('takes a class’s result links on the Class page, where no camera is offered', async () => {
    const links: string[] = [];
    for (const { run, row } of await classGames(2)) links.push(`${url}${HAND_IN_PATH}${await resultPayload(linkGame(run, row)!)}`);
    await page.goto(`${url}#/class`);
    await page.getByLabel('Result links').fill(links.join('\n'));
    await page.getByRole('button', { name: 'Hand in these links' }).click();
    await expect.poll(() => page.getByTestId('hand-in-summary').textContent()).toBe('2 handed in: 2 imported.');
    expect(await page.getByRole('button', { name: 'Scan QR codes with the camera' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
