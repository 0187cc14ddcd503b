/**
 * The command line against a model server that misbehaves in every way it can: huge answers with
 * no move in them, absurd usage figures, and a --base-url with a password. The run still ends
 * with its standings, writes a file the app imports and `check` accepts, and quotes no password.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CALL_TOKENS } from '../../src/agents/backends/types';
import { MAX_NEGOTIATION_RECORD_CHARS } from '../../src/agents/llm/record';
import { reply, start, type ChatServer } from '../support/chat-server';
import { runCli, usageProblem } from './helpers';

const PASSWORD = 'hunter2-do-not-print';

describe('the CLI and a misbehaving model server', () => {
  let server: ChatServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-cli-untrusted-'));
    // 250,000 characters of thinking and as many of prose, no move, and usage no provider could mean.
    const junk = 'blah '.repeat(50_000);
    server = await start(() => reply(junk, { thinking: junk, tokensIn: 1e20, tokensOut: Number.MAX_VALUE }));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a --base-url with a user name and password, in one line that does not repeat them, asking nothing', async () => {
    const before = server.requests.length;
    const url = `${server.url.replace('http://', `http://someone:${PASSWORD}@`)}/v1`;
    const r = await runCli(['run', '--buyer', 'vllm:m', '--seller', 'boulware', '--base-url', url]);
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(await usageProblem(['run', '--buyer', 'vllm:m', '--seller', 'boulware', '--base-url', url])).toMatchObject({
      code: 'bad-value',
      data: { flag: '--base-url', problem: { code: 'base-url-has-credentials', data: {} } },
    });
    expect(r.err).toMatch(/^parley: error: --base-url: /);
    expect(r.err).not.toContain(PASSWORD);
    expect(r.err).not.toContain('someone');
    expect(server.requests.length).toBe(before);
  });

  it('ends a tournament of huge invalid answers with its standings, and a bounded file that check accepts', { timeout: 60_000 }, async () => {
    const path = join(dir, 'huge.jsonl');
    const r = await runCli([
      'tournament',
      '--agents',
      'vllm:m,hardliner',
      '--turns',
      '60',
      '--scenarios',
      '1',
      '--samples',
      '0',
      '--base-url',
      `${server.url}/v1`,
      '--json',
      '--jsonl',
      path,
    ]);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.out) as { negotiations: number; leaderboard: { agent: string }[] };
    expect(doc.negotiations).toBe(2);
    expect(doc.leaderboard.map((row) => row.agent)).toContain('vllm:m');
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    // A header, then one line per negotiation, each within the bound whatever the model sent.
    const negotiations = lines.filter((l) => l.includes('"events"'));
    expect(negotiations).toHaveLength(2);
    for (const line of negotiations) expect(line.length).toBeLessThan(MAX_NEGOTIATION_RECORD_CHARS / 2);
    const stored = negotiations.map((l) => JSON.parse(l) as { events: { type: string; call?: { tokensIn: number; tokensOut: number; raw?: string } }[] });
    const calls = stored.flatMap((n) => n.events.flatMap((e) => (e.call ? [e] : [])));
    // Three attempts at each of the model's turns (30 in each of two negotiations, fewer where the hardliner walks away).
    expect(calls.length).toBeGreaterThan(90);
    expect(calls.length).toBeLessThanOrEqual(180);
    for (const e of calls) {
      expect(e.call).toMatchObject({ tokensIn: MAX_CALL_TOKENS, tokensOut: MAX_CALL_TOKENS });
      // Every answer was invalid: its raw text is on the event, not again on the call.
      expect(e.type).toBe('invalid');
      expect(e.call?.raw).toBeUndefined();
    }
    const checked = await runCli(['check', path]);
    expect(checked.err).toBe('');
    expect(checked.out).toMatch(/^ok: .*, 2 negotiations\n$/);
  });
});
