import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedRuns } from './pages';
import { startPacedModel, type PacedModel } from '../support/paced-model';

// Four scripted strategies and a remote model the test paces (test/support/paced-model.ts): it answers
// one call per 25 ms until the test holds it, so the run's 300-odd calls take seconds on any
// machine, and once held the run waits on the model: it is still running when the page reloads.
const SCRIPTED = ['boulware', 'linear', 'conceder', 'hardliner'];
const PACED = 'vllm:paced';
const SCENARIOS = 8; // 5 agents, 20 ordered pairs × 8 = 160 negotiations, 64 of them with the model
const PLANNED = 160;

/** The tab keeps base URLs in memory only: the Models page sets it again after each reload. */
async function pointVllmAt(page: Page, url: string, model: PacedModel): Promise<void> {
  await page.goto(`${url}#/models`);
  await page.getByLabel('vLLM base URL').fill(model.baseUrl);
}

async function startRun(page: Page, url: string, model: PacedModel): Promise<void> {
  await pointVllmAt(page, url, model);
  await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
  await configureTournament(page, SCRIPTED, SCENARIOS, 9);
  await page.getByLabel('Agent', { exact: true }).selectOption('remote model…');
  await page.getByLabel('Remote model', { exact: true }).fill(PACED);
  await page.getByRole('button', { name: `Add ${PACED}` }).click();
  await page.getByRole('button', { name: `Run ${PLANNED} negotiations` }).click();
}

/** Standings without the model's usage, whose latencies differ from run to run. */
const rates = (standings: unknown) => {
  const { usage: _usage, ...rest } = standings as { usage?: unknown };
  return rest;
};

describe('an interrupted run', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let model: PacedModel;

  beforeAll(async () => {
    model = await startPacedModel({ everyMs: 25 });
    ({ browser, page, url } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });

  it('is shown as interrupted after a reload and resumes to the same results as an uninterrupted run', async () => {
    await startRun(page, url, model);
    // As soon as some negotiations are stored, hold the model; reload (which ends the worker).
    await expect.poll(async () => (await storedRuns(page))[0]?.done ?? 0, { timeout: 60_000, interval: 50 }).toBeGreaterThan(0);
    model.hold();
    await page.reload();
    const [interrupted] = await storedRuns(page);
    expect(interrupted!.negotiations).toBeGreaterThan(0);
    expect(interrupted!.negotiations).toBeLessThan(PLANNED);
    expect(interrupted!.negotiations).toBe(interrupted!.done);

    model.allow();
    await pointVllmAt(page, url, model);
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    const row = page.locator(`tr[data-run-id="${interrupted!.id}"]`);
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('interrupted');
    await screenshot(page, 'runs-interrupted');
    await row.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 120_000 });

    await startRun(page, url, model);
    await page.getByText('Finished.').waitFor({ timeout: 120_000 });
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run).toMatchObject({ status: 'done', done: PLANNED, negotiations: PLANNED });
    expect(rates(runs[0]!.standings)).toEqual(rates(runs[1]!.standings));
  });
});
