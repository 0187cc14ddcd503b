/**
 * A GPU lost after load in a market tournament, as in a bilateral one (webllm-loss.browser.test.ts):
 * in Chromium with real IndexedDB and Web Locks, the worker's run over the engine pool of fake
 * engines pauses after the market in which the device went, with that market stored as an error
 * and nothing played against the dead engine; resuming finishes the run with a fresh engine.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { LoadedEngine } from '../../src/agents/backends/webllm/engine';
import { GPU_LOST_MESSAGE } from '../../src/agents/backends/webllm/errors';
import { EnginePool } from '../../src/agents/backends/webllm/pool';
import { ALL_MARKET_CONFIGS } from '../../src/games/market/scenario';
import { openDb } from '../../src/storage';
import type { MarketRunConfig } from '../../src/storage/market-schema';
import { getRun, loadLines } from '../../src/storage/runs';
import type { FromWorker } from '../../src/worker/messages';
import { WorkerRun, type RunHost } from '../../src/worker/tournament-run';
import { fakeEngine, type FakeEngine, type FakeModel } from '../agents/backends/webllm/fake-engine';

const MODEL = 'Qwen3-0.6B-q4f32_1-MLC';
const db = openDb(`parley-market-webllm-loss-${crypto.randomUUID()}`);

afterAll(async () => {
  db.close();
  await db.delete();
});

const CONFIG: MarketRunConfig = {
  sellers: [`webllm:${MODEL}`, 'greedy'],
  buyer: 'margin',
  configs: ALL_MARKET_CONFIGS.filter((c) => c.name === 'small').map((c) => ({ ...c })),
  marketsPerConfig: 3,
  seed: 8,
  samples: 0,
};
const PLANNED = 2 * 3;

// The seller model's answer does not matter here: a refused move is recorded and the market goes on.
const answer: FakeModel = () => JSON.stringify({ buyer: 'b1', product: 'p1', price: 100, message: 'A fine product.' });

describe('a GPU lost after load, in a market tournament', () => {
  test('pauses the run after the market in which it went, with the words of a lost device; resuming finishes it', async () => {
    const fakes: FakeEngine[] = [];
    const engines = new EnginePool(async (modelId): Promise<LoadedEngine> => {
      // The first engine's device goes at its third answer; a fresh one after the resume keeps its GPU.
      const engine = fakeEngine(fakes.length === 0 ? (req, i) => (i === 2 ? { lose: true } : answer(req, i)) : answer, { loaded: [modelId] });
      fakes.push(engine);
      return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: () => engine.unload() };
    });
    const posted: FromWorker[] = [];
    const host: RunHost = { db, post: (m) => posted.push(m), now: () => Date.now(), engines };
    const runId = crypto.randomUUID();
    const run = await WorkerRun.start(host, 'market', runId, 'market webllm loss', CONFIG);

    expect(await run.play()).toBe('paused');
    const paused = await getRun(db, runId, 'market');
    expect(paused?.message).toMatch(
      new RegExp(`^${GPU_LOST_MESSAGE.replace(/[.()]/g, '\\$&')} The run was paused after \\d+ markets?; nothing saved was lost`),
    );
    expect(posted.at(-1)).toMatchObject({ type: 'market.status', runId, status: 'paused', message: paused?.message, done: paused?.done, planned: PLANNED });
    const stored = (await loadLines(db, runId, 'market')).lines;
    expect(stored.length).toBeLessThan(PLANNED);
    // One market ended at the lost move, and it was the last one played: none after it met the dead engine.
    expect(stored.filter((m) => m.outcome.kind === 'error')).toHaveLength(1);
    expect(stored.at(-1)?.outcome).toMatchObject({ kind: 'error', message: GPU_LOST_MESSAGE });
    expect(fakes[0]?.requests).toHaveLength(3);

    expect(await new WorkerRun(host, 'market', runId).play()).toBe('done');
    expect(fakes).toHaveLength(2);
    const all = (await loadLines(db, runId, 'market')).lines;
    expect(all.map((m) => m.index)).toEqual([...Array(PLANNED).keys()]);
    expect(all.filter((m) => m.outcome.kind === 'error')).toHaveLength(1);
    expect(await getRun(db, runId, 'market')).toMatchObject({ status: 'done', done: PLANNED, message: null });
  });
});
