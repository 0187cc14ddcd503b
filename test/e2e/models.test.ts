import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, screenshot, storedRuns } from './pages';
import { move, start, type ChatServer } from '../support/chat-server';

const KEY = 'sk-e2e-typed-key-40d1b7';

describe('Models page and a remote agent in a tournament', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];
  let server: ChatServer;

  beforeAll(async () => {
    // Every request is answered with a walk-away: quick, and a valid move.
    server = await start(() => move({ message: 'Not for me, thanks.', action: { type: 'walk_away' } }));
    ({ browser, page, url, errors } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the WebGPU report and tests a connection to a local OpenAI-compatible server', async () => {
    await page.goto(`${url}#/models`);
    await page.getByTestId('gpu-summary').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('gpu-summary').textContent()).toContain('q4f32');
    await page.getByLabel('vLLM API key').fill(KEY);
    await page.getByLabel('vLLM base URL').fill(`${server.url}/v1`);
    await page.getByLabel('vLLM model to test').fill('test-model');
    await page.getByRole('button', { name: 'Test vLLM connection' }).click();
    await page.getByText('Connection ok: test-model answered.').waitFor({ timeout: 15_000 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    await screenshot(page, 'models');
  });

  it('runs a tournament with vllm:test-model against a scripted strategy', async () => {
    // Through the nav, not a reload: the key is held in memory only.
    await page.getByRole('link', { name: 'Tournament' }).click();
    await configureTournament(page, ['boulware'], 3, 2);
    // The model that answered the connection test is offered by name.
    await page.getByLabel('Agent', { exact: true }).selectOption('vllm:test-model');
    await page.getByRole('button', { name: 'Add vllm:test-model' }).click();
    await page.getByRole('button', { name: 'Run 6 negotiations' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 30_000 });
    const leaderboard = (await page.locator('section[aria-labelledby="leaderboard-title"] table').textContent()) ?? '';
    expect(leaderboard).toContain('vllm:test-model');
    expect(leaderboard).toContain('boulware');
    const runs = await storedRuns(page);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'done', done: 6, negotiations: 6 });
    const calls = server.requests.slice(1);
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(calls.every((r) => r.model === 'test-model' && r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('never writes the typed key into the exported run file', async () => {
    await page.goto(`${url}#/runs`);
    const row = page.locator('tr[data-run-id]').first();
    await row.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Export JSON', exact: true }).click()]);
    const exported = await readFile((await download.path()) as string, 'utf8');
    expect(exported).toContain('vllm:test-model');
    expect(exported).not.toContain(KEY);
    expect(exported).not.toContain(server.url);
    expect(errors).toEqual([]);
  });
});
