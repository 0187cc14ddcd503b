import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_NAMES } from '../../src/games/bilateral/aggregate';
import { readRunFile } from '../../src/storage/run-file';
import { failure, start, type ChatServer } from '../support/chat-server';
import { runCli } from './helpers';

/** A real server on 127.0.0.1 that refuses every call, as a provider does a wrong key: not retried. */
describe('a remote agent whose every call fails', () => {
  let server: ChatServer;
  beforeAll(async () => {
    server = await start(() => failure(401, 'Incorrect API key provided'));
  });
  afterAll(async () => {
    await server.close();
  });

  const tournament = (agents: string) =>
    runCli(['tournament', '--agents', agents, '--scenarios', '2', '--samples', '200', '--json', '--base-url', `${server.url}/v1`, '--timeout-ms', '2000']);

  type Row = { agent: string; role: string; n: number; errors: number; ci: Record<string, unknown> } & Record<string, unknown>;
  const seat = (rows: Row[], agent: string, role: string, extra: Partial<Row> = {}) =>
    rows.filter((r) => r.agent === agent && r.role === role && Object.entries(extra).every(([k, v]) => r[k] === v));

  it('ends its negotiations as errors and changes no other agent’s rates', async () => {
    const withFailing = await tournament('boulware,linear,openai:nobody');
    expect(withFailing.status).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    const without = await tournament('boulware,linear');
    const a = JSON.parse(withFailing.out);
    const b = JSON.parse(without.out);
    expect(a.negotiations).toBe(12);

    // Every negotiation with the failing agent is an error: errorRate 1 in its pairs and its own rows.
    const failingPairs = a.pairs.filter((p: { buyer: string; seller: string }) => p.buyer === 'openai:nobody' || p.seller === 'openai:nobody');
    expect(failingPairs).toHaveLength(4);
    for (const p of failingPairs) {
      expect(p.errors).toBe(p.n);
      expect(p.dealRate).toBeNull();
    }
    for (const row of seat(a.leaderboard, 'openai:nobody', 'buyer').concat(seat(a.leaderboard, 'openai:nobody', 'seller'))) {
      expect(row.errors).toBe(row.n);
      expect(row.errorRate).toBe(1);
      for (const name of RATE_NAMES) if (name !== 'errorRate') expect(row[name]).toBeNull();
    }

    // boulware and linear: the errors are counted apart, every other rate and interval is as without the failing agent.
    for (const key of ['leaderboard', 'byTier', 'byZone'] as const)
      for (const other of b[key] as Row[])
        for (const agent of ['boulware', 'linear']) {
          if (other.agent !== agent) continue;
          const where = key === 'byTier' ? { tier: other.tier } : key === 'byZone' ? { zone: other.zone } : {};
          const mine = seat(a[key], agent, other.role, where);
          expect(mine).toHaveLength(1);
          const row = mine[0] as Row;
          expect(other.errors).toBe(0);
          expect(row.n - row.errors).toBe(other.n);
          expect(row.errorRate).toBeCloseTo(row.errors / row.n, 12);
          for (const name of RATE_NAMES) {
            if (name === 'errorRate') continue;
            expect(row[name], `${key} ${agent} ${other.role} ${name}`).toEqual(other[name]);
            expect(row.ci[name], `${key} ${agent} ${other.role} ${name} interval`).toEqual(other.ci[name]);
          }
        }
    for (const agent of ['boulware', 'linear']) for (const role of ['buyer', 'seller']) expect((seat(a.leaderboard, agent, role)[0] as Row).errors).toBe(2);
    // The pair between the two scripted agents is untouched.
    const pair = (doc: { pairs: { buyer: string; seller: string }[] }) => doc.pairs.filter((p) => !p.buyer.includes(':') && !p.seller.includes(':'));
    expect(pair(a)).toEqual(pair(b));
  });

  it('writes the failed negotiations to --jsonl as errors with their message, and the file imports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-errors-'));
    try {
      const path = join(dir, 'errors.jsonl');
      const r = await runCli([
        'tournament',
        '--agents',
        'boulware,openai:nobody',
        '--scenarios',
        '2',
        '--samples',
        '0',
        '--base-url',
        `${server.url}/v1`,
        '--timeout-ms',
        '2000',
        '--jsonl',
        path,
      ]);
      expect(r.status).toBe(0);
      const checked = readRunFile(readFileSync(path, 'utf8'));
      if (!checked.ok) throw new Error(checked.error.message);
      expect(checked.value.run).toMatchObject({ status: 'done', planned: 4, done: 4 });
      for (const row of checked.value.rows) {
        expect(row.outcome).toBe('error');
        const end = row.events.at(-1);
        expect(end?.type === 'end' && end.outcome.kind === 'error' ? end.outcome.message : '').toMatch(/401/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the text leaderboard shows the errors, and the transcript of a run says why', async () => {
    const text = await runCli([
      'tournament',
      '--agents',
      'boulware,openai:nobody',
      '--scenarios',
      '1',
      '--samples',
      '0',
      '--base-url',
      `${server.url}/v1`,
      '--timeout-ms',
      '2000',
    ]);
    expect(text.status).toBe(0);
    expect(text.out).toMatch(/^buyer +openai:nobody +1 +1 /m);
    const run = await runCli(['run', '--buyer', 'openai:nobody', '--seller', 'boulware', '--base-url', `${server.url}/v1`, '--timeout-ms', '2000']);
    expect(run.status).toBe(0);
    expect(run.out).toMatch(/^outcome: error: the buyer's agent failed on turn \d+: .*401.*Incorrect API key provided/m);
  });
});
