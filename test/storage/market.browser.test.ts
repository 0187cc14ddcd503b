/**
 * Market runs in the one store: a market tournament stored as it plays, through the writer every
 * game uses (batch records with a digest, each market counted once, resumed by its job ids),
 * exports and imports back with the same markets and standings; runs of both games share one
 * address space; a file with one changed event writes nothing; delete and salvage serve it as well.
 */
import { describe, expect, test } from 'vitest';
import { makeMarketAgent } from '../../src/games/market';
import { ALL_MARKET_CONFIGS } from '../../src/games/market/scenario';
import { runTournament } from '../../src/engine/tournament';
import { marketGame } from '../../src/games/market/game';
import type { ParleyDb } from '../../src/storage/db';
import { marketStandings } from '../../src/storage/market-file';
import { marketLine, tournamentOf, type MarketLine, type MarketRunConfig } from '../../src/storage/market-schema';
import { createRun, deleteRun, getRun, listRuns, loadLines, readRuns, salvageRun, storedJobIds, updateRun } from '../../src/storage/runs';
import { exportRunJson, exportRunJsonl, importRun } from '../../src/storage/transfer';
import { RunWriter } from '../../src/storage/writer';
import { freshDb, storedTournament } from './helpers';

const CONFIG: MarketRunConfig = {
  sellers: ['catalog', 'explore'],
  buyer: 'margin',
  configs: ALL_MARKET_CONFIGS.filter((c) => c.name === 'small' || c.name === 'held-out-4x9-lognormal').map((c) => ({ ...c })),
  marketsPerConfig: 3,
  seed: 11,
  samples: 200,
};

let played: Promise<MarketLine[]> | null = null;
/** CONFIG's 12 markets, played once by the core. */
function playedMarkets(): Promise<MarketLine[]> {
  played ??= (async () => {
    const lines: MarketLine[] = [];
    await runTournament(marketGame, tournamentOf(CONFIG), makeMarketAgent, { onResult: (r) => void lines.push(marketLine(r)) });
    return lines;
  })();
  return played;
}

/** CONFIG played and stored as the worker stores it: in plan order, through the writer. */
async function storedMarketRun(db: ParleyDb, id = 'market-run'): Promise<string> {
  await createRun(db, { game: 'market', id, name: 'two sellers', config: CONFIG, planned: 12, createdAt: 5_000 });
  const writer = new RunWriter(db, id, { game: 'market', now: () => 0 });
  for (const line of await playedMarkets()) await writer.add(line);
  await writer.flush();
  await updateRun(db, id, { status: 'done', standings: marketStandings(CONFIG, (await loadLines(db, id, 'market')).lines) });
  return id;
}

