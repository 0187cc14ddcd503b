/**
 * The command line's files are written whole: two commands writing one path never share a
 * temporary file, the last to finish leaves its complete file, and a failure leaves nothing beside
 * the destination.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { HeadedJsonlFile, OutputFile } from '../../src/cli/output-file';
import { readRunFile } from '../../src/storage/run-file';
import { runCli } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'parley-cli-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);
/** What lies beside `name` in its folder (the file itself included). */
const beside = (name: string) =>
  readdirSync(dir)
    .filter((entry) => entry.startsWith(name))
    .sort();

/** Runs the CLI in-process with a signal, so that a scripted tournament yields now and then and two of them interleave. */
async function cliYielding(argv: readonly string[]) {
  let out = '';
  let err = '';
  const status = await main([...argv], { out: (t) => (out += t), err: (t) => (err += t), now: () => 0, env: {}, signal: new AbortController().signal });
  return { status, out, err };
}

const TOURNAMENTS = {
  a: ['tournament', '--agents', 'boulware,linear,conceder', '--scenarios', '300', '--samples', '0', '--seed', '1'],
  b: ['tournament', '--agents', 'boulware,hardliner,random', '--scenarios', '200', '--samples', '0', '--seed', '2'],
} as const;

describe('two tournaments writing one --jsonl path', () => {
  it('in one process, interleaved: both succeed and the file is the complete run of the last to finish', async () => {
    // Each alone, as references (the in-process clock is fixed, so a run's file is the same every time).
    for (const name of ['a', 'b'] as const) expect((await runCli([...TOURNAMENTS[name], '--jsonl', file(`${name}.jsonl`)])).status).toBe(0);
    const reference = { a: readFileSync(file('a.jsonl'), 'utf8'), b: readFileSync(file('b.jsonl'), 'utf8') };

    const shared = file('shared.jsonl');
    const finished: string[] = [];
    const play = (name: 'a' | 'b') =>
      cliYielding([...TOURNAMENTS[name], '--jsonl', shared]).then((r) => {
        finished.push(name);
        return r;
      });
    const [a, b] = await Promise.all([play('a'), play('b')]);
    expect([a.status, a.err, b.status, b.err]).toEqual([0, '', 0, '']);
    expect(finished).toHaveLength(2);
    expect(readFileSync(shared, 'utf8')).toBe(reference[finished[1] as 'a' | 'b']);
    expect(beside('shared.jsonl')).toEqual(['shared.jsonl']);
  });

  it('in two processes at once: both exit 0, the file passes the import check whole, nothing is left beside it', async () => {
    const shared = file('processes.jsonl');
    const spawn = (argv: readonly string[]) =>
      new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile('npx', ['tsx', 'src/cli/parley.ts', ...argv], { maxBuffer: 1 << 26 }, (error, _stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
        );
      });
    const big = (name: 'a' | 'b') => [...TOURNAMENTS[name].slice(0, 3), '--scenarios', name === 'a' ? '1500' : '1000', ...TOURNAMENTS[name].slice(5)];
    const [a, b] = await Promise.all([spawn([...big('a'), '--jsonl', shared]), spawn([...big('b'), '--jsonl', shared])]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    // Progress lines only (a slow machine prints them), no error.
    for (const line of (a.stderr + b.stderr).split('\n').filter(Boolean)) expect(line).toMatch(/^parley: \d+\/\d+ negotiations[,;] /);
    const checked = readRunFile(readFileSync(shared, 'utf8'));
    if (!checked.ok) throw new Error(checked.error.message);
    // One tournament's run, with all its negotiations: 3 agents, 6 ordered pairs.
    expect([6 * 1500, 6 * 1000]).toContain(checked.value.rows.length);
    expect(checked.value.run.done).toBe(checked.value.rows.length);
    expect(beside('processes.jsonl')).toEqual(['processes.jsonl']);
  }, 120_000);

  it('market tournaments too', async () => {
    const shared = file('market.jsonl');
    const market = (seed: string) => [
      'market-tournament',
      '--sellers',
      'greedy,explore',
      '--configs',
      'small,scarce',
      '--markets',
      '20',
      '--samples',
      '0',
      '--seed',
      seed,
      '--jsonl',
      shared,
    ];
    const [a, b] = await Promise.all([cliYielding(market('1')), cliYielding(market('2'))]);
    expect([a.status, a.err, b.status, b.err]).toEqual([0, '', 0, '']);
    const text = readFileSync(shared, 'utf8');
    const checked = readRunFile(text, Buffer.byteLength(text), 'market');
    if (!checked.ok) throw new Error(checked.error.message);
    expect(beside('market.jsonl')).toEqual(['market.jsonl']);
  });
});

describe('an output file', () => {
  it('has a temporary file of its own for every call, created exclusively beside the destination', async () => {
    const path = file('own.txt');
    const [first, second] = [await OutputFile.open(path), await OutputFile.open(path)];
    const temporaries = beside('own.txt');
    expect(temporaries).toHaveLength(2);
    for (const name of temporaries) expect(name).toMatch(new RegExp(`^own\\.txt\\.${process.pid}-[0-9a-f]{12}\\.tmp$`));
    await first.write('first\n');
    await second.write('second\n');
    await second.commit();
    await first.commit();
    expect(readFileSync(path, 'utf8')).toBe('first\n');
    expect(beside('own.txt')).toEqual(['own.txt']);
  });

  it('leaves the destination as it was and nothing beside it when it fails or is abandoned', async () => {
    const path = file('kept.jsonl');
    writeFileSync(path, 'the old run\n');
    const abandoned = await HeadedJsonlFile.open(path);
    await abandoned.add('{"line":1}\n');
    await abandoned.abandon();
    expect(readFileSync(path, 'utf8')).toBe('the old run\n');
    expect(beside('kept.jsonl')).toEqual(['kept.jsonl']);

    // The destination turns into a folder before the end: the rename fails, and both temporary files go.
    const late = file('late.jsonl');
    const failing = await HeadedJsonlFile.open(late, 1);
    await failing.add('{"line":1}\n');
    mkdirSync(late);
    await expect(failing.finish('{"head":true}\n')).rejects.toThrow();
    expect(beside('late.jsonl')).toEqual(['late.jsonl']);
    expect(readdirSync(late)).toEqual([]);
  });

  it('writes through a symlink: the file it points to is replaced, the link kept', async () => {
    const target = file('target.jsonl');
    const link = file('link.jsonl');
    writeFileSync(target, 'old\n');
    symlinkSync(target, link);
    const out = await OutputFile.open(link);
    await out.write('new\n');
    await out.commit();
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(readFileSync(link, 'utf8')).toBe('new\n');
    expect(beside('target.jsonl')).toEqual(['target.jsonl']);
    expect(readdirSync(dir).filter((n) => n.startsWith('link.jsonl'))).toEqual(['link.jsonl']);
  });

  it('--jsonl naming a folder is refused in one line with status 2 before anything is played', async () => {
    const folder = file('a-folder');
    mkdirSync(folder);
    const r = await runCli([...TOURNAMENTS.a, '--jsonl', folder]);
    expect(r.status).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^parley: error: --jsonl: cannot write .*a-folder \(EISDIR/);
    expect(beside('a-folder')).toEqual(['a-folder']);
    expect(existsSync(join(folder, 'x'))).toBe(false);
  });
});
