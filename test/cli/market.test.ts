import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchMarkets } from '../../src/cli/bench-market';
import { main } from '../../src/cli/main';
import { MarketEventSchema } from '../../src/games/market/events';
import { MarketScenarioSchema } from '../../src/games/market/scenario';
import { runCli, usageProblem } from './helpers';
import { move, promptOf, start, type ChatServer, type RecordedRequest } from '../support/chat-server';

const cli = (...argv: string[]) => runCli(argv);
const METRICS = [
  'constraintAdherence',
  'sellerSurplus',
  'buyerSurplus',
  'extraction',
  'allocationQuality',
  'optimalWelfare',
  'realisedWelfare',
  'sellThrough',
  'budgetUsed',
];

describe('parley market', () => {
  it('--json prints the scenario, events, allocation and the nine metrics, which agree with each other', async () => {
    const r = await cli(
      'market',
      '--buyers',
      '4',
      '--products',
      '3',
      '--budget',
      '7',
      '--valuation',
      'correlated',
      '--seller',
      'greedy',
      '--seed',
      '5',
      '--json',
    );
    expect(r.status).toBe(0);
    expect(r.err).toBe('');
    const doc = JSON.parse(r.out);
    expect(MarketScenarioSchema.parse(doc.scenario)).toEqual(doc.scenario);
    expect(doc.scenario.products).toHaveLength(3);
    for (const p of doc.scenario.products) expect(Object.keys(p)).toEqual(expect.arrayContaining(['cost', 'listPrice', 'stock']));
    expect(doc.scenario.buyers).toHaveLength(4);
    for (const b of doc.scenario.buyers) expect(b.values).toHaveLength(3);
    expect(doc.scenario.budget).toBe(7);
    expect(doc.scenario.valuation).toBe('correlated');
    expect(doc.agents).toEqual({ seller: 'greedy', buyer: 'margin' });
    for (const e of doc.events) expect(MarketEventSchema.safeParse(e).success).toBe(true);
    expect(Object.keys(doc.metrics)).toEqual(METRICS);
    const { sales, optimal } = doc.allocation;
    const cost = (id: string) => doc.scenario.products.find((p: { id: string }) => p.id === id).cost;
    const sellerSurplus = sales.reduce((s: number, x: { product: string; price: number }) => s + x.price - cost(x.product), 0);
    expect(doc.metrics.sellerSurplus).toBeCloseTo(sellerSurplus, 6);
    expect(doc.metrics.optimalWelfare).toBeCloseTo(
      optimal.reduce((s: number, a: { welfare: number }) => s + a.welfare, 0),
      6,
    );
    expect(doc.metrics.extraction).toBeCloseTo(doc.metrics.sellerSurplus / doc.metrics.optimalWelfare, 9);
    expect(doc.metrics.realisedWelfare).toBeCloseTo(doc.metrics.sellerSurplus + doc.metrics.buyerSurplus, 6);
    expect(doc.metrics.sellThrough).toBe(sales.length / 3);
    expect(doc.events.at(-1)).toEqual({ type: 'end', turn: doc.events.at(-1).turn, outcome: doc.outcome });
  });

  it('prints a readable summary: the turns, the ending, both allocations and every metric', async () => {
    const r = await cli('market', '--buyers', '3', '--products', '3', '--seed', '2');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^market .*: 3 buyers × 3 products, independent values, budget 6 seller turns, seed 2$/m);
    expect(r.out).toMatch(/^ {2}1 seller → b1: p\d at \$\d+\.\d\d/m);
    expect(r.out).toMatch(/^ended: /m);
    expect(r.out).toMatch(/^optimal allocation/m);
    for (const label of [
      'constraint adherence',
      'seller surplus',
      'buyer surplus',
      'extraction',
      'allocation quality',
      'optimal welfare',
      'realised welfare',
      'sell-through',
      'budget used',
    ])
      expect(r.out).toMatch(new RegExp(`^${label} +\\S+$`, 'm'));
  });

  it('a preset gives the sizes; flags laid over it change them; the same arguments print the same bytes', async () => {
    const doc = JSON.parse((await cli('market', '--preset', 'scarce', '--json')).out);
    expect(doc.scenario.buyers).toHaveLength(10);
    expect(doc.scenario.products).toHaveLength(4);
    expect(doc.scenario.config).toBe('scarce');
    const over = JSON.parse((await cli('market', '--preset', 'scarce', '--products', '6', '--json')).out);
    expect(over.scenario.products).toHaveLength(6);
    expect(over.scenario.config).toBeUndefined();
    const args = ['market', '--buyers', '6', '--products', '5', '--seller', 'random', '--buyer', 'random', '--seed', '8', '--json'];
    expect((await cli(...args)).out).toBe((await cli(...args)).out);
  });

  it.each([
    [['market', '--products', '3'], 'required', { flag: '--buyers' }],
    [['market', '--buyers', '51', '--products', '3'], 'out-of-range', { flag: '--buyers', value: 51, min: 1, max: 50 }],
    [
      ['market', '--buyers', '2', '--products', '2', '--valuation', 'weird'],
      'unknown-choice',
      { flag: '--valuation', value: 'weird', choices: ['independent', 'correlated', 'shifted', 'segmented', 'lognormal'] },
    ],
    [
      ['market', '--buyers', '2', '--products', '2', '--seller', 'margin'],
      'bad-value',
      { flag: '--seller', problem: { code: 'unknown-strategy', data: { role: 'seller', name: 'margin' } } },
    ],
    [
      ['market', '--buyers', '2', '--products', '2', '--buyer', 'margin:patience=-1'],
      'bad-value',
      { flag: '--buyer', problem: { code: 'parameter-out-of-range', data: { key: 'patience', value: -1 } } },
    ],
    [['market', '--buyers', '2', '--products', '2', '--budget', '0'], 'out-of-range', { flag: '--budget', value: 0, min: 1, max: 10000 }],
    [['market', '--preset', 'huge'], 'unknown-market-preset', { name: 'huge' }],
    [['market', '--buyers', '2', '--products', '2', '--turns', '3'], 'unknown-flag', { flag: '--turns', command: 'market' }],
    [['market-tournament', '--sellers', 'greedy,nope'], 'bad-value', { flag: '--sellers', problem: { code: 'unknown-strategy', data: { name: 'nope' } } }],
    [['market-tournament', '--configs', 'small,small'], 'config-twice', { name: 'small' }],
    [['market-tournament', '--configs', 'tiny'], 'unknown-config', { name: 'tiny' }],
    [['market-tournament', '--markets', '0'], 'out-of-range', { flag: '--markets', value: 0, min: 1 }],
  ])('bad input %j: one line on stderr, exit status 2', async (argv, code, data) => {
    const r = await runCli(argv);
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(await usageProblem(argv)).toMatchObject({ code, data });
  });

  it('says a refused market flag in English', async () => {
    expect((await runCli(['market', '--buyers', '2', '--products', '2', '--seller', 'margin'])).err).toMatch(
      /^parley: error: --seller: unknown market seller "margin"; choose one of: /,
    );
    expect((await runCli(['market-tournament', '--configs', 'small,small'])).err).toBe('parley: error: --configs: "small" is listed twice\n');
  });

  it('the commands are in the help and the unknown-command message', async () => {
    expect((await cli('help')).out).toMatch(/^ {2}market {6}--buyers N --products M/m);
    expect((await cli('help')).out).toMatch(/^ {2}market-tournament /m);
    expect((await cli('bazaar')).err).toMatch(/choose one of: run, tournament, strategies, check, market, market-tournament, serve-env, sft, help/);
  });
});

