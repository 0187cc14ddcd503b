import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFile } from '../../src/storage/run-file';
import { runCli as cli } from './helpers';
import { move, promptOf, slow, start, type ChatServer, type RecordedRequest } from '../support/chat-server';

const KEY = 'sk-test-do-not-print-0123456789';

/** A model that accepts any offer on the table and otherwise offers its own number. */
function answer(req: RecordedRequest) {
  const { system, user } = promptOf(req);
  // A little latency, so that calls made at once overlap at the server.
  if (/you may accept it/.test(user)) return slow(15, move({ action: { type: 'accept' } }));
  const own = Number(/Your private (?:value for it|cost for it|cost): \$([\d.]+)/.exec(system)?.[1] ?? '100');
  const price = /You are the buyer/.test(system) ? own * 0.8 : own * 1.2;
  return slow(15, move({ message: 'My offer.', action: { type: 'offer', price: Math.round(price * 100) / 100 } }));
}

describe('the CLI with remote models', () => {
  let server: ChatServer;
  beforeAll(async () => {
    server = await start(answer);
  });
  afterAll(async () => {
    await server.close();
  });

  it('plays a remote model over HTTP, with the key given for --base-url sent only there and printed nowhere', async () => {
    const r = await cli(['run', '--buyer', 'openai:test-model', '--seller', 'boulware', '--seed', '2', '--base-url', `${server.url}/v1`, '--json'], {
      PARLEY_API_KEY: KEY,
      OPENAI_API_KEY: 'sk-openai-not-for-this-host-0000',
    });
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.out);
    const buyerMoves = doc.events.filter((e: { type: string; actor: string }) => e.type === 'move' && e.actor === 'buyer');
    expect(buyerMoves.length).toBeGreaterThan(0);
    for (const e of buyerMoves) expect(e.call).toMatchObject({ backend: 'openai', model: 'test-model' });
    expect(server.requests.length).toBe(buyerMoves.length);
    for (const req of server.requests) expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.out).not.toContain(KEY);
  });

  it('plays a tournament with remote and scripted agents, several calls at once, and writes it for the app', async () => {
    const before = server.requests.length;
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-remote-'));
    const path = join(dir, 'remote.jsonl');
    try {
      const r = await cli(
        [
          'tournament',
          '--agents',
          'openai:test-model,boulware,conceder',
          '--scenarios',
          '3',
          '--samples',
          '0',
          '--concurrency',
          '4',
          '--base-url',
          `${server.url}/v1`,
          '--json',
          '--jsonl',
          path,
        ],
        { PARLEY_API_KEY: KEY },
      );
      expect(r.status).toBe(0);
      const doc = JSON.parse(r.out);
      expect(doc.negotiations).toBe(18);
      expect(doc.leaderboard.filter((row: { agent: string }) => row.agent === 'openai:test-model')).toHaveLength(2);
      expect(server.requests.length).toBeGreaterThan(before);
      expect(server.maxInFlight).toBeGreaterThan(1);
      expect(r.out + r.err).not.toContain(KEY);
      // The model's calls (prompts and raw answers included) are in a file the app imports, in plan order.
      const text = readFileSync(path, 'utf8');
      expect(text).not.toContain(KEY);
      const checked = readRunFile(text);
      if (!checked.ok) throw new Error(checked.error.message);
      expect(checked.value.rows.map((row) => row.index)).toEqual([...Array(18).keys()]);
      const calls = checked.value.rows.flatMap((row) => row.events.flatMap((e) => ('call' in e && e.call ? [e.call] : [])));
      expect(calls.length).toBe(server.requests.length - before);
      for (const call of calls) expect(call).toMatchObject({ backend: 'openai', model: 'test-model' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a remote model that needs a key it was not given, naming the variable', async () => {
    const r = await cli(['run', '--buyer', 'anthropic:claude-x', '--seller', 'boulware'], {});
    expect(r.status).toBe(2);
    expect(r.err.trim()).toBe(
      'parley: error: anthropic:claude-x needs a key: set ANTHROPIC_API_KEY in the environment (or give --base-url for your own server, with PARLEY_API_KEY)',
    );
    // PARLEY_API_KEY is the --base-url server's key: it is never sent to a provider's own host.
    const parleyOnly = await cli(['run', '--buyer', 'anthropic:claude-x', '--seller', 'boulware'], { PARLEY_API_KEY: KEY });
    expect(parleyOnly.status).toBe(2);
    expect(parleyOnly.err).toMatch(/needs a key: set ANTHROPIC_API_KEY/);
  });

  it('refuses a WebLLM model, which runs only in the browser, before playing anything', async () => {
    const before = server.requests.length;
    const r = await cli(['tournament', '--agents', 'boulware,webllm:Qwen3-0.6B-q4f32_1-MLC', '--scenarios', '1'], {});
    expect(r.status).toBe(2);
    expect(r.err.trim()).toBe(
      'parley: error: webllm:Qwen3-0.6B-q4f32_1-MLC: WebLLM models run only in the browser app (the Arena and Tournament pages), on the GPU of the machine that opens it',
    );
    expect(r.out).toBe('');
    expect(server.requests.length).toBe(before);
  });

  it('tells a model to think with +think, per agent', async () => {
    const before = server.requests.length;
    const r = await cli(['run', '--buyer', 'vllm:m+think', '--seller', 'hardliner', '--base-url', `${server.url}/v1`, '--json'], {});
    expect(r.status).toBe(0);
    expect(JSON.parse(r.out).agents).toMatchObject({ buyer: 'vllm:m+think' });
    const asked = server.requests.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    // The vLLM preset passes the switch to Qwen3's chat template.
    for (const req of asked) {
      expect(req.model).toBe('m');
      expect((req.body as { chat_template_kwargs?: unknown }).chat_template_kwargs).toEqual({ enable_thinking: true });
    }
  });
});
