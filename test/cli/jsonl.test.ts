import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_INTERRUPTED, main } from '../../src/cli/main';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { OracleScorer, scoredMetrics } from '../../src/games/bilateral/oracle-agents';
import { planTournament } from '../../src/games/bilateral/tournament';
import { EXPORT_FORMAT_JSONL, EXPORT_VERSION, readRunFile } from '../../src/storage/run-file';
import { fullTournamentConfig } from '../../src/storage/schema';
import { runCli } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'parley-cli-jsonl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

const AGENTS = 'boulware,conceder:beta=3,random';
const tournament = (path: string, ...extra: string[]) =>
  runCli(['tournament', '--agents', AGENTS, '--scenarios', '5', '--seed', '7', '--samples', '50', '--jsonl', path, ...extra]);

describe('tournament --jsonl', () => {
  it('writes a file that passes the app’s import check, with every negotiation', async () => {
    const path = file('run.jsonl');
    const r = await tournament(path, '--json');
    expect(r.status).toBe(0);
    expect(r.err).toBe('');
    const text = readFileSync(path, 'utf8');
    const checked = readRunFile(text);
    if (!checked.ok) throw new Error(checked.error.message);
    const { run, rows } = checked.value;
    const config = fullTournamentConfig({
      agents: ['boulware', 'conceder:beta=3', 'random'],
      scenariosPerPair: 5,
      preset: 'standard',
      seed: 7,
      selfPlay: false,
    });
    const plan = planTournament(config);
    expect(run).toMatchObject({ status: 'done', planned: plan.length, done: plan.length, message: null, createdAt: 0, updatedAt: 0 });
    expect(run.config).toEqual({ kind: 'tournament', tournament: config });
    expect(run.name).toMatch(/^CLI tournament: boulware, conceder:beta=3, random \(5 standard scenarios per pair, seed 7\)$/);
    expect(rows.map((row) => row.jobId)).toEqual(plan.map((job) => job.id));
    expect(rows.map((row) => row.scenario)).toEqual(plan.map((job) => job.scenario));
    // The header, then one line per negotiation, each line ended.
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(plan.length + 2);
    // Drawn scenarios: still version 2, as an older Parley reads it (version 3 is for runs with a scenario list).
    expect(JSON.parse(lines[0] as string)).toMatchObject({ format: EXPORT_FORMAT_JSONL, version: 2, game: 'bilateral' });
    expect(EXPORT_VERSION).toBe(4);
    // What the app recomputes on import is what the CLI printed.
    const aggregator = new Aggregator();
    const scorer = new OracleScorer();
    for (const row of rows) aggregator.add(row.buyer, row.seller, row.scenario, scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer));
    const doc = JSON.parse(r.out);
    const standings = JSON.parse(JSON.stringify(aggregator.standings({ samples: 50, seed: 7 })));
    expect(standings.leaderboard).toEqual(doc.leaderboard);
    expect(standings.byZone).toEqual(doc.byZone);
    expect(standings.pairs).toEqual(doc.pairs);
    // Each line names both seats' oracle figures, null against random; what is stored keeps none.
    const first = JSON.parse(lines[1] as string);
    expect(first.buyer).toBe('boulware');
    expect(first.seller).toBe('conceder:beta=3');
    expect(first.oracle.buyer === null || typeof first.oracle.buyer.oracleShare === 'number').toBe(true);
    const againstRandom = lines
      .slice(1, -1)
      .map((l) => JSON.parse(l))
      .filter((l) => l.seller === 'random');
    expect(againstRandom.length).toBeGreaterThan(0);
    for (const l of againstRandom) expect(l.oracle.buyer).toBeNull();
    expect(lines.slice(1, -1).some((l) => JSON.parse(l).oracle.buyer !== null)).toBe(true);
    expect(rows.every((row) => !('oracle' in row))).toBe(true);
    // Nothing is left beside the file.
    expect(readdirSync(dir).filter((name) => name.startsWith('run.jsonl'))).toEqual(['run.jsonl']);
  });

  it('a line whose oracle figures are not the search’s is refused, naming the line', async () => {
    const path = file('forged.jsonl');
    expect((await tournament(path)).status).toBe(0);
    const lines = readFileSync(path, 'utf8').split('\n');
    const at = lines.findIndex((l, i) => i > 0 && l !== '' && JSON.parse(l).oracle?.buyer !== null);
    const line = JSON.parse(lines[at] as string);
    line.oracle.buyer = { oracleShare: 1, oracleGap: 1 };
    lines[at] = JSON.stringify(line);
    const checked = readRunFile(lines.join('\n'));
    expect(checked.ok).toBe(false);
    if (!checked.ok)
      expect(checked.error.message).toMatch(
        new RegExp(`^line ${at + 1} \\(job "[^"]+"\\): oracle\\.buyer is \\{"oracleShare":1,"oracleGap":1\\} but the oracle search gives`),
      );
  });

  it('the same arguments write byte-identical files, whatever is printed', async () => {
    await tournament(file('a.jsonl'));
    await tournament(file('b.jsonl'), '--csv');
    expect(readFileSync(file('a.jsonl'), 'utf8')).toBe(readFileSync(file('b.jsonl'), 'utf8'));
    // Another seed is another run, with another id.
    await runCli(['tournament', '--agents', AGENTS, '--scenarios', '5', '--seed', '8', '--samples', '0', '--jsonl', file('c.jsonl')]);
    const id = (name: string) => JSON.parse(readFileSync(file(name), 'utf8').split('\n')[0] as string).run.id;
    expect(id('c.jsonl')).not.toBe(id('a.jsonl'));
  });

  it('a path that cannot be written is a one-line usage error before anything is played', async () => {
    const path = join(dir, 'no such folder', 'run.jsonl');
    const r = await tournament(path);
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^parley: error: --jsonl: cannot write .*no such folder.*run\.jsonl \(/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'no such folder'))).toBe(false);
  });

  it('a tournament stopped part-way writes a cancelled run holding what had finished, and still imports', async () => {
    const path = file('stopped.jsonl');
    const stop = new AbortController();
    let out = '';
    let err = '';
    let reads = 0;
    // The clock is read once at the start and then after every result: stop after the 256th.
    const now = () => {
      if (++reads === 257) stop.abort();
      return 1_000 * reads;
    };
    const argv = ['tournament', '--agents', 'boulware,linear,hardliner', '--scenarios', '100', '--samples', '0', '--json', '--jsonl', path];
    const status = await main(argv, { out: (t) => (out += t), err: (t) => (err += t), now, signal: stop.signal });
    expect(status).toBe(EXIT_INTERRUPTED);
    expect(err).toMatch(/^parley: stopped after 256\/600 negotiations; the results below cover those$/m);
    expect(JSON.parse(out).negotiations).toBe(256);
    const checked = readRunFile(readFileSync(path, 'utf8'));
    if (!checked.ok) throw new Error(checked.error.message);
    expect(checked.value.run).toMatchObject({ status: 'cancelled', planned: 600, done: 256 });
    expect(checked.value.run.message).toBe('stopped from the command line after 256 of 600 negotiations');
    expect(checked.value.rows.map((row) => row.index)).toEqual([...Array(256).keys()]);
  });

  it('a version-1 file, whose config has a fixed turnLimit, still imports', async () => {
    const path = file('v1.jsonl');
    await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios', '2', '--turns', '20', '--first', 'seller', '--samples', '0', '--jsonl', path]);
    const [head, ...rest] = readFileSync(path, 'utf8').split('\n');
    const header = JSON.parse(head as string);
    const { deadline, ...tournament } = header.run.config.tournament;
    expect(deadline).toEqual({ kind: 'fixed', turns: 20 });
    const v1 = { ...header, version: 1, run: { ...header.run, config: { kind: 'tournament', tournament: { ...tournament, turnLimit: 20 } } } };
    const checked = readRunFile([JSON.stringify(v1), ...rest].join('\n'));
    if (!checked.ok) throw new Error(checked.error.message);
    expect(checked.value.run.config).toEqual(header.run.config);
    expect(checked.value.rows).toHaveLength(4);
    const newer = readRunFile([JSON.stringify({ ...header, version: EXPORT_VERSION + 1 }), ...rest].join('\n'));
    expect(newer.ok ? null : newer.error.kind).toBe('wrong-version');
  });
});
