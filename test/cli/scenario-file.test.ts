import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenarioFile } from '../../src/games/bilateral/scenario-file';
import { planTournament } from '../../src/games/bilateral/tournament';
import type { Scenario } from '../../src/games/bilateral/scenario';
import { readRunFile } from '../../src/storage/run-file';
import type { ExportedNegotiation } from '../../src/storage/schema';
import { runCli, usageProblem } from './helpers';

const FIXTURE = fileURLToPath(new URL('../fixtures/negmas-reference-3.jsonl', import.meta.url));
const AGENTS = ['boulware', 'linear', 'conceder'];
const dir = mkdtempSync(join(tmpdir(), 'parley-cli-scenarios-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

const fromFixture = (): Scenario[] => {
  const read = parseScenarioFile(readFileSync(FIXTURE, 'utf8'));
  if (!read.ok) throw new Error(read.error.message);
  return read.value.scenarios;
};

/** The run file the real command line wrote, as lines: a header, then one negotiation a line. */
let lines: string[] = [];
let printed = '';
beforeAll(async () => {
  const run = promisify(execFile);
  const args = [
    'tsx',
    'src/cli/parley.ts',
    'tournament',
    '--agents',
    AGENTS.join(','),
    '--scenarios-from',
    FIXTURE,
    '--seed',
    '4',
    '--samples',
    '0',
    '--jsonl',
    file('run.jsonl'),
  ];
  const { stdout, stderr } = await run('npx', args);
  expect(stderr).toBe('');
  printed = stdout;
  lines = readFileSync(file('run.jsonl'), 'utf8').split('\n');
}, 60_000);

const row = (i: number) => JSON.parse(lines[i + 1]!) as ExportedNegotiation;

describe('tournament --scenarios-from FILE', () => {
  it("plays the file's scenarios, once per ordered pair, and each negotiation line names its scenario by the file's id", () => {
    const scenarios = fromFixture();
    expect(scenarios.map((s) => s.id)).toEqual(['101-0', '101-1', '101-2']);
    const rows = lines.slice(1, -1).map((l) => JSON.parse(l) as ExportedNegotiation);
    expect(rows).toHaveLength(AGENTS.length * (AGENTS.length - 1) * scenarios.length);
    const plan = planTournament({ agents: AGENTS, scenariosPerPair: 3, preset: 'standard', seed: 4, selfPlay: false, scenarios });
    expect(rows.map((r) => [r.jobId, r.scenario.id])).toEqual(plan.map((j) => [j.id, j.scenario.id]));
    for (const r of rows) expect(r.scenario).toEqual(scenarios.find((s) => s.id === r.scenario.id));
    // The fixture's fields as the file gives them: range, turns, opener.
    const first = JSON.parse(readFileSync(FIXTURE, 'utf8').split('\n')[0]!);
    expect(rows[0]?.scenario).toMatchObject({ id: first.id, turnLimit: first.turns, firstMover: first.first, priceRange: { lo: first.lo, hi: first.hi } });
    expect(rows[0]?.events.at(-1)?.turn).toBeLessThanOrEqual(first.turns);
  });

  it('stores the scenarios in the run config (version 3) and says where they came from', () => {
    const header = JSON.parse(lines[0]!);
    expect(header.version).toBe(3);
    expect(header.run.config.tournament).toMatchObject({ scenariosPerPair: 3, seed: 4, scenarios: fromFixture() });
    expect(header.run.name).toBe('CLI tournament: boulware, linear, conceder (3 scenarios from negmas-reference-3.jsonl per pair, seed 4)');
    expect(printed.split('\n').slice(0, 2)).toEqual([
      '18 negotiations: 3 agents, 3 scenarios from negmas-reference-3.jsonl per ordered pair, seed 4',
      "deadline and first mover: each scenario's own (a fixed turn limit both sides know)",
    ]);
  });

  it('the same file and seed write the same file (but for the dates)', async () => {
    const again = await runCli([
      'tournament',
      '--agents',
      AGENTS.join(','),
      '--scenarios-from',
      FIXTURE,
      '--seed',
      '4',
      '--samples',
      '0',
      '--jsonl',
      file('again.jsonl'),
    ]);
    expect(again.status).toBe(0);
    const undated = (text: string) => text.replace(/"(createdAt|updatedAt)":\d+/g, '"$1":0');
    expect(undated(readFileSync(file('again.jsonl'), 'utf8'))).toBe(undated(lines.join('\n')));
  });

  it('parley check passes the run; an edited scenario, in a negotiation or in the config, is refused', async () => {
    const check = async (name: string, text: string) => {
      writeFileSync(file(name), text);
      return runCli(['check', file(name)]);
    };
    expect(await check('ok.jsonl', lines.join('\n'))).toEqual({
      status: 0,
      out: 'ok: CLI tournament: boulware, linear, conceder (3 scenarios from negmas-reference-3.jsonl per pair, seed 4), 18 negotiations\n',
      err: '',
    });
    const edited = row(2);
    edited.scenario.sellerCost += 1;
    const one = await check('row.jsonl', lines.map((l, k) => (k === 3 ? JSON.stringify(edited) : l)).join('\n'));
    expect(one.status).toBe(2);
    expect(one.err).toMatch(
      /^parley: error: .*row\.jsonl: line 4 \(job "1-0-0"\): scenario\.sellerCost is 34\.8 where 33\.8 was expected: not scenario 0 of the run's config \(run\.config\.tournament\.scenarios\[0\], from a scenario file\)\n$/,
    );
    const header = JSON.parse(lines[0]!);
    header.run.config.tournament.scenarios[1].buyerValue += 1;
    const config = await check('config.jsonl', [JSON.stringify(header), ...lines.slice(1)].join('\n'));
    expect(config.status).toBe(2);
    expect(config.err).toMatch(/line 8 \(job "0-1-1"\): scenario\.buyerValue is .* where .* was expected: not scenario 1 of the run's config/);
    // The config cannot drop its list quietly: the negotiations are then not its drawn scenarios.
    delete header.run.config.tournament.scenarios;
    const dropped = await check('dropped.jsonl', [JSON.stringify({ ...header, version: 2 }), ...lines.slice(1)].join('\n'));
    expect(dropped.err).toMatch(/line 2 \(job "0-1-0"\): scenario\.id is "101-0" where "standard-4-0" was expected/);
    // Nor claim a count its list does not hold.
    const short = JSON.parse(lines[0]!);
    short.run.config.tournament.scenariosPerPair = 2;
    expect((await check('short.jsonl', [JSON.stringify(short), ...lines.slice(1)].join('\n'))).err).toMatch(
      /line 1: run\.config\.tournament\.scenariosPerPair: is 2 but scenarios holds 3\n$/,
    );
    expect(readRunFile(lines.join('\n')).ok).toBe(true);
  });

  it('a bad line is one line naming its number, status 2, and nothing is played or written', async () => {
    const bad = file('bad.jsonl');
    const good = readFileSync(FIXTURE, 'utf8').split('\n');
    writeFileSync(bad, [good[0], '', good[1], JSON.stringify({ ...JSON.parse(good[2]!), id: 'x', turns: 0 })].join('\n'));
    const out = file('never.jsonl');
    const r = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios-from', bad, '--jsonl', out]);
    expect(await usageProblem(['tournament', '--agents', 'boulware,linear', '--scenarios-from', bad, '--jsonl', out])).toMatchObject({
      code: 'unreadable-file',
      data: { problem: { code: 'bad-field', data: { line: 4, field: 'turns', got: '0' } } },
    });
    expect(r).toEqual({
      status: 2,
      out: '',
      err: `parley: error: --scenarios-from ${bad}: line 4: turns: expected a whole number of turns from 1 to 1000, got 0\n`,
    });
    expect(existsSync(out)).toBe(false);
  });

  it('an id repeated with other fields names both lines', async () => {
    const path = file('dup.jsonl');
    const good = readFileSync(FIXTURE, 'utf8').split('\n');
    writeFileSync(path, [good[0], good[9], JSON.stringify({ ...JSON.parse(good[1]!), sellerCost: 1 })].join('\n'));
    const r = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios-from', path]);
    expect(r.status).toBe(2);
    expect(r.err).toBe(
      `parley: error: --scenarios-from ${path}: line 3: id "101-0" is also at line 1 with other fields (sellerCost 1 here, 33.8 there); an id names one scenario\n`,
    );
  });

  it('refuses a file over 8 MB by its size, unread, and a path that is not a file', async () => {
    const big = file('big.jsonl');
    writeFileSync(big, '');
    truncateSync(big, 9 * 1024 * 1024);
    const r = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios-from', big]);
    expect(r).toMatchObject({ status: 2, err: `parley: error: --scenarios-from ${big}: the file is 9.0 MB; a scenario file may hold up to 8.0 MB\n` });
    const refused = (path: string) => usageProblem(['tournament', '--agents', 'boulware,linear', '--scenarios-from', path]);
    expect(await refused(big)).toMatchObject({
      code: 'unreadable-file',
      data: { flag: '--scenarios-from', path: big, problem: { code: 'too-large', data: { size: 9 * 1024 * 1024 } } },
    });
    expect(await refused(dir)).toMatchObject({ code: 'unreadable-file', data: { path: dir, problem: { code: 'not-a-file' } } });
    expect(await refused(file('none.jsonl'))).toMatchObject({
      code: 'unreadable-file',
      data: { problem: { code: 'cannot-read', data: { reason: 'ENOENT' } } },
    });
  });

  it.each(['--scenarios 5', '--preset narrow', '--turns 10', '--deadline fixed', '--first buyer'])('refuses %s beside a scenario file', async (flag) => {
    const [name, value] = flag.split(' ') as [string, string];
    const r = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios-from', FIXTURE, name, value]);
    expect(r).toMatchObject({ status: 2, out: '' });
    expect(r.err).toBe(`parley: error: ${name} does not apply with --scenarios-from (the file gives every scenario, its turn limit and who opens)\n`);
  });

  it('without --scenarios or --scenarios-from, says both', async () => {
    expect((await runCli(['tournament', '--agents', 'boulware,linear'])).err).toBe(
      'parley: error: --scenarios is required (scenarios per ordered pair, at least 1), or --scenarios-from FILE\n',
    );
  });
});
