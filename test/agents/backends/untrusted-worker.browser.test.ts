/**
 * A misbehaving model served to the app's own simulation worker, with the app's IndexedDB: a key
 * longer than the worker used to take, usage figures no provider could mean, and huge answers with
 * no move in them. The live game reaches the page event by event, it is stored, its export imports,
 * and a tournament of such answers finishes with a bounded record. Real servers on 127.0.0.1.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import type {} from '../../support/chat-server-commands';
import type { Answer } from '../../support/chat-server';
import { MAX_CALL_TOKENS } from '../../../src/agents/backends/types';
import { DEFAULT_LLM_SETTINGS } from '../../../src/agents/llm/settings';
import { MAX_NEGOTIATION_RECORD_CHARS } from '../../../src/agents/llm/record';
import { makeScenario } from '../../../src/games/bilateral/scenario';
import type { BilateralEvent } from '../../../src/games/bilateral/events';
import { deleteRun, getRun, openDb } from '../../../src/storage';
import { loadNegotiations } from '../../../src/storage/runs';
import { readRunFile } from '../../../src/storage/run-file';
import { SimClient } from '../../../src/worker/client';
import type { FromWorker, RemoteConfig } from '../../../src/worker/messages';

const client = new SimClient();
const db = openDb();
const runs: string[] = [];
const servers: string[] = [];
/** A key as long as a gateway's JWT: the worker once dropped any message with a key over 1,000 characters. */
const LONG_KEY = `eyJ${'aB3-_x9Z'.repeat(200)}`.slice(0, 1500);

afterEach(async () => {
  for (const id of servers.splice(0)) await commands.chatServerClose(id);
});
afterAll(async () => {
  client.terminate();
  for (const id of runs) await deleteRun(db, id);
  db.close();
});

async function serve(answers: Answer[]) {
  const s = await commands.chatServerStart(answers, { repeat: true });
  servers.push(s.id);
  return s;
}

const remote = (url: string): RemoteConfig => ({ providers: { vllm: { baseUrl: `${url}/v1`, apiKey: LONG_KEY } } });
const scenario = (turnLimit: number) =>
  makeScenario('untrusted', { id: 'widget', name: 'Widget', category: 'test', listPrice: 200 }, 150, 90, { turnLimit, firstMover: 'buyer' });

describe('a misbehaving model in the worker', () => {
  test('an Arena game with a 1,500-character key and usage of 1e20 tokens: every move reaches the page, is stored and exports', async () => {
    const s = await serve([
      { kind: 'reply', content: '{"message":"Eighty.","action":{"type":"offer","price":80}}', tokensIn: 1e20, tokensOut: Number.MAX_VALUE },
    ]);
    const gameId = crypto.randomUUID();
    const events: BilateralEvent[] = [];
    const failures: string[] = [];
    const ended = new Promise<string | null>((resolve) => {
      const stop = client.subscribe((m: FromWorker | { type: 'worker.stopped' }) => {
        if (m.type === 'arena.event' && m.gameId === gameId) events.push(m.event);
        if (m.type === 'failed') failures.push(m.message);
        if (m.type === 'arena.end' && m.gameId === gameId) {
          stop();
          resolve(m.runId);
        }
      });
    });
    client.send({
      type: 'arena.start',
      gameId,
      scenario: scenario(6),
      buyer: 'vllm:m',
      seller: 'hardliner',
      delayMs: 0,
      paused: false,
      save: true,
      remote: remote(s.url),
      llm: { ...DEFAULT_LLM_SETTINGS, interface: 'json' },
    });
    const runId = await ended;
    expect(failures).toEqual([]);
    if (runId === null) throw new Error('the game was not saved');
    runs.push(runId);
    const requests = await commands.chatServerRequests(s.id);
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${LONG_KEY}`);
    // One buyer move for each call the model answered: none was dropped on the way to the page.
    const buyerMoves = events.filter((e) => e.type === 'move' && e.actor === 'buyer');
    expect(buyerMoves.length).toBe(requests.length);
    expect(buyerMoves.length).toBeGreaterThan(0);
    for (const e of buyerMoves) expect(e.type === 'move' && e.call).toMatchObject({ tokensIn: MAX_CALL_TOKENS, tokensOut: MAX_CALL_TOKENS });
    expect(events.at(-1)?.type).toBe('end');

    const stored = await loadNegotiations(db, runId);
    expect(stored.total).toBe(1);
    expect(stored.rows[0]?.events).toHaveLength(events.length);
    const exported = await client.request({ type: 'export', requestId: crypto.randomUUID(), runId, format: 'json' });
    if (exported.type === 'failed') throw new Error(`the export failed: ${exported.message}`);
    const checked = readRunFile(await exported.blob.text());
    if (!checked.ok) throw new Error(`the export does not import: ${checked.error.message}`);
    expect(checked.value.rows).toHaveLength(1);
  });

  test('a tournament of huge answers with no move in them finishes, stored whole and bounded', { timeout: 120_000 }, async () => {
    const junk = 'blah '.repeat(50_000);
    const s = await serve([{ kind: 'reply', content: junk, thinking: junk }]);
    const runId = crypto.randomUUID();
    runs.push(runId);
    const status = new Promise<FromWorker & { type: 'run.status' }>((resolve) => {
      const stop = client.subscribe((m) => {
        if (m.type === 'run.status' && m.runId === runId && m.status !== 'running') {
          stop();
          resolve(m);
        }
      });
    });
    client.send({
      type: 'run.start',
      runId,
      name: 'huge answers',
      config: {
        agents: ['vllm:m', 'hardliner'],
        scenariosPerPair: 1,
        preset: 'standard',
        seed: 5,
        selfPlay: false,
        deadline: { kind: 'fixed', turns: 60 },
        firstMover: 'buyer',
        llm: { ...DEFAULT_LLM_SETTINGS, interface: 'json' },
      },
      remote: remote(s.url),
    });
    expect(await status).toMatchObject({ status: 'done', done: 2, planned: 2 });
    expect((await getRun(db, runId))?.status).toBe('done');
    const { rows, total } = await loadNegotiations(db, runId);
    expect(total).toBe(2);
    for (const row of rows) {
      const invalid = row.events.filter((e) => e.type === 'invalid');
      expect(invalid.length).toBeGreaterThan(0);
      for (const e of invalid) expect(e.call?.raw).toBeUndefined();
      expect(JSON.stringify(row.events).length).toBeLessThan(MAX_NEGOTIATION_RECORD_CHARS / 2);
    }
  });
});
