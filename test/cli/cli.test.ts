import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { BEHAVIOUR_NAMES, RATE_NAMES } from '../../src/games/bilateral/aggregate';
import { STANDINGS_CSV_HEADER } from '../../src/games/bilateral/csv';
import { COMMANDS } from '../../src/cli/commands';
import { USAGE_PROBLEMS } from '../../src/cli/problems';
import { parseCsv, runCli, usageProblem } from './helpers';

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
    expect(doc.scenario).not.toHaveProperty('turnRange');
    expect(doc.events[0].actor).toBe('buyer');
    expect(doc.events.at(-1).turn).toBeLessThanOrEqual(7);
  });

  it('the transcript says the deadline as the agents knew it, and who moved first', async () => {
    const fixed = await cli('run', '--buyer', 'linear', '--seller', 'boulware', '--turns', '12', '--first', 'seller');
    expect(fixed.out.split('\n')[1]).toBe('12 turns (fixed, both sides know it); the seller moves first');
    const args = ['run', '--buyer', 'linear', '--seller', 'boulware', '--turns', '10-14', '--first', 'buyer', '--seed', '4'];
    const doc = JSON.parse((await cli(...args, '--json')).out);
    expect(doc.scenario.turnRange).toEqual({ min: 10, max: 14 });
    expect(doc.scenario.turnLimit).toBeGreaterThanOrEqual(10);
    expect(doc.scenario.turnLimit).toBeLessThanOrEqual(14);
    const text = await cli(...args);
    expect(text.out.split('\n')[1]).toBe(`limit ${doc.scenario.turnLimit} (drawn from 10–14, agents know only the range); the buyer moves first`);
  });

  it('by default the limit is drawn from 16–24 and the seller opens the first scenario', async () => {
    const doc = JSON.parse((await cli('run', '--buyer', 'linear', '--seller', 'boulware', '--json')).out);
    expect(doc.scenario.turnRange).toEqual({ min: 16, max: 24 });
    expect(doc.scenario.firstMover).toBe('seller');
    expect((await cli('run', '--buyer', 'linear', '--seller', 'boulware')).out).toMatch(
      /^limit \d+ \(drawn from 16–24, agents know only the range\); the seller moves first$/m,
    );
  });

  it('the same arguments print byte-identical output, also for the random strategy', async () => {
    const args = ['run', '--buyer', 'random', '--seller', 'tit-for-tat', '--seed', '11', '--json'];
    expect((await cli(...args)).out).toBe((await cli(...args)).out);
  });
});

