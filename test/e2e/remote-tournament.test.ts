/**
 * The real HTTP clients, run by the app in Chromium: a whole tournament between an
 * OpenAI-compatible (vLLM preset), an Anthropic and a Gemini model and a scripted strategy, all
 * three answered by the local chat server as a model that reads its prompt. Every stored model
 * move is checked against what that model does for the prompt on its call record, and every
 * request against the headers its provider takes from a browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Browser } from './harness';
import { configureTournament, openApp, storedNegotiations, storedRuns } from './pages';
import { malformed, rateLimited, start, type ChatServer } from '../support/chat-server';
import { policy, policyAnswer } from '../support/policy-model';
import type { BilateralEvent } from '../../src/games/bilateral/events';

const KEYS = { vLLM: 'sk-vllm-e2e-1a2b3c', Anthropic: 'sk-ant-e2e-4d5e6f', Gemini: 'gm-e2e-7a8b9c' };
const AGENTS = ['vllm:m', 'anthropic:claude-test', 'gemini:gemini-test'];

interface StoredNegotiation {
  runId: string;
  buyer: string;
  seller: string;
  events: BilateralEvent[];
}

describe('a tournament of remote models over the real HTTP clients in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let errors: string[];
  let server: ChatServer;

  beforeAll(async () => {
    // The prompt-reading model, but one answer it cannot parse and one 429 along the way.
    server = await start((req) => (req.index === 4 ? malformed('About a hundred, I think.') : req.index === 9 ? rateLimited(1) : policyAnswer(req)));
    ({ browser, page, url, errors } = await openApp());
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('stores every model move as the model made it, with the right headers to each provider', async () => {
    await page.goto(`${url}#/models`);
    await page.getByLabel('vLLM base URL').fill(`${server.url}/v1`);
    for (const [label, key] of Object.entries(KEYS)) {
      await page.getByLabel(`${label} API key`, { exact: false }).first().fill(key);
      if (label !== 'vLLM') await page.getByLabel(`${label} base URL`).fill(server.url);
    }
    await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
    await configureTournament(page, ['boulware'], 1, 5);
    for (const spec of AGENTS) {
      await page.getByLabel('Agent', { exact: true }).selectOption('remote model…');
      await page.getByLabel('Remote model', { exact: true }).fill(spec);
      await page.getByRole('button', { name: `Add ${spec}` }).click();
    }
    await page.getByRole('button', { name: 'Run 12 negotiations' }).click();
    await page.getByText('Finished.').waitFor({ timeout: 60_000 });
    const run = (await storedRuns(page)).find((r) => r.status === 'done' && r.negotiations === 12);
    expect(run).toBeDefined();

    const rows = (await storedNegotiations<StoredNegotiation>(page)).filter((r) => r.runId === run?.id);
    expect(rows).toHaveLength(12);
    let moves = 0;
    let invalid = 0;
    for (const row of rows) {
      for (const role of ['buyer', 'seller'] as const) {
        const spec = row[role];
        if (!AGENTS.includes(spec)) continue;
        const backend = spec.split(':')[0] === 'vllm' ? 'vllm' : spec.split(':')[0];
        for (const e of row.events) {
          if ((e.type !== 'move' && e.type !== 'invalid') || e.actor !== role) continue;
          expect(e.call?.backend).toBe(backend);
          if (e.type === 'invalid') {
            invalid++;
            expect(e.raw).toBe('About a hundred, I think.');
            continue;
          }
          moves++;
          expect(e.move).toEqual(policy(e.call?.prompt ?? ''));
        }
      }
      expect(row.events.at(-1)).toMatchObject({ type: 'end' });
      expect((row.events.at(-1) as Extract<BilateralEvent, { type: 'end' }>).outcome.kind).not.toBe('error');
    }
    expect(invalid).toBe(1);
    // Every request but the one answered 429 is a call on a stored event.
    expect(server.requests).toHaveLength(moves + invalid + 1);

    for (const req of server.requests) {
      if (req.route === 'openai') expect(req.headers.authorization).toBe(`Bearer ${KEYS.vLLM}`);
      if (req.route === 'anthropic') {
        expect(req.headers['x-api-key']).toBe(KEYS.Anthropic);
        expect(req.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
      }
      if (req.route === 'gemini') expect(req.headers['x-goog-api-key']).toBe(KEYS.Gemini);
      // No key is sent to another provider's route.
      const sent = JSON.stringify(req.headers);
      for (const [label, key] of Object.entries(KEYS))
        if (label !== { openai: 'vLLM', anthropic: 'Anthropic', gemini: 'Gemini' }[req.route]) expect(sent).not.toContain(key);
    }
    expect(new Set(server.requests.map((r) => r.route))).toEqual(new Set(['openai', 'anthropic', 'gemini']));
    expect(errors).toEqual([]);
  });
});
