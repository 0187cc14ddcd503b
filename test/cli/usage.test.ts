import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, usageProblem } from './helpers';

const cli = (argv: string[]) => runCli(argv, { PARLEY_API_KEY: 'sk-usage' });
import { move, promptOf, start, type ChatServer, type RecordedRequest } from '../support/chat-server';

/** Offers its own number, accepts any offer on the table; 300 tokens in and 40 out per call. */
function answer(req: RecordedRequest) {
  const { system, user } = promptOf(req);
  const tokens = { tokensIn: 300, tokensOut: 40 };
  if (/you may accept it/.test(user)) return move({ action: { type: 'accept' } }, tokens);
  const list = Number(/list price \$(\d+(?:\.\d+)?)/.exec(system)?.[1] ?? '100');
  const price = Math.round(list * (/You are the buyer/.test(system) ? 0.6 : 1.1) * 100) / 100;
  return move({ message: 'My offer.', action: { type: 'offer', price } }, tokens);
}

describe('the CLI reports model usage and cost', () => {
  let server: ChatServer;
  beforeAll(async () => {
    server = await start(answer);
  });
  afterAll(async () => {
    await server.close();
  });
  const tournament = (...extra: string[]) =>
    cli(['tournament', '--agents', 'openai:test-model,boulware,conceder', '--scenarios', '2', '--samples', '0', '--base-url', `${server.url}/v1`, ...extra]);

  it('prints a usage table after the leaderboard, with the cost from --price', async () => {
    const before = server.requests.length;
    const r = await tournament('--price', 'openai:test-model=2.5,10');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const calls = server.requests.length - before;
    expect(calls).toBeGreaterThan(8);
    const lines = r.out.split('\n');
    const title = lines.indexOf('model usage (latency is wall-clock time per call; cost estimated from --price)');
    expect(title).toBeGreaterThan(lines.findIndex((l) => l.startsWith('role ')));
    expect(title).toBeLessThan(lines.findIndex((l) => l.startsWith('buyer ') && l.includes('seller')));
    expect(lines[title + 1]).toMatch(/^agent +negotiations +calls +tokens in +tokens out +latency\/call +cost$/);
    const cost = (calls * 300 * 2.5 + calls * 40 * 10) / 1e6;
    const usd = cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
    const count = (n: number) => n.toLocaleString('en-US');
    // The model sat in 8 of the 12 negotiations; boulware and conceder made no call and have no row.
    expect(lines[title + 3]).toMatch(new RegExp(`^openai:test-model +8 +${calls} +${count(300 * calls)} +${count(40 * calls)} +\\d+ ms +\\${usd}$`));
    expect(lines[title + 4]).toMatch(new RegExp(`^all agents +12 +${calls} +${count(300 * calls)} +${count(40 * calls)} +\\d+ ms +\\${usd}$`));
    expect(lines[title + 5]).toBe('');
  });

  it('--json carries the usage, the prices and the cost of each row', async () => {
    const before = server.requests.length;
    const r = await tournament('--json', '--price', 'openai:test-model=1,3', '--price', 'anthropic:other=3,15');
    expect(r.status).toBe(0);
    const calls = server.requests.length - before;
    const doc = JSON.parse(r.out);
    expect(doc.config.prices).toEqual({
      'openai:test-model': { inputPerMTok: 1, outputPerMTok: 3 },
      'anthropic:other': { inputPerMTok: 3, outputPerMTok: 15 },
    });
    const rows = doc.usage.byAgent as { agent: string; role: string; calls: number; tokensIn: number; tokensOut: number }[];
    expect(rows.map((row) => `${row.agent}/${row.role}`)).toEqual(['openai:test-model/all', 'openai:test-model/buyer', 'openai:test-model/seller']);
    expect(rows[0]).toMatchObject({ negotiations: 8, calls, tokensIn: 300 * calls, tokensOut: 40 * calls });
    expect(rows[1]!.calls + rows[2]!.calls).toBe(calls);
    expect(doc.usage.total).toMatchObject({ negotiations: 12, calls });
    expect(doc.usage.total.meanLatencyMs).toBeCloseTo(doc.usage.total.latencyMs / calls, 9);
    expect(doc.cost.totalUsd).toBeCloseTo((300 * calls * 1 + 40 * calls * 3) / 1e6, 12);
    expect(doc.cost.unpriced).toEqual([]);
    expect(doc.cost.byAgent[1]).toEqual({
      agent: 'openai:test-model',
      role: 'buyer',
      usd: expect.closeTo((rows[1]!.tokensIn + 3 * rows[1]!.tokensOut) / 1e6, 12),
    });
  });

  it('without --price the table has no cost column, and the JSON no cost', async () => {
    const text = await tournament();
    expect(text.out).toContain('model usage (latency is wall-clock time per call)\nagent ');
    expect(text.out).not.toMatch(/ cost$/m);
    const json = JSON.parse((await tournament('--json')).out);
    expect(json).not.toHaveProperty('cost');
    expect(json.usage.byAgent).toHaveLength(3);
  });

  it('a single run prints each model side’s calls, tokens, latency and cost', async () => {
    const before = server.requests.length;
    const r = await cli([
      'run',
      '--buyer',
      'openai:test-model',
      '--seller',
      'boulware',
      '--seed',
      '4',
      '--base-url',
      `${server.url}/v1`,
      '--price',
      'openai:test-model=15,60',
    ]);
    expect(r.status).toBe(0);
    const calls = server.requests.length - before;
    const usd = (calls * 300 * 15 + calls * 40 * 60) / 1e6;
    expect(r.out).toMatch(
      new RegExp(
        `^buyer openai:test-model: ${calls} model calls?, ${(300 * calls).toLocaleString('en-US')} tokens in, ${40 * calls} out, \\d+ ms per call, cost \\$${usd.toFixed(4)}$`,
        'm',
      ),
    );
    expect(r.out).not.toMatch(/^seller boulware: \d+ model call/m);
  });

  it('scripted agents alone print no usage table', async () => {
    const r = await cli(['tournament', '--agents', 'boulware,conceder', '--scenarios', '2', '--samples', '0']);
    expect(r.status).toBe(0);
    expect(r.out).not.toContain('model usage');
  });

  it.each([
    [
      ['--price', 'openai:test-model'],
      '--price must be SPEC=IN,OUT in US dollars per million input and output tokens, e.g. openai:gpt-4o-mini=0.15,0.6; got "openai:test-model"',
    ],
    [
      ['--price', 'openai:test-model=1'],
      '--price must be SPEC=IN,OUT in US dollars per million input and output tokens, e.g. openai:gpt-4o-mini=0.15,0.6; got "openai:test-model=1"',
    ],
    [['--price', 'openai:test-model=1,x'], '--price openai:test-model: output price: "x" is not a number; write dollars per million tokens, e.g. 0.15'],
    [['--price', 'openai:test-model=-2,1'], '--price openai:test-model: input price: a price cannot be negative, got -2'],
    [
      ['--price', 'openai:test-model=Infinity,1'],
      '--price openai:test-model: input price: "Infinity" is not a number; write dollars per million tokens, e.g. 0.15',
    ],
    [['--price', 'webllm:Qwen3-0.6B-q4f32_1-MLC=1,1'], '--price: WebLLM models run on this device and cost nothing; they need no price'],
    [['--price', 'openai:test-model=1,1', '--price', 'openai:test-model=2,2'], '--price for openai:test-model given twice'],
    [['--price'], '--price needs a value'],
  ])('a bad %j is one line and exit status 2, before any model is called', async (flags, message) => {
    const before = server.requests.length;
    const r = await tournament(...flags);
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(`parley: error: ${message}\n`);
    expect(server.requests.length).toBe(before);
  });

  it('says by code which part of a --price was refused, the model’s or a price’s problem inside', async () => {
    const base = ['tournament', '--agents', 'openai:test-model,boulware', '--scenarios', '2', '--samples', '0', '--base-url', `${server.url}/v1`];
    const refused = (price: string) => usageProblem([...base, '--price', price], { PARLEY_API_KEY: 'sk-usage' });
    expect(await refused('webllm:Qwen3-0.6B-q4f32_1-MLC=1,1')).toEqual({
      code: 'bad-value',
      data: { flag: '--price', problem: { code: 'local-model', data: {}, message: expect.any(String) } },
    });
    expect(await refused('boulware=1,1')).toMatchObject({ code: 'bad-value', data: { problem: { code: 'not-remote', data: { spec: 'boulware' } } } });
    expect(await refused('openai:test-model=1,x')).toMatchObject({
      code: 'bad-price',
      data: { spec: 'openai:test-model', side: 'output', problem: { code: 'price-not-decimal', data: { value: 'x' } } },
    });
    expect(await refused('openai:test-model=-2,1')).toMatchObject({
      code: 'bad-price',
      data: { side: 'input', problem: { code: 'negative-price', data: { value: '-2' } } },
    });
  });
});