describe('parley tournament', () => {
  const agents = 'boulware,conceder:beta=3,hardliner';

  it('--json has config, negotiations, leaderboard, byTier, byZone, pairs and how the intervals were made', async () => {
    const r = await cli('tournament', '--agents', agents, '--scenarios', '6', '--seed', '2', '--json', '--samples', '200');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.negotiations).toBe(3 * 2 * 6);
    expect(doc.config).toEqual({
      agents: ['boulware', 'conceder:beta=3', 'hardliner'],
      scenariosPerPair: 6,
      preset: 'standard',
      seed: 2,
      selfPlay: false,
      deadline: { kind: 'uncertain', min: 16, max: 24 },
      firstMover: 'alternate',
      llm: { interface: 'tools', temperature: 0.7, maxTokens: null, thinking: false },
      samples: 200,
    });
    // The default plan alternates the opener, so the intervals are stratified by it.
    expect(doc.intervals).toEqual({ method: 'paired-analytic', unit: 'scenario', level: 0.95, bootstrapBelow: 30, samples: 200, strata: 'opener', apart: 0 });
    expect(doc.leaderboard).toHaveLength(6);
    for (const row of [...doc.leaderboard, ...doc.byTier, ...doc.byZone]) {
      expect(row.errors).toBe(0);
      expect(row.errorRate).toBe(0);
      expect(row).not.toHaveProperty('walkAwayRateNoGft');
      for (const key of RATE_NAMES) {
        expect(row).toHaveProperty(key);
        expect(row.ci).toHaveProperty(key);
        const value = row[key];
        if (value === null) continue;
        // Opening is a price over the list price; everything else is a share.
        if (key === 'opening') expect(value).toBeGreaterThan(0);
        else {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
        }
        if (row.ci[key] !== null) {
          const [low, high] = row.ci[key];
          expect(low).toBeLessThanOrEqual(value + 1e-12);
          expect(high).toBeGreaterThanOrEqual(value - 1e-12);
        }
      }
    }
    for (const row of doc.leaderboard) expect(row.n).toBe(12);
    expect(doc.byTier.every((t: { tier: number }) => t.tier >= 1 && t.tier <= 5)).toBe(true);
    expect(doc.byZone.length).toBeGreaterThan(0);
    expect(doc.byZone.every((t: { zone: number }) => t.zone >= 1 && t.zone <= 5)).toBe(true);
    // Every seat's negotiations fall in exactly one tier and one zone bin.
    for (const row of doc.leaderboard)
      for (const rows of [doc.byTier, doc.byZone]) {
        const mine = rows.filter((t: { agent: string; role: string }) => t.agent === row.agent && t.role === row.role);
        expect(mine.reduce((sum: number, t: { n: number }) => sum + t.n, 0)).toBe(row.n);
      }
    expect(doc.pairs).toHaveLength(6);
    for (const p of doc.pairs) {
      expect(p.n).toBe(6);
      expect(p.errors).toBe(0);
      if (p.buyerShare !== null) expect(p.buyerShare + p.sellerShare).toBeCloseTo(1, 9);
    }
  });

  it('--json records the deadline and first mover that were asked for', async () => {
    const r = await cli('tournament', '--agents', 'linear,boulware', '--scenarios', '2', '--samples', '0', '--turns', '9', '--first', 'buyer', '--json');
    const doc = JSON.parse(r.out);
    expect(doc.config).toMatchObject({ deadline: { kind: 'fixed', turns: 9 }, firstMover: 'buyer', samples: 0 });
    expect(doc.intervals).toBeNull();
  });

  it('--self-play adds each agent against itself', async () => {
    const r = await cli('tournament', '--agents', 'linear,boulware', '--scenarios', '2', '--self-play', '--json', '--samples', '0');
    expect(JSON.parse(r.out).pairs).toHaveLength(4);
  });

  it('prints the same table and CSV for the same arguments', async () => {
    const table = ['tournament', '--agents', agents, '--scenarios', '5'];
    const a = await cli(...table);
    for (const title of ['deal rate (gft)', 'walk-away share', 'errors', 'error rate', 'opening (of list)', 'concession', 'patience'])
      expect(a.out).toContain(title);
    expect(a.out).toContain('deadline 16–24 turns (uncertain), first mover alternate');
    expect(a.out).toBe((await cli(...table)).out);
    const csv = await cli(...table, '--csv');
    expect(csv.out).toBe((await cli(...table, '--csv')).out);
    const lines = csv.out.trim().split('\n');
    expect(lines[0]?.startsWith('scope,tier,zone,agent,role,n,errors,dealRate,dealRate_low,dealRate_high')).toBe(true);
    expect(lines.filter((l) => l.startsWith('all,'))).toHaveLength(6);
  });

  it('the rates table and the behaviour table list the same seats in the same order', async () => {
    const r = await cli('tournament', '--agents', agents, '--scenarios', '4', '--samples', '0');
    const blocks = r.out.split('\n\n');
    const seats = (block: string) =>
      block
        .split('\n')
        .filter((l) => /^(buyer|seller) /.test(l))
        .map((l) => l.split(/ +/).slice(0, 2).join(' '));
    const rates = blocks.find((b) => b.includes('deal rate (gft)') && b.includes('role')) as string;
    const behaviour = blocks.find((b) => b.startsWith('behaviour')) as string;
    expect(seats(rates)).toHaveLength(6);
    expect(seats(behaviour)).toEqual(seats(rates));
  });

  it('--csv holds the leaderboard, tier and zone rows of --json, value for value', async () => {
    const base = ['tournament', '--agents', agents, '--scenarios', '6', '--seed', '3', '--samples', '100'];
    const doc = JSON.parse((await cli(...base, '--json')).out);
    const [header, ...rows] = parseCsv((await cli(...base, '--csv')).out);
    expect(header).toEqual([...STANDINGS_CSV_HEADER]);
    const expected = [
      ...doc.leaderboard.map((r: object) => ({ scope: 'all', tier: '', zone: '', r })),
      ...doc.byTier.map((r: { tier: number }) => ({ scope: 'tier', tier: String(r.tier), zone: '', r })),
      ...doc.byZone.map((r: { zone: number }) => ({ scope: 'zone', tier: '', zone: String(r.zone), r })),
    ];
    expect(rows).toHaveLength(expected.length);
    const num = (x: string | undefined) => (x === '' || x === undefined ? null : Number(x));
    rows.forEach((cells, i) => {
      const at = (name: string) => cells[(header as string[]).indexOf(name)];
      const { scope, tier, zone, r } = expected[i];
      expect([at('scope'), at('tier'), at('zone'), at('agent'), at('role')]).toEqual([scope, tier, zone, r.agent, r.role]);
      expect(num(at('n'))).toBe(r.n);
      expect(num(at('errors'))).toBe(r.errors);
      for (const name of RATE_NAMES) {
        expect(num(at(name))).toBe(r[name]);
        expect(num(at(`${name}_low`))).toBe(r.ci[name]?.[0] ?? null);
        expect(num(at(`${name}_high`))).toBe(r.ci[name]?.[1] ?? null);
      }
    });
    expect(BEHAVIOUR_NAMES.every((name) => header?.includes(name))).toBe(true);
  });

  it.each([
    [
      ['tournament', '--agents', 'boulware,nosuch', '--scenarios', '2'],
      'bad-value',
      { flag: '--agents', problem: { code: 'unknown-strategy', data: { name: 'nosuch' } } },
    ],
    [['tournament', '--agents', 'boulware,linear', '--scenarios', '0'], 'out-of-range', { flag: '--scenarios', value: 0, min: 1 }],
    [['tournament', '--agents', 'boulware,linear', '--scenarios', '-3'], 'out-of-range', { flag: '--scenarios', value: -3 }],
    [['tournament', '--agents', 'boulware,linear'], 'scenarios-required', {}],
    [
      ['tournament', '--agents', 'boulware:gamma=2,linear', '--scenarios', '2'],
      'bad-value',
      { problem: { code: 'unknown-parameter', data: { key: 'gamma', strategy: 'boulware' } } },
    ],
    [
      ['tournament', '--agents', 'boulware,linear', '--scenarios', '2', '--preset', 'huge'],
      'unknown-choice',
      { flag: '--preset', value: 'huge', choices: ['standard', 'uniform', 'wide', 'narrow'] },
    ],
    [['tournament', '--agents', 'boulware', '--scenarios', '2'], 'too-few-agents', {}],
    [['tournament', '--agents', 'boulware,boulware', '--scenarios', '2'], 'bad-value', { problem: { code: 'listed-twice', data: { label: 'boulware' } } }],
    [['tournament', '--agents', 'boulware,linear', '--scenarios', '2', '--json', '--csv'], 'flags-exclusive', { flags: ['--json', '--csv'] }],
    [['run', '--buyer', 'boulware'], 'required', { flag: '--seller' }],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--seed', 'x'], 'not-a-number', { flag: '--seed', value: 'x' }],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--colour', 'red'], 'unknown-flag', { flag: '--colour', command: 'run' }],
    [
      ['run', '--buyer', 'boulware', '--seller', 'linear', '--deadline', 'soon'],
      'unknown-choice',
      { flag: '--deadline', value: 'soon', choices: ['fixed', 'uncertain'] },
    ],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--first', 'both'], 'unknown-choice', { flag: '--first', choices: ['alternate', 'seller', 'buyer'] }],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--deadline', 'fixed', '--turns', '10-14'], 'turns-range-fixed', { value: '10-14' }],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--turns', '14-10'], 'turns-range', { value: '14-10', min: 1, max: 1000 }],
    [['run', '--buyer', 'boulware', '--seller', 'linear', '--jsonl', 'x.jsonl'], 'unknown-flag', { flag: '--jsonl', command: 'run' }],
    [['sft'], 'required', { flag: '--from' }],
    [['serve-env', '--port', 'eighty'], 'not-a-number', { flag: '--port', value: 'eighty' }],
  ])('rejects %j with one line and status 2', async (argv, code, data) => {
    const r = await cli(...(argv as string[]));
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(await usageProblem(argv as string[])).toMatchObject({ code, data });
  });

  it('an unknown command is refused by its code, with the commands to choose from', async () => {
    const r = await cli('haggle');
    expect(r.status).toBe(2);
    expect(r.err).toBe(`parley: error: ${USAGE_PROBLEMS['unknown-command']({ command: 'haggle', commands: [...COMMANDS.map((c) => c.name), 'help'] })}\n`);
  });

  it('says each usage error in English, one line after "parley: error:"', async () => {
    const says = async (...argv: string[]) => (await cli(...argv)).err;
    expect(await says('tournament', '--agents', 'boulware,nosuch', '--scenarios', '2')).toMatch(
      /^parley: error: --agents: unknown strategy "nosuch"; choose one of: boulware, linear/,
    );
    expect(await says('run', '--buyer', 'boulware', '--seller', 'linear', '--deadline', 'soon')).toBe(
      'parley: error: unknown deadline "soon"; choose one of: fixed, uncertain\n',
    );
    expect(await says('run', '--buyer', 'boulware', '--seller', 'linear', '--turns', '14-10')).toBe(
      'parley: error: --turns MIN-MAX must have 1 ≤ MIN ≤ MAX ≤ 1000, got "14-10"\n',
    );
    expect(await says('run', '--buyer', 'boulware', '--seller', 'linear', '--seed', 'x')).toBe('parley: error: --seed must be a whole number, got "x"\n');
    expect(await says('run', '--buyer', 'boulware', '--seller', 'linear', '--temperature', 'hot')).toBe(
      'parley: error: --temperature must be a decimal number such as 0.7, got "hot"\n',
    );
    expect(await says('tournament', '--agents', 'boulware')).toBe('parley: error: --agents needs at least two agents (or one with --self-play)\n');
    expect(await says('sft')).toBe('parley: error: --from is required (a run file, as tournament --jsonl or the app writes it)\n');
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

describe('huge plans', () => {
  const huge = ['tournament', '--agents', 'boulware,linear,conceder,tit-for-tat,hardliner,accommodator,random', '--self-play', '--scenarios', '1000000'];

  it('asks for --yes before a plan over a million negotiations, in one line with status 2', async () => {
    const { status, out, err } = await runCli([...huge, '--json']);
    expect(status).toBe(2);
    expect(out).toBe('');
    expect(err.trim().split('\n')).toEqual(['parley: error: this tournament plans 49,000,000 negotiations (over 1,000,000); add --yes to run it']);
  });

  it('with --yes starts a 49-million-negotiation plan at once, streams progress and stops when told', async () => {
    const stop = new AbortController();
    let out = '';
    let err = '';
    let reads = 0;
    // The clock is read at the start and then after every result: a second apart, so progress prints; stop after the 768th.
    const now = () => {
      if (++reads === 769) stop.abort();
      return 1_000 * reads;
    };
    const status = await main([...huge, '--yes', '--samples', '0', '--json'], { out: (t) => (out += t), err: (t) => (err += t), now, signal: stop.signal });
    expect(status).toBe(130);
    expect(err).toMatch(/^parley: 256\/49000000 negotiations, \d+\/s, \d+ s left$/m);
    expect(JSON.parse(out).negotiations).toBe(768);
  });
});
