/**
 * A game registered at run time (the ultimatum test game, test/support/games/) plays through the
 * run controller's loop as the command line drives it, into the command line's JSONL writer; the one
 * run-file reader and `parley check` read the file back like a built-in game's.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunJsonlWriter } from '../../src/cli/jsonl';
import { playCliRun } from '../../src/cli/play-run';
import { runTournament } from '../../src/engine/tournament';
import { registerGame, runGameOf } from '../../src/runs/index';
import { readRunFile } from '../../src/storage/run-file';
import { makeUltimatumAgent, ultimatumGame, type UltimatumConfig, type UltimatumResult } from '../support/games/ultimatum';
import { ultimatumLines, ultimatumParts, ultimatumRuns } from '../support/games/ultimatum-parts';
import { runCli } from './helpers';

const CONFIG: UltimatumConfig = { proposers: ['fair', 'greedy', 'random'], responders: ['accept', 'proud', 'random'], rounds: 4, seed: 5 };

const dir = mkdtempSync(join(tmpdir(), 'parley-registered-'));
const path = join(dir, 'ultimatum.jsonl');
// Node's test workers share one module graph between files: the game leaves with this file.
let unregister = () => {};
beforeAll(async () => {
  unregister = registerGame(ultimatumParts);
  const writer = await RunJsonlWriter.open(path, ultimatumLines);
  const io = { out: () => {}, err: () => {}, now: () => 1_700_000_000_000 };
  const summary = await playCliRun(ultimatumRuns, CONFIG, {
    io,
    makeAgent: makeUltimatumAgent,
    tally: ultimatumRuns.tally(),
    writer,
    named: () => ({ id: 'ultimatum-cli', name: 'ultimatum from the command line', config: CONFIG }),
  });
  expect(summary.status).toBe('done');
});
afterAll(() => {
  unregister();
  rmSync(dir, { recursive: true, force: true });
});

const unbroken = async (): Promise<UltimatumResult[]> => {
  const out: UltimatumResult[] = [];
  await runTournament(ultimatumGame, CONFIG, makeUltimatumAgent, { onResult: (r) => void out.push(r) });
  return out;
};

describe('a registered game on the command line', () => {
  it('is found by name in the run registry, as the built-in games are', () => {
    expect(runGameOf('ultimatum')).toBe(ultimatumRuns);
  });

  it('its run file reads back through the one reader, every game of the plan in order', async () => {
    const text = readFileSync(path, 'utf8');
    const checked = readRunFile(text, statSync(path).size, 'any');
    if (!checked.ok) throw new Error(checked.error.message);
    expect(checked.value.game).toBe('ultimatum');
    expect(checked.value.run).toMatchObject({ id: 'ultimatum-cli', status: 'done', planned: 36, done: 36, config: CONFIG });
    expect(checked.value.rows).toEqual(await unbroken());
  });

  it('parley check reads it as the import does, and refuses it edited', async () => {
    expect(await runCli(['check', path])).toEqual({ status: 0, out: 'ok: ultimatum from the command line, 36 games\n', err: '' });
    // A greedy offer made fair: still a legal move, but not what ends that log.
    const lines = readFileSync(path, 'utf8').split('\n');
    const line = JSON.parse(lines[2] as string) as UltimatumResult;
    const move = line.events[0];
    if (move?.type !== 'move' || !('offer' in move.move)) throw new Error('the first event is an offer');
    move.move.offer += 1;
    lines[2] = JSON.stringify(line);
    writeFileSync(join(dir, 'edited.jsonl'), lines.join('\n'));
    const refused = await runCli(['check', join(dir, 'edited.jsonl')]);
    expect(refused.status).toBe(2);
    expect(refused.err).toMatch(
      /^parley: error: .*edited\.jsonl: line 3: events\[2\]: the log ends in a split of \d+ and \d+, but its moves end the ultimatum game in a split of \d+ and \d+\n$/,
    );
  });

  it('refuses a second game under a name already taken, or parts that name different games', () => {
    expect(() => registerGame(ultimatumParts)).toThrow('a game named "ultimatum" is already registered');
    expect(() => registerGame({ ...ultimatumParts, runs: { ...ultimatumRuns, game: 'bilateral' } })).toThrow(/must share its name/);
  });

  it('once taken away again, its files are of no game this Parley knows', () => {
    unregister();
    const checked = readRunFile(readFileSync(path, 'utf8'), undefined, 'any');
    expect(checked.ok ? null : checked.error.message).toBe('line 1: game: "ultimatum" is no game this Parley knows (bilateral, market)');
    unregister = registerGame(ultimatumParts);
  });
});
