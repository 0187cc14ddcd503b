import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { openApp, screenshot, storedRuns } from './pages';

describe('Arena', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];

  beforeAll(async () => {
    ({ browser, page, url, errors } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('plays a negotiation live and shows the transcript, the offer chart and the outcome', async () => {
    await page.goto(`${url}#/arena`);
    await page.getByLabel('Speed').selectOption({ label: 'Fast' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const outcome = page.getByRole('region', { name: 'Outcome' });
    await outcome.waitFor({ timeout: 30_000 });
    const bubbles = page.locator('ol.transcript li.bubble');
    expect(await bubbles.count()).toBeGreaterThanOrEqual(2);
    await expect.poll(() => outcome.textContent()).toMatch(/Deal at \$\d+\.\d\d|No deal|walked away|turn limit/i);
    expect(await page.locator('canvas[role="img"]').count()).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'arena');
    // The game is stored as a run with a URL of its own.
    await page.getByRole('link', { name: 'Open this negotiation in the inspector' }).click();
    await page.getByRole('group', { name: 'Step through the events' }).waitFor();
    expect(await page.locator('ol.transcript li.bubble').count()).toBe(await bubbles.count());
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'done', done: 1, negotiations: 1 });
    expect(errors).toEqual([]);
  });

  it('steps one turn at a time when asked', async () => {
    await page.goto(`${url}#/arena`);
    await page.getByRole('button', { name: 'Play step by step' }).click();
    const next = page.getByRole('button', { name: 'Next turn' });
    await next.waitFor();
    const bubbles = page.locator('ol.transcript li.bubble');
    await page.waitForTimeout(300);
    expect(await bubbles.count()).toBe(0);
    await next.click();
    await expect.poll(() => bubbles.count()).toBe(1);
    await next.click();
    await expect.poll(() => bubbles.count()).toBe(2);
    await page.waitForTimeout(300);
    expect(await bubbles.count()).toBe(2);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Play', exact: true }).isEnabled()).toBe(true);
    expect(errors).toEqual([]);
  });
});