describe('parley market-tournament', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-market-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--json gives standings per configuration for every seller, held-out ones marked, with intervals', async () => {
    const r = await cli('market-tournament', '--configs', 'small,held-out-7x5-segmented', '--markets', '4', '--seed', '3', '--samples', '200', '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.markets).toBe(2 * 4 * 3);
    expect(doc.config.sellers).toEqual(['catalog', 'greedy', 'explore']);
    expect(doc.config.configs.map((c: { name: string; heldOut: boolean }) => [c.name, c.heldOut])).toEqual([
      ['small', false],
      ['held-out-7x5-segmented', true],
    ]);
    const rows = doc.standings.filter((s: { scope: string }) => s.scope === 'config');
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row.n).toBe(4);
      expect(Object.keys(row.metrics)).toEqual(METRICS);
      const e = row.metrics.allocationQuality;
      expect(e.ci[0]).toBeLessThanOrEqual(e.value);
      expect(e.ci[1]).toBeGreaterThanOrEqual(e.value);
    }
    expect(doc.standings.find((s: { config: string }) => s.config === 'held-out').heldOut).toBe(true);
    expect(doc.intervals).toMatchObject({ unit: 'market', level: 0.95, samples: 200 });
  });

  it('prints a table per configuration, held-out ones marked; --samples 0 leaves intervals out', async () => {
    const r = await cli(
      'market-tournament',
      '--sellers',
      'greedy,explore:probe=1.5',
      '--configs',
      'standard,held-out-4x9-lognormal',
      '--markets',
      '3',
      '--samples',
      '0',
    );
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^12 markets: 2 sellers × 2 configurations × 3 markets, buyers margin, seed 1$/m);
    expect(r.out).toMatch(/^standard: 5 buyers × 5 products/m);
    expect(r.out).toMatch(/^held-out-4x9-lognormal \[held out\]: /m);
    expect(r.out).toMatch(/^explore:probe=1\.5 +3 +0 +1\.000 /m);
    expect(r.out).not.toMatch(/\[\d/);
  });

  it('--jsonl writes a run file of the market game: a header and one market a line, events and all', async () => {
    const path = join(dir, 'markets.jsonl');
    const r = await cli('market-tournament', '--configs', 'small', '--markets', '2', '--jsonl', path);
    expect(r.status).toBe(0);
    const lines = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ format: 'parley-run-jsonl', version: 4, game: 'market', run: { status: 'done', planned: 6, done: 6, message: null } });
    expect(lines).toHaveLength(7);
    for (const [index, m] of lines.slice(1).entries()) {
      expect(MarketScenarioSchema.safeParse(m.scenario).success).toBe(true);
      expect(m.events.every((e: unknown) => MarketEventSchema.safeParse(e).success)).toBe(true);
      expect(m).toMatchObject({ index, config: 'small', metrics: { sellerSurplus: expect.any(Number) } });
    }
    await expect(stat(`${path}.rows.tmp`)).rejects.toThrow();
  });

  it('a stopped tournament reports what had finished, writes it as a cancelled run, and exits 130', async () => {
    const path = join(dir, 'stopped.jsonl');
    const stop = new AbortController();
    stop.abort();
    let err = '';
    let out = '';
    const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), now: () => 0, signal: stop.signal };
    const status = await main(['market-tournament', '--configs', 'small', '--markets', '2', '--samples', '0', '--jsonl', path], io);
    expect(status).toBe(130);
    expect(err).toBe('parley: stopped after 0/6 markets; the results below cover those\n');
    expect(out).toMatch(/^0 markets: /);
    const [head] = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(head.run).toMatchObject({ status: 'cancelled', planned: 6, done: 0, message: 'stopped from the command line after 0 of 6 markets' });
  });
});

