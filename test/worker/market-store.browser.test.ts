/**
 * The simulation worker stores markets in the one store, as it stores negotiations: a market
 * tournament and a market game become run rows of the market game with their markets in batch
 * records beside digests; the worker exports either as a run file of the market game, imports it
 * back as a copy, and salvages and deletes it as it does any run.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { ALL_MARKET_CONFIGS } from '../../src/games/market/scenario';
import { openDb } from '../../src/storage';
import type { MarketRunConfig } from '../../src/storage/market-schema';
import { deleteRun, getRun, loadLines, storedJobIds } from '../../src/storage/runs';
import { SimClient, type SimMessage } from '../../src/worker/client';

// The real module worker, built by Vite as the app builds it; it writes to the app's database.
const client = new SimClient();
const db = openDb();
const created: string[] = [];

afterAll(async () => {
  client.terminate();
  for (const id of created) await deleteRun(db, id);
  db.close();
});

const CONFIG: MarketRunConfig = {
  sellers: ['catalog', 'greedy'],
  buyer: 'margin',
  configs: ALL_MARKET_CONFIGS.filter((c) => c.name === 'small' || c.name === 'scarce').map((c) => ({ ...c })),
  marketsPerConfig: 3,
  seed: 8,
  samples: 0,
};

/** The worker's first message that `pick` accepts. */
function next<T extends SimMessage>(pick: (m: SimMessage) => m is T): Promise<T> {
  return new Promise((resolve) => {
    const stop = client.subscribe((m) => {
      if (!pick(m)) return;
      stop();
      resolve(m);
    });
  });
}

describe('markets in the worker', () => {
  test('a market tournament is stored as a run of the market game, exported as a run file of that game, imported back, salvaged and deleted', async () => {
    const runId = crypto.randomUUID();
    created.push(runId);
    const finished = next(
      (m): m is Extract<SimMessage, { type: 'market.status' }> => m.type === 'market.status' && m.runId === runId && m.status !== 'running',
    );
    client.send({ type: 'market.start', runId, name: 'two sellers', config: CONFIG });
    expect(await finished).toMatchObject({ status: 'done', done: 12, planned: 12 });
    const run = await getRun(db, runId, 'market');
    expect(run).toMatchObject({ game: 'market', status: 'done', done: 12, planned: 12 });
    const { lines } = await loadLines(db, runId, 'market');
    expect(lines.map((m) => m.index)).toEqual([...Array(12).keys()]);
    expect(await storedJobIds(db, runId)).toEqual(new Set(lines.map((m) => m.id)));
    expect((await db.digests.where('[runId+first]').between([runId, 0], [runId, Infinity]).toArray()).map((d) => d.game)).toEqual(['market']);

    for (const format of ['json', 'jsonl'] as const) {
      const exported = await client.request({ type: 'export', requestId: crypto.randomUUID(), runId, format });
      if (exported.type !== 'exported') throw new Error(exported.message);
      expect(exported.fileName).toMatch(new RegExp(`^parley-market-two-sellers-${runId.slice(0, 8)}\\.${format}$`));
      const text = await exported.blob.text();
      expect(JSON.parse(format === 'json' ? text : text.split('\n')[0]!)).toMatchObject({ version: 4, game: 'market', run: { id: runId } });
      const imported = await client.request({ type: 'import', requestId: crypto.randomUUID(), file: new File([text], exported.fileName) });
      if (imported.type !== 'imported') throw new Error(imported.message);
      created.push(imported.runId);
      expect(imported.runId).not.toBe(runId);
      expect((await getRun(db, imported.runId, 'market'))?.standings).toEqual(run?.standings);
      expect((await loadLines(db, imported.runId, 'market')).lines).toEqual(lines);
    }

    const salvaged = await client.request({ type: 'salvage', requestId: crypto.randomUUID(), runId });
    if (salvaged.type !== 'exported') throw new Error(salvaged.message);
    const salvage = JSON.parse(await salvaged.blob.text()) as { game: string; markets: unknown[]; unreadable: unknown[] };
    expect([salvage.game, salvage.markets.length, salvage.unreadable]).toEqual(['market', 12, []]);
    await deleteRun(db, runId);
    expect(await getRun(db, runId, 'market')).toBeUndefined();
    expect(await loadLines(db, runId, 'market')).toEqual({ lines: [], total: 0 });
  });

  test('a market game played live is saved as a run of the market game with its one market', async () => {
    const gameId = crypto.randomUUID();
    created.push(gameId);
    const ended = next((m): m is Extract<SimMessage, { type: 'market.end' }> => m.type === 'market.end' && m.gameId === gameId);
    const config: MarketRunConfig = { ...CONFIG, sellers: ['explore'], configs: CONFIG.configs.slice(0, 1), marketsPerConfig: 1 };
    client.send({ type: 'market.play', gameId, config, delayMs: 0, paused: false, save: true });
    expect((await ended).runId).toBe(gameId);
    expect(await getRun(db, gameId, 'market')).toMatchObject({ game: 'market', status: 'done', done: 1, planned: 1, config: { game: true } });
    expect((await loadLines(db, gameId, 'market')).lines.map((m) => [m.id, m.index, m.seller])).toEqual([['small-0-0', 0, 'explore']]);
  });
});