describe('market runs in the one store', () => {
  test('the writer stores markets as it stores negotiations: batch records with digests, each market once, resumed by job ids', async () => {
    const db = freshDb();
    const lines = await playedMarkets();
    await createRun(db, { game: 'market', id: 'm', name: 'two sellers', config: CONFIG, planned: 12, createdAt: 5_000 });
    const first = new RunWriter(db, 'm', { game: 'market', maxBatch: 5, maxDelayMs: Infinity });
    for (const line of [...lines.slice(0, 7), lines[2]!]) await first.add(line);
    await first.flush();
    expect((await getRun(db, 'm', 'market'))?.done).toBe(7);
    expect(await storedJobIds(db, 'm')).toEqual(new Set(lines.slice(0, 7).map((l) => l.id)));
    // A resumed run replays what it stored with what it did not: each market is stored and counted once.
    const resumed = new RunWriter(db, 'm', { game: 'market', maxBatch: 5, maxDelayMs: Infinity });
    for (const line of lines.slice(5)) await resumed.add(line);
    await resumed.flush();
    expect((await getRun(db, 'm', 'market'))?.done).toBe(12);
    expect(await loadLines(db, 'm', 'market')).toEqual({ lines, total: 12 });
    expect(await loadLines(db, 'm', 'market', { offset: 3, limit: 4 })).toEqual({ lines: lines.slice(3, 7), total: 12 });
    const digests = await db.digests.orderBy('[runId+first]').toArray();
    expect(digests.map((d) => [d.game, d.first, d.jobIds.length])).toEqual([
      ['market', 0, 5],
      ['market', 5, 2],
      ['market', 7, 3],
      ['market', 10, 2],
    ]);
    expect(digests.flatMap((d) => d.indexes)).toEqual(lines.map((_, i) => i));
    // The run is listed with the market runs only.
    expect((await readRuns(db, 'market')).runs.map((r) => r.id)).toEqual(['m']);
    expect(await listRuns(db)).toEqual([]);
    expect(await getRun(db, 'm')).toBeUndefined();
  });

  test.each(['json', 'jsonl'] as const)('a stored market tournament exported as %s imports back with the same markets and standings', async (format) => {
    const db = freshDb();
    const id = await storedMarketRun(db);
    const run = await getRun(db, id, 'market');
    expect(run?.done).toBe(12);
    expect(run?.standings?.some((r) => r.heldOut && r.scope === 'config')).toBe(true);
    const text = format === 'json' ? await exportRunJson(db, id) : await exportRunJsonl(db, id);
    const header = JSON.parse(format === 'json' ? text : text.split('\n')[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ format: format === 'json' ? 'parley-run' : 'parley-run-jsonl', version: 4, game: 'market', run: { id, done: 12 } });

    const other = freshDb();
    const imported = await importRun(other, text, { now: 9_000, game: 'any' });
    if (!imported.ok) throw new Error(imported.error.message);
    expect(imported.value).toMatchObject({ id, game: 'market', status: 'done', standings: run?.standings });
    expect(await loadLines(other, id, 'market')).toEqual(await loadLines(db, id, 'market'));
    // Into the database it came from: a copy under a new id, named as one.
    const copy = await importRun(db, text, { now: 9_000, game: 'market', newId: () => 'copy' });
    if (!copy.ok) throw new Error(copy.error.message);
    expect([copy.value.id, copy.value.name]).toEqual(['copy', 'two sellers (imported)']);
    expect(await loadLines(db, 'copy', 'market')).toEqual(await loadLines(db, id, 'market'));
    // A reader of bilateral runs (the class page's hand-in) refuses it for its game, writing nothing.
    const bilateral = await importRun(other, text, { now: 9_000 });
    expect(bilateral.ok ? null : bilateral.error.kind).toBe('wrong-game');
  });

  test('runs of both games share one address space: an import whose id the other game holds is stored under a new id', async () => {
    const db = freshDb();
    const marketId = await storedMarketRun(db, 'shared-id');
    await storedTournament(db, { id: 'bilateral' });
    const bilateralFile = (await exportRunJsonl(db, 'bilateral')).replace(/"id":"bilateral"/, `"id":"${marketId}"`);
    const bilateral = await importRun(db, bilateralFile, { now: 9_000, newId: () => 'fresh-bilateral' });
    expect(bilateral.ok && bilateral.value.id).toBe('fresh-bilateral');
    const marketFile = (await exportRunJsonl(db, marketId)).replace(`"id":"${marketId}"`, '"id":"bilateral"');
    const market = await importRun(db, marketFile, { now: 9_000, game: 'market', newId: () => 'fresh-market' });
    if (!market.ok) throw new Error(market.error.message);
    expect(market.value.id).toBe('fresh-market');
    expect((await listRuns(db)).map((r) => r.id).sort()).toEqual(['bilateral', 'fresh-bilateral']);
    expect((await listRuns(db, 'market')).map((r) => r.id).sort()).toEqual(['fresh-market', 'shared-id']);
  });

  test('a file with one changed event is refused, naming it, and nothing is written', async () => {
    const db = freshDb();
    const text = await exportRunJsonl(db, await storedMarketRun(db));
    const lines = text.split('\n');
    const market = JSON.parse(lines[5] as string);
    market.events[0].move.buyer = 'b99';
    lines[5] = JSON.stringify(market);
    const target = freshDb();
    const refused = await importRun(target, lines.join('\n'), { now: 1, game: 'any' });
    expect(refused.ok ? null : refused.error.message).toMatch(
      /^line 6 \(market "small-2-0"\): events\[0\] \(move at turn 0\): an illegal move: unknown buyer "b99"/,
    );
    expect([await target.runs.count(), await target.batches.count(), await target.digests.count()]).toEqual([0, 0, 0]);
  });

  test('one delete takes a market run with all its markets; one salvage reads what is left of a damaged one', async () => {
    const db = freshDb();
    const id = await storedMarketRun(db);
    await storedTournament(db, { id: 'bilateral' });
    const batch = (await db.batches.get(`${id}:0`))!;
    await db.batches.update(batch.id, { negotiations: [batch.negotiations[0]!, '{ not json', ...batch.negotiations.slice(2)] });
    await db.runs.update(id, { config: null as never });
    expect((await readRuns(db, 'market')).damaged).toEqual([
      { game: 'market', id, name: 'two sellers', createdAt: 5_000, problem: expect.stringMatching(/^config: /) },
    ]);
    const salvaged = JSON.parse((await salvageRun(db, id))!.text) as Record<string, unknown>;
    expect(salvaged).toMatchObject({
      format: 'parley-salvage',
      version: 2,
      game: 'market',
      record: { id, config: null },
      unreadable: [{ batch: batch.id, at: 1, problem: 'not JSON' }],
    });
    expect((salvaged.markets as MarketLine[]).map((m) => m.id)).toEqual((await playedMarkets()).filter((_, i) => i !== 1).map((m) => m.id));

    await deleteRun(db, id);
    expect(await db.runs.get(id)).toBeUndefined();
    expect((await db.batches.toArray()).map((b) => b.runId)).toEqual(['bilateral']);
    expect((await db.digests.toArray()).map((d) => d.runId)).toEqual(['bilateral']);
  });
});