describe('benchMarkets', () => {
  it('returns printable lines: markets per second per seller at 10×10 and 20×20, and the median optimal matching at 20×20', () => {
    const lines = benchMarkets({ seconds: 0.001, warmUp: 1, minMarkets: 2 });
    expect(lines).toHaveLength(4);
    for (const [i, size] of [
      [1, '10×10'],
      [2, '20×20'],
    ] as const)
      expect(lines[i]).toMatch(new RegExp(`^  ${size}: catalog [\\d,]+/s \\([\\d.]+ ms CPU, \\d+ events each\\); greedy .*; explore `));
    expect(lines[3]).toMatch(/^optimal matching \(Hungarian\), 20×20 market: median [\d.]+ (ms|µs) \(target under 5 ms: (met|missed)\)$/);
  });
});

describe('parley market with a model seat', () => {
  let server: ChatServer;
  /** A seller model that offers the first product in stock to the first buyer left, at list price. */
  const seller = (req: RecordedRequest) => {
    const { user } = promptOf(req);
    const buyer = /Buyers still in the market: (b\d+)/.exec(user)?.[1];
    const product = /- (p\d+) [^:]*: list \$([\d.]+), cost \$[\d.]+, stock [1-9]/.exec(user);
    return move({ buyer, product: product?.[1], price: Number(product?.[2]), message: 'Take a look.' });
  };
  beforeAll(async () => {
    server = await start(seller);
  });
  afterAll(async () => {
    await server.close();
  });

  it('plays the seller seat over HTTP, each move with its model call, the key sent only to --base-url', async () => {
    const r = await runCli(
      ['market', '--buyers', '3', '--products', '3', '--seller', 'openai:test-model', '--interface', 'json', '--base-url', `${server.url}/v1`, '--json'],
      { PARLEY_API_KEY: 'sk-market-test-0123456789' },
    );
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.agents.seller).toBe('openai:test-model');
    const moves = doc.events.filter((e: { type: string; actor: string }) => e.type === 'move' && e.actor === 'seller');
    expect(moves.length).toBeGreaterThan(0);
    for (const e of moves) expect(e.call).toMatchObject({ backend: 'openai', model: 'test-model' });
    expect(doc.seats.seller.calls).toBe(server.requests.length);
    for (const req of server.requests) expect(req.headers.authorization).toBe('Bearer sk-market-test-0123456789');
    expect(r.out).not.toContain('sk-market-test');
  });

  it('a model seat without its key is a usage error', async () => {
    const r = await runCli(['market', '--buyers', '2', '--products', '2', '--buyer', 'anthropic:claude-x'], {});
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/^parley: error: anthropic:claude-x needs a key: set ANTHROPIC_API_KEY/);
  });
});
