import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { runCli } from './helpers';

const cli = (...argv: string[]) => runCli(argv);


describe('parley run', () => {
  it('prints a transcript that ends with the outcome and the split', async () => {
    const r = await cli('run', '--buyer', 'boulware', '--seller', 'conceder', '--seed', '3');
    expect(r.status).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^buyer {2}boulware: value \$\d+\.\d\d$/m);
    expect(r.out).toMatch(/^outcome: /m);
    expect(r.out).toMatch(/buyer utility \$-?\d+\.\d\d/);
  });

  it('--json gives scenario, events, outcome and metrics that agree with each other', async () => {
    const r = await cli('run', '--buyer', 'linear', '--seller', 'accommodator', '--seed', '5', '--json');
    const doc = JSON.parse(r.out);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['scenario', 'events', 'outcome', 'metrics']));
    expect(doc.events.at(-1)).toEqual({ type: 'end', turn: doc.events.at(-1).turn, outcome: doc.outcome });
    if (doc.outcome.kind === 'deal') {
      expect(doc.metrics.price).toBe(doc.outcome.price);
      expect(doc.metrics.buyer.utility).toBeCloseTo(doc.scenario.buyerValue - doc.outcome.price, 9);
    }
  });

  it('honours --preset, --turns and --first', async () => {
    const r = await cli('run', '--buyer', 'hardliner', '--seller', 'hardliner', '--preset', 'narrow', '--turns', '7', '--first', 'buyer', '--json');
    const doc = JSON.parse(r.out);
    expect(doc.scenario.preset).toBe('narrow');
    expect(doc.scenario.turnLimit).toBe(7);
    expect(doc.events[0].actor).toBe('buyer');
    expect(doc.events.at(-1).turn).toBeLessThanOrEqual(7);
  });

  it('the same arguments print byte-identical output, also for the random strategy', async () => {
    const args = ['run', '--buyer', 'random', '--seller', 'tit-for-tat', '--seed', '11', '--json'];
    expect((await cli(...args)).out).toBe((await cli(...args)).out);
  });
});

describe('parley tournament', () => {
  const agents = 'boulware,conceder:beta=3,hardliner';

  it('--json has config, negotiations, leaderboard, byTier and pairs with intervals', async () => {
    const r = await cli('tournament', '--agents', agents, '--scenarios', '6', '--seed', '2', '--json', '--samples', '200');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.negotiations).toBe(3 * 2 * 6);
    expect(doc.config.agents).toEqual(['boulware', 'conceder:beta=3', 'hardliner']);
    expect(doc.leaderboard).toHaveLength(6);
    for (const row of doc.leaderboard) {
      expect(row.n).toBe(12);
      for (const key of ['dealRate', 'walkAwayRateNoGft', 'surplusShare', 'expectedSurplusShare', 'irViolationRate', 'invalidMoveRate'])
        expect(row).toHaveProperty(key);
      if (row.dealRate !== null) {
        const [low, high] = row.ci.dealRate;
        expect(low).toBeLessThanOrEqual(row.dealRate + 1e-12);
        expect(high).toBeGreaterThanOrEqual(row.dealRate - 1e-12);
      }
    }
    expect(doc.byTier.every((t: { tier: number }) => t.tier >= 1 && t.tier <= 5)).toBe(true);
    expect(doc.pairs).toHaveLength(6);
    for (const p of doc.pairs) {
      expect(p.n).toBe(6);
      if (p.buyerShare !== null) expect(p.buyerShare + p.sellerShare).toBeCloseTo(1, 9);
    }
  });

  it('--self-play adds each agent against itself', async () => {
    const r = await cli('tournament', '--agents', 'linear,boulware', '--scenarios', '2', '--self-play', '--json', '--samples', '0');
    expect(JSON.parse(r.out).pairs).toHaveLength(4);
  });

  it('prints the same table and CSV for the same arguments', async () => {
    const table = ['tournament', '--agents', agents, '--scenarios', '5'];
    const a = await cli(...table);
    expect(a.out).toContain('deal rate (gft)');
    expect(a.out).toBe((await cli(...table)).out);
    const csv = await cli(...table, '--csv');
    const lines = csv.out.trim().split('\n');
    expect(lines[0]?.startsWith('agent,role,tier,n,dealRate,dealRate_low,dealRate_high')).toBe(true);
    expect(lines.filter((l) => l.includes(',all,'))).toHaveLength(6);
  });

  it.each([
    [['tournament', '--agents', 'boulware,nosuch', '--scenarios', '2'], /unknown strategy "nosuch"; choose one of: boulware, linear/],
    [['tournament', '--agents', 'boulware,linear', '--scenarios', '0'], /--scenarios must be between 1 and/],
    [['tournament', '--agents', 'boulware,linear', '--scenarios', '-3'], /--scenarios must be between 1 and/],
    [['tournament', '--agents', 'boulware,linear'], /--scenarios is required/],
    [['tournament', '--agents', 'boulware:gamma=2,linear', '--scenarios', '2'], /unknown parameter "gamma" for boulware; it takes: /],
    [['tournament', '--agents', 'boulware,linear', '--scenarios', '2', '--preset', 'huge'], /choose one of: standard, uniform, wide, narrow/],
    [['tournament', '--agents', 'boulware', '--scenarios', '2'], /at least two agents/],
    [['tournament', '--agents', 'boulware,boulware', '--scenarios', '2'], /listed twice/],
    [['run', '--buyer', 'boulware'], /--seller is required/],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--seed', 'x'], /--seed must be a whole number/],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--colour', 'red'], /unknown flag --colour/],
    [['haggle'], /unknown command "haggle"; choose one of: run, tournament/],
  ])('rejects %j with one line and status 2', async (argv, message) => {
    const r = await cli(...(argv as string[]));
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});

describe('progress', () => {
  it('reports progress on stderr during a long tournament, and nothing on stdout changes', async () => {
    let t = 0;
    let err = '';
    let out = '';
    const argv = ['tournament', '--agents', 'boulware,linear,conceder', '--scenarios', '200', '--samples', '0'];
    // A clock that moves a second per reading makes the run look long.
    const status = await main(argv, { out: (x) => (out += x), err: (x) => (err += x), now: () => (t += 1000) });
    expect(status).toBe(0);
    expect(err).toMatch(/^parley: \d+\/1200 negotiations, \d+\/s, \d+ s left$/m);
    expect(err).toMatch(/computing intervals/);
    expect(out).toBe((await cli(...argv)).out);
  });
});

describe('the parley process', () => {
  it('exits with status 2 and one stderr line on a bad argument', async () => {
    const run = promisify(execFile);
    const failure = await run('npx', ['tsx', 'src/cli/parley.ts', 'tournament', '--agents', 'x,y', '--scenarios', '1']).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect('code' in failure ? failure.code : 0).toBe(2);
    expect((failure as { stderr: string }).stderr.trim()).toMatch(/^parley: error: --agents: unknown strategy "x"/);
  }, 60_000);
});
