import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { readRunFile } from '../../src/storage/run-file';
import type { ExportedNegotiation } from '../../src/storage/schema';
import { runCli } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'parley-cli-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

/** The lines of a real run file, written by the tournament command: a header, then one negotiation a line. */
let lines: string[] = [];
beforeAll(async () => {
  const r = await runCli([
    'tournament',
    '--agents',
    'boulware,conceder,random',
    '--scenarios',
    '2',
    '--seed',
    '3',
    '--samples',
    '0',
    '--jsonl',
    file('run.jsonl'),
  ]);
  expect(r.status).toBe(0);
  lines = readFileSync(file('run.jsonl'), 'utf8').split('\n');
});

/** Writes a variant of the run file and checks it; the app's own check must say the same. */
async function check(name: string, text: string) {
  writeFileSync(file(name), text);
  const r = await runCli(['check', file(name)]);
  const app = readRunFile(text, Buffer.byteLength(text));
  return { ...r, app };
}

const row = (i: number) => JSON.parse(lines[i + 1]!) as ExportedNegotiation;
const withRow = (i: number, edit: (n: ExportedNegotiation) => void) => {
  const n = row(i);
  edit(n);
  return lines.map((line, k) => (k === i + 1 ? JSON.stringify(n) : line)).join('\n');
};

describe('parley check FILE', () => {
  it('ok: the run name and its negotiations, for a JSONL file and the same run as JSON', async () => {
    const r = await check('ok.jsonl', lines.join('\n'));
    expect(r).toMatchObject({ status: 0, err: '' });
    expect(r.out).toMatch(/^ok: CLI tournament: boulware, conceder, random \(2 standard scenarios per pair, seed 3\), 12 negotiations\n$/);
    const header = JSON.parse(lines[0]!);
    const json = JSON.stringify({ format: 'parley-run', version: header.version, run: header.run, negotiations: lines.slice(1, -1).map((l) => JSON.parse(l)) });
    expect((await check('ok.json', json)).out).toMatch(/^ok: .*, 12 negotiations\n$/);
    // A byte-order mark, as some editors write, is dropped as the browser drops it.
    expect((await check('bom.json', `\ufeff${json}`)).status).toBe(0);
  });

  it.each([
    [
      'a deal at a price nobody offered',
      'deal.jsonl',
      () =>
        withRow(0, (n) => {
          const end = n.events.at(-1) as Extract<BilateralEvent, { type: 'end' }>;
          end.outcome = { kind: 'deal', price: 0.5, turn: end.turn, acceptedBy: 'buyer' };
          n.outcome = 'deal';
        }),
      /^parley: error: .*deal\.jsonl: line 2 \(job "0-1-0"\): events\[\d+\] \(end at turn \d+\): the log ends in a deal at \$0\.50/,
    ],
    [
      'an offer of −5',
      'negative.jsonl',
      () =>
        withRow(1, (n) => {
          (n.events[0] as { move: { action: { type: string; price: number } } }).move.action = { type: 'offer', price: -5 };
        }),
      /line 3 \(job "0-2-0"\): events\[0\] \(move at turn 0\): an illegal move: offer price must be positive \(got -5\)\n$/,
    ],
    ['a job that is not in the plan', 'plan.jsonl', () => withRow(2, (n) => (n.jobId = '7-0-0')), /line 4 \(job "7-0-0"\): not a job of the run's plan/],
    [
      'an edited scenario',
      'scenario.jsonl',
      () => withRow(3, (n) => (n.scenario.sellerCost += 1)),
      /line 5 .*: scenario\.sellerCost is .*: not scenario 0 of the run's config/,
    ],
    ['a truncated file', 'cut.jsonl', () => lines.slice(0, 5).join('\n') + '\n', /run\.done says 12 negotiations but the file holds 4; it looks cut off\n$/],
    ['malformed JSON', 'bad.json', () => '{"format": "parley-run", oops}', /: not valid JSON: /],
    // (parley-market is a format Parley reads now: a market run; see test/storage/market-file.test.ts.)
    ['another format', 'other.json', () => JSON.stringify({ format: 'parley-auction', version: 1 }), /the file's format is "parley-auction"/],
    ['an empty file', 'empty.json', () => '', /: the file is empty\n$/],
  ])('%s: the first problem in one line, exit 2', async (_, name, make, message) => {
    const r = await check(name, make());
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err.split('\n')).toHaveLength(2);
    // Exactly the app's message.
    expect(r.app.ok).toBe(false);
    if (!r.app.ok) expect(r.err).toBe(`parley: error: ${file(name)}: ${r.app.error.message}\n`);
  });

  it('a file over 512 MB is refused by its size without being read (a sparse file: no disk used)', async () => {
    const path = file('huge.jsonl');
    writeFileSync(path, lines[0]!);
    truncateSync(path, 530 * 1024 * 1024);
    expect(statSync(path).size).toBe(530 * 1024 * 1024);
    const r = await runCli(['check', path]);
    expect(r).toEqual({ status: 2, out: '', err: `parley: error: ${path}: the file is 530 MB; Parley imports runs of up to 512 MB\n` });
    rmSync(path);
  });

  it('no file, a directory, a missing file, two files', async () => {
    for (const argv of [['check'], ['check', 'a', 'b']]) {
      const r = await runCli(argv);
      expect(r.status, argv.join(' ')).toBe(2);
      expect(r.err).toBe('parley: error: check takes one run file: npm run parley -- check FILE\n');
    }
    // A flag is named as a flag, not read as a second file.
    expect((await runCli(['check', '--json'])).err).toBe('parley: error: unknown flag --json for check; npm run parley -- check --help lists its flags\n');
    mkdirSync(file('folder'));
    expect((await runCli(['check', file('folder')])).err).toMatch(/folder: not a file\n$/);
    const missing = await runCli(['check', file('nowhere.json')]);
    expect(missing).toMatchObject({ status: 2, err: expect.stringMatching(/nowhere\.json: cannot read it \(ENOENT\)\n$/) });
  });

  it('control and bidi characters from the file are escaped, never sent to the terminal', async () => {
    const header = JSON.parse(lines[0]!);
    header.run.name = 'evil\u001b[2J\u202ename\u0085';
    const r = await check('evil.jsonl', [JSON.stringify(header), ...lines.slice(1)].join('\n'));
    expect(r.status).toBe(0);
    expect(r.out).toBe('ok: evil\\u001b[2J\\u202ename\\u0085, 12 negotiations\n');
    const bad = await check(
      'evil-job.jsonl',
      withRow(0, (n) => (n.jobId = '\u202e0-1-0')),
    );
    expect(bad.status).toBe(2);
    expect(bad.err).toMatch(/\(job "\\u202e0-1-0"\): not a job/);
    expect(bad.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
  });
});
