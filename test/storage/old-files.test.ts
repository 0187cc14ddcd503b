/**
 * Files written before runs of both games shared one run-file format still import: the app's
 * `parley-run` exports (no game in the header: bilateral), its `parley-market` and
 * `parley-market-jsonl` exports, and what the command line wrote (test/fixtures/runs-v5 says how
 * each was made). Each reads as a run of its game, whole, its lines in plan order; a market's
 * plan index, which those files do not name, comes from the plan.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { storeOf } from '../../src/storage/games';
import { readRunFile } from '../../src/storage/run-file';

const read = (name: string): string => readFileSync(new URL(`../fixtures/runs-v5/${name}`, import.meta.url), 'utf8');

describe('run files written before the one run-file format', () => {
  it.each([
    ['bilateral-tournament.json', 'bilateral', 'a bilateral tournament', 4],
    ['bilateral-tournament.jsonl', 'bilateral', 'a bilateral tournament', 4],
    ['arena-game.json', 'bilateral', 'linear buys from conceder', 1],
    ['arena-game.jsonl', 'bilateral', 'linear buys from conceder', 1],
    ['cli-tournament.jsonl', 'bilateral', 'CLI tournament: boulware, tit-for-tat (2 standard scenarios per pair, seed 5)', 4],
    ['market-tournament.json', 'market', 'two sellers on small markets', 4],
    ['market-tournament.jsonl', 'market', 'two sellers on small markets', 4],
    ['market-game.json', 'market', 'explore sells to 3 buyers (small)', 1],
    ['market-game.jsonl', 'market', 'explore sells to 3 buyers (small)', 1],
    ['cli-market-tournament.jsonl', 'market', 'CLI market tournament: catalog, explore (2 markets per configuration, seed 6)', 4],
  ] as const)('%s imports as a %s run', (name, game, runName, lines) => {
    const checked = readRunFile(read(name), undefined, 'any');
    if (!checked.ok) throw new Error(checked.error.message);
    expect(checked.value.game).toBe(game);
    expect(checked.value.run.name).toBe(runName);
    expect(checked.value.rows).toHaveLength(lines);
    // 'any' takes registered games too, whose lines only their descriptor reads.
    const store = storeOf(checked.value.game);
    expect(checked.value.rows.map((r) => store.index(r))).toEqual([...Array(lines).keys()]);
  });

  it('a JSON export and a JSONL export of one run read the same', () => {
    for (const run of ['bilateral-tournament', 'arena-game', 'market-tournament', 'market-game'])
      expect(readRunFile(read(`${run}.json`), undefined, 'any'), run).toEqual(readRunFile(read(`${run}.jsonl`), undefined, 'any'));
  });

  it('a market file written before, edited, is refused as a file of today is', () => {
    const lines = read('cli-market-tournament.jsonl').split('\n');
    const market = JSON.parse(lines[2]!) as { seller: string };
    market.seller = 'catalog';
    lines[2] = JSON.stringify(market);
    const refused = readRunFile(lines.join('\n'), undefined, 'market');
    expect(refused.ok ? null : refused.error.message).toBe(`line 3 (market "small-0-1"): seller is "catalog" but the run's plan has "explore"`);
  });

  it('a reader of bilateral runs refuses an old market file for its game', () => {
    const refused = readRunFile(read('market-game.json'));
    expect(refused.ok ? null : refused.error).toEqual({ kind: 'wrong-game', message: 'the file holds a market run; only a bilateral run is read here' });
  });
});
