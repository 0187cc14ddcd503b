/**
 * Market run files in Node: the file `market-tournament --jsonl` writes (a run file of the market
 * game) passes the app's import check, and its standings recomputed there are the CLI's own; a
 * changed file is refused with a message that names the problem and where it is.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketStandings } from '../../src/storage/market-file';
import { readRunFile } from '../../src/storage/run-file';
import { runCli } from '../cli/helpers';

let dir: string;
let text: string;
let cliStandings: unknown;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-market-file-'));
  const path = join(dir, 'run.jsonl');
  const r = await runCli([
    'market-tournament',
    '--sellers',
    'catalog,greedy',
    '--configs',
    'small,held-out-4x9-lognormal',
    '--markets',
    '3',
    '--seed',
    '4',
    '--samples',
    '200',
    '--json',
    '--jsonl',
    path,
  ]);
  expect(r.status, r.err).toBe(0);
  cliStandings = (JSON.parse(r.out) as { standings: unknown }).standings;
  text = await readFile(path, 'utf8');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The file with line `n` (1-based) changed by `edit`. */
function edited(n: number, edit: (value: Record<string, any>) => void): string {
  const lines = text.split('\n');
  const value = JSON.parse(lines[n - 1] as string);
  edit(value);
  lines[n - 1] = JSON.stringify(value);
  return lines.join('\n');
}

/** The app's import check for a market run. */
const readMarketFile = (file: string) => readRunFile(file, undefined, 'market');

describe('the CLI’s market run file', () => {
  it('passes the import check whole, in plan order, and gives the CLI’s standings', () => {
    const read = readMarketFile(text);
    if (!read.ok) throw new Error(read.error.message);
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ format: 'parley-run-jsonl', version: 4, game: 'market' });
    expect(read.value.run.done).toBe(12);
    expect(read.value.rows.map((l) => [l.id, l.index]).slice(0, 3)).toEqual([
      ['small-0-0', 0],
      ['small-0-1', 1],
      ['small-1-0', 2],
    ]);
    expect(read.value.rows.every((l) => !('metrics' in l))).toBe(true);
    expect(marketStandings(read.value.run.config, read.value.rows)).toEqual(cliStandings);
  });

  it.each([
    [
      'a price changed in a seller move',
      3,
      (v: any) => void (v.events[0].move.price = 0.01),
      /line 3 \(market "small-0-1"\): events\[0\] \(move at turn 0\): an illegal move: price 0.01 is below the cost/,
    ],
    [
      'a buyer value changed',
      2,
      (v: any) => void (v.scenario.buyers[0].values[0] += 1),
      /line 2 \(market "small-0-0"\): scenario\.buyers\[0\]\.values\[0\] is .* where .* was expected: not market 0 of "small"/,
    ],
    [
      'metrics that the log does not give',
      4,
      (v: any) => void (v.metrics.sellerSurplus += 5),
      /line 4 \(market "small-1-0"\): metrics\.sellerSurplus is .* but the event log gives/,
    ],
    [
      'a seller the run does not have',
      2,
      (v: any) => void (v.seller = 'greedy'),
      /line 2 \(market "small-0-0"\): seller is "greedy" but the run's plan has "catalog"/,
    ],
    ['a plan index off the plan', 3, (v: any) => void (v.index = 7), /line 3 \(market "small-0-1"\): index is 7 but the run's plan has 1/],
    ['a newer version', 1, (v: any) => void (v.version = 5), /line 1: the file is format version 5, written by a newer Parley/],
    [
      'a game this Parley does not know',
      1,
      (v: any) => void (v.game = 'auction'),
      /line 1: game: "auction" is no game this Parley knows \(bilateral, market\)/,
    ],
    ['a planned count off the plan', 1, (v: any) => void (v.run.planned = 13), /line 1: run\.planned is 13 but its config plans 12 markets/],
  ])('refuses %s, naming it', (_what, line, edit, message) => {
    const read = readMarketFile(edited(line, edit));
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.error.message).toMatch(message);
  });

  it('refuses a file cut off mid-line as truncated, and one short of markets as cut off', () => {
    const cut = readMarketFile(text.slice(0, text.length - 40));
    expect(cut.ok ? null : cut.error.kind).toBe('truncated');
    const short = readMarketFile(text.split('\n').slice(0, 5).join('\n') + '\n');
    expect(short.ok ? null : short.error.message).toBe('run.done says 12 markets but the file holds 4; it looks cut off');
  });

  it('parley check reads it as the import does: ok with its count, or the first problem and exit 2', async () => {
    const path = join(dir, 'run.jsonl');
    const ok = await runCli(['check', path]);
    expect([ok.status, ok.out]).toEqual([0, 'ok: CLI market tournament: catalog, greedy (3 markets per configuration, seed 4), 12 markets\n']);
    const bad = join(dir, 'bad.jsonl');
    await writeFile(
      bad,
      edited(2, (v) => void (v.seller = 'greedy')),
    );
    const refused = await runCli(['check', bad]);
    expect(refused.status).toBe(2);
    expect(refused.err).toMatch(/^parley: error: .*bad\.jsonl: line 2 \(market "small-0-0"\): seller is "greedy" but the run's plan has "catalog"\n$/);
  });
});
