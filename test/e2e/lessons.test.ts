// A lesson link opened in two fresh browser profiles fills the same form and, once played, gives the
// same scenario; opening it starts nothing. A tournament lesson runs exactly the setup its link holds.
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { openApp, screenshot, storedNegotiations, storedRows, storedRuns } from './pages';

const opened: Browser[] = [];
afterAll(async () => {
  for (const browser of opened) await browser.close();
});

async function fresh(): Promise<{ page: Page; url: string; errors: string[] }> {
  const app = await openApp();
  opened.push(app.browser);
  return app;
}

/** From the home page, the lesson's own link, as a student would follow it. */
async function openLesson(page: Page, url: string, title: string): Promise<string> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Parley', level: 1 }).waitFor();
  const card = page.getByRole('article', { name: title });
  await card.getByRole('link').click();
  await page.locator('aside.lesson').waitFor();
  return new URL(page.url()).hash;
}

describe('lesson links', () => {
  it('the same Arena lesson in two fresh profiles: nothing starts on opening, and Play plays the same scenario', async () => {
    const scenarios: unknown[] = [];
    let link = '';
    for (const profile of [0, 1]) {
      const { page, url, errors } = await fresh();
      if (profile === 0) link = await openLesson(page, url, 'No gains from trade');
      else await page.goto(`${url}${link}`);
      await page.locator('aside.lesson').waitFor();
      expect(await page.locator('.scenario-picker .summary').textContent()).toMatch(/Desk lamp[\s\S]*\$25\.00[\s\S]*\$30\.00[\s\S]*no gains from trade/);
      expect(await storedRuns(page)).toEqual([]);
      expect(await page.locator('ol.transcript').count()).toBe(0);
      await page.getByLabel('Speed').selectOption({ label: 'Instant' });
      await page.getByRole('button', { name: 'Play', exact: true }).click();
      await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
      await expect.poll(async () => (await storedNegotiations<{ scenario: unknown }>(page)).length).toBe(1);
      scenarios.push((await storedNegotiations<{ scenario: unknown }>(page))[0]?.scenario);
      if (profile === 1) await screenshot(page, 'lesson-no-gains');
      expect(errors).toEqual([]);
    }
    expect(scenarios[1]).toEqual(scenarios[0]);
  });

  it('a tournament lesson fills the form, starts nothing, and Run plays exactly its setup', async () => {
    const { page, url, errors } = await fresh();
    await openLesson(page, url, 'Patience');
    expect(await storedRuns(page)).toEqual([]);
    await page.getByRole('button', { name: /^Run \d+ negotiations$/ }).click();
    await expect.poll(async () => (await storedRuns(page))[0]?.status, { timeout: 60_000 }).toBe('done');
    const [run] = await storedRows<{ config: { kind: string; tournament: Record<string, unknown> } }>(page, 'runs');
    expect(run?.config.tournament).toMatchObject({
      agents: ['boulware', 'boulware:beta=0.05', 'linear', 'conceder'],
      scenariosPerPair: 10,
      preset: 'standard',
      seed: 11,
      selfPlay: false,
      deadline: { kind: 'uncertain', min: 16, max: 24 },
      firstMover: 'alternate',
    });
    expect(errors).toEqual([]);
  });
});
