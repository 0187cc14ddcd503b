import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedRuns } from './pages';

const MARKUP = '<img src=x onerror="window.__pwned=1"><b>bold</b>';

describe('Tournament and Runs', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];
  let runId = '';
  let exported = '';
  let leaderboardText = '';

  beforeAll(async () => {
    ({ browser, page, url, errors } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('runs a small tournament and shows leaderboard, tier charts, head-to-head and price distribution', async () => {
    await page.goto(`${url}#/tournament`);
    await configureTournament(page, ['boulware', 'conceder', 'hardliner'], 8, 4);
    await page.getByRole('button', { name: 'Run 48 negotiations' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByText('48 / 48').count()).toBeGreaterThan(0);
    const rows = page.locator('section[aria-labelledby="leaderboard-title"] tbody tr');
    expect(await rows.count()).toBe(6);
    leaderboardText = (await page.locator('section[aria-labelledby="leaderboard-title"] table').textContent()) ?? '';
    // Final standings carry 95% intervals.
    expect(leaderboardText).toMatch(/\d+\.\d%\s*\d+\.\d%–\d+\.\d%/);
    // Surplus share and deal rate, each by price tier and by zone width (the sections below the
    // leaderboard and their charts come one task after another).
    await expect.poll(() => page.locator('section[aria-labelledby="tiers-title"] canvas').count()).toBe(4);
    await expect.poll(() => page.locator('section[aria-labelledby="prices-title"] canvas').count()).toBe(1);
    await expect.poll(() => page.locator('section[aria-labelledby="h2h-title"] tbody tr').count()).toBe(3);
    await screenshot(page, 'tournament');
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'done', done: 48, negotiations: 48 });
    runId = runs[0]!.id;
  });

  it('still has the run after a reload, and reopens it from storage', async () => {
    await page.reload();
    await page.goto(`${url}#/runs`);
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('done');
    await screenshot(page, 'runs');
    await row.getByRole('link').click();
    await page.locator('section[aria-labelledby="leaderboard-title"] table').waitFor();
    expect(await page.locator('section[aria-labelledby="leaderboard-title"] table').textContent()).toBe(leaderboardText);
    await expect.poll(() => page.getByText('48 matching negotiations').count()).toBe(1);
    await page.getByLabel('Outcome').selectOption('deal');
    await expect.poll(async () => (await page.getByRole('status').filter({ hasText: 'matching' }).textContent()) ?? '').not.toContain('48 matching');
    await screenshot(page, 'run');
    await page.locator('table.list tbody tr a').first().click();
    const stepper = page.getByRole('group', { name: 'Step through the events' });
    await stepper.waitFor();
    expect(await page.getByText(/Buyer's value \(private\)/).count()).toBe(1);
    expect(await page.getByText(/Seller's cost \(private\)/).count()).toBe(1);
    const bubbles = page.locator('ol.transcript li');
    const all = await bubbles.count();
    await stepper.getByRole('button', { name: 'Start' }).click();
    expect(await bubbles.count()).toBe(0);
    await stepper.getByRole('button', { name: 'Next' }).click();
    expect(await bubbles.count()).toBe(1);
    await stepper.getByRole('button', { name: 'End' }).click();
    expect(await bubbles.count()).toBe(all);
    await screenshot(page, 'negotiation');
  });

  it('exports the run, deletes it, and imports it back unchanged', async () => {
    await page.goto(`${url}#/runs`);
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    const [json] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Export JSON', exact: true }).click()]);
    const path = join(tmpdir(), `parley-e2e-${Date.now()}.json`);
    await json.saveAs(path);
    exported = await readFile(path, 'utf8');
    const doc = JSON.parse(exported);
    expect(doc.format).toBe('parley-run');
    expect(doc.negotiations).toHaveLength(48);
    const [jsonl] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Export JSONL' }).click()]);
    const lines = (await readFile((await jsonl.path()) as string, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(49);

    await row.getByRole('button', { name: /^Delete/ }).click();
    await row.getByRole('button', { name: 'Confirm delete' }).click();
    await expect.poll(() => page.locator(`tr[data-run-id="${runId}"]`).count()).toBe(0);
    expect(await storedRuns(page)).toEqual([]);

    await page.getByLabel('Run file to import').setInputFiles(path);
    await expect.poll(() => page.locator(`tr[data-run-id="${runId}"]`).count()).toBe(1);
    const runs = await storedRuns(page);
    expect(runs).toMatchObject([{ id: runId, status: 'done', done: 48, negotiations: 48 }]);
    await page.locator(`tr[data-run-id="${runId}"]`).getByRole('link').click();
    await page.locator('section[aria-labelledby="leaderboard-title"] table').waitFor();
    expect(await page.locator('section[aria-labelledby="leaderboard-title"] table').textContent()).toBe(leaderboardText);
  });

  it('rejects a broken file with a clear message and changes nothing', async () => {
    await page.goto(`${url}#/runs`);
    const before = await storedRuns(page);
    const truncated = join(tmpdir(), `parley-e2e-truncated-${Date.now()}.json`);
    await writeFile(truncated, exported.slice(0, Math.floor(exported.length / 2)));
    await page.getByLabel('Run file to import').setInputFiles(truncated);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Could not import parley-e2e-truncated-\d+\.json: .*(truncated|JSON)/i);
    await screenshot(page, 'import-error');
    expect(await storedRuns(page)).toEqual(before);

    const wrongType = JSON.parse(exported);
    wrongType.negotiations[3].events[0].move.action = { type: 'offer', price: 'cheap' };
    const bad = join(tmpdir(), `parley-e2e-bad-${Date.now()}.json`);
    await writeFile(bad, JSON.stringify(wrongType));
    await page.getByLabel('Run file to import').setInputFiles(bad);
    await expect.poll(async () => (await page.getByRole('alert').textContent()) ?? '').toMatch(/negotiations\[3\]\.events\[0\]/);
    expect(await storedRuns(page)).toEqual(before);
  });

  it('shows markup in a message as text, never as HTML', async () => {
    // A model wrote the markup: the hardliner's seat becomes a model's (an import replays scripted
    // seats, and refuses a message the strategy never says), and one of its moves says it.
    const MODEL = 'vllm:markup-model';
    const doc = JSON.parse(exported.replaceAll('"hardliner"', JSON.stringify(MODEL)));
    doc.run.id = 'markup-run';
    doc.run.name = `Markup ${MARKUP}`;
    type Row = { jobId: string; buyer: string; seller: string; events: { type: string; actor: string; move: { message?: string } }[] };
    const first = (doc.negotiations as Row[]).find((n) => n.buyer === MODEL || n.seller === MODEL);
    if (!first) throw new Error('no negotiation with the model seat');
    const role = first.buyer === MODEL ? 'buyer' : 'seller';
    const move = first.events.find((e) => e.type === 'move' && e.actor === role);
    if (!move) throw new Error('the model seat made no move');
    move.move.message = MARKUP;
    const path = join(tmpdir(), `parley-e2e-markup-${Date.now()}.json`);
    await writeFile(path, JSON.stringify(doc));
    await page.goto(`${url}#/runs`);
    await page.getByLabel('Run file to import').setInputFiles(path);
    const row = page.locator('tr[data-run-id="markup-run"]');
    await row.waitFor();
    expect(await row.getByRole('link').textContent()).toBe(`Markup ${MARKUP}`);
    await page.goto(`${url}#/runs/markup-run/${first.jobId}`);
    const transcript = page.locator('ol.transcript');
    await transcript.waitFor();
    expect(await transcript.textContent()).toContain(MARKUP);
    expect(await transcript.locator('img, b').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
