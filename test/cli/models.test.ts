/**
 * The command line's model settings, as a local OpenAI-compatible server sees them: one interface
 * for every model (--interface tools|json), the temperature, the token limit, thinking for every
 * model (--thinking) or one (+think), the seeds of a rerun, and what a tournament's run records.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFile } from '../../src/storage/run-file';
import { start, type ChatServer, type RecordedRequest } from '../support/chat-server';
import { policyAnswer } from '../support/policy-model';
import { runCli as cli, usageProblem } from './helpers';

type Body = Record<string, unknown>;

describe('the command line’s model settings', () => {
  let server: ChatServer;
  beforeAll(async () => {
    server = await start(policyAnswer);
  });
  afterAll(async () => {
    await server.close();
  });

  /** The requests one command made, and its result. */
  async function requestsOf(argv: string[]): Promise<{ status: number; out: string; err: string; bodies: Body[]; requests: RecordedRequest[] }> {
    const before = server.requests.length;
    const r = await cli([...argv, '--base-url', `${server.url}/v1`]);
    const requests = server.requests.slice(before);
    return { ...r, requests, bodies: requests.map((q) => q.body as Body) };
  }

  it('by default: the tools, temperature 0.7, a move’s 512 tokens and a seed per request, the same on a rerun', async () => {
    const args = ['run', '--buyer', 'vllm:m', '--seller', 'hardliner', '--seed', '4', '--json'];
    const first = await requestsOf(args);
    expect(first.status).toBe(0);
    expect(first.bodies.length).toBeGreaterThan(1);
    for (const body of first.bodies) {
      expect((body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
        'make_offer',
        'respond_to_offer',
        'send_message',
        'walk_away',
      ]);
      expect(body).not.toHaveProperty('response_format');
      expect(body).toMatchObject({ temperature: 0.7, max_tokens: 512, chat_template_kwargs: { enable_thinking: false } });
      expect(Number.isInteger(body.seed)).toBe(true);
    }
    const again = await requestsOf(args);
    expect(again.bodies.map((b) => b.seed)).toEqual(first.bodies.map((b) => b.seed));
    const moves = (out: string) => (JSON.parse(out).events as { type: string; move?: unknown }[]).map((e) => e.move ?? e.type);
    expect(moves(again.out)).toEqual(moves(first.out));
    const otherSeed = await requestsOf(['run', '--buyer', 'vllm:m', '--seller', 'hardliner', '--seed', '5', '--json']);
    expect(otherSeed.bodies[0]?.seed).not.toBe(first.bodies[0]?.seed);
  });

  it('--interface json, --temperature and --max-tokens reach every request', async () => {
    const r = await requestsOf([
      'run',
      '--buyer',
      'openai:m',
      '--seller',
      'vllm:n',
      '--interface',
      'json',
      '--temperature',
      '0.2',
      '--max-tokens',
      '300',
      '--json',
    ]);
    expect(r.status).toBe(0);
    expect(new Set(r.requests.map((q) => q.model))).toEqual(new Set(['m', 'n']));
    for (const q of r.requests) {
      const body = q.body as Body;
      expect(body).not.toHaveProperty('tools');
      expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'negotiation_move' } });
      expect(body.temperature).toBe(0.2);
      // OpenAI's field, and everyone else's
      expect(q.model === 'm' ? body.max_completion_tokens : body.max_tokens).toBe(300);
    }
  });

  it('--thinking lets every model think, with the larger limit; +think one model alone', async () => {
    const all = await requestsOf(['run', '--buyer', 'vllm:m', '--seller', 'ollama:n', '--thinking', '--json']);
    expect(all.status).toBe(0);
    for (const q of all.requests) {
      const body = q.body as Body;
      expect(body.max_tokens).toBe(2048);
      if (q.model === 'm') expect(body.chat_template_kwargs).toEqual({ enable_thinking: true });
      else expect(body.reasoning_effort).toBe('low');
    }
    const one = await requestsOf(['run', '--buyer', 'vllm:m+think', '--seller', 'ollama:n', '--json']);
    for (const q of one.requests) {
      const body = q.body as Body;
      if (q.model === 'm') expect(body).toMatchObject({ chat_template_kwargs: { enable_thinking: true }, max_tokens: 2048 });
      else expect(body).toMatchObject({ reasoning_effort: 'none', max_tokens: 512 });
    }
  });

  it('refuses thinking where no setting reaches the provider, and bad settings, before any call', async () => {
    const before = server.requests.length;
    const think = await cli(['run', '--buyer', 'groq:m+think', '--seller', 'boulware', '--base-url', `${server.url}/v1`]);
    expect(think.status).toBe(2);
    expect(think.err).toMatch(
      /^parley: error: --buyer: "\+think": Groq has no setting that turns thinking on and off for all its models, so groq:m cannot be told to think; providers that can: /,
    );
    const every = await cli(['run', '--buyer', 'lmstudio:m', '--seller', 'boulware', '--thinking', '--base-url', `${server.url}/v1`]);
    expect(every.status).toBe(2);
    expect(every.err).toMatch(/^parley: error: --thinking: "\+think": LM Studio has no setting/);
    expect(await usageProblem(['run', '--buyer', 'groq:m+think', '--seller', 'boulware'])).toMatchObject({
      code: 'bad-value',
      data: { flag: '--buyer', problem: { code: 'cannot-think', data: { provider: 'groq', model: 'm' } } },
    });
    const bad = [
      [['--interface', 'auto'], { code: 'unknown-choice', data: { flag: '--interface', value: 'auto', choices: ['tools', 'json'] } }],
      [['--temperature', '3'], { code: 'out-of-range', data: { flag: '--temperature', value: 3, min: 0, max: 2 } }],
      [['--temperature', 'hot'], { code: 'not-a-decimal', data: { flag: '--temperature', value: 'hot' } }],
      [['--max-tokens', '10'], { code: 'out-of-range', data: { flag: '--max-tokens', value: 10, min: 64, max: 32768 } }],
    ] as const;
    for (const [flags, problem] of bad) {
      const argv = ['run', '--buyer', 'vllm:m', '--seller', 'boulware', ...flags, '--base-url', `${server.url}/v1`];
      expect((await cli(argv)).status).toBe(2);
      expect(await usageProblem(argv)).toMatchObject(problem);
    }
    expect(server.requests.length).toBe(before);
  });

  it('a tournament records the settings in its config, prints them, and writes them for the app', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-models-'));
    const path = join(dir, 'run.jsonl');
    try {
      const flags = ['--interface', 'json', '--temperature', '0', '--max-tokens', '400'];
      const json = await requestsOf(['tournament', '--agents', 'vllm:m,boulware', '--scenarios', '2', '--samples', '0', '--json', '--jsonl', path, ...flags]);
      expect(json.status).toBe(0);
      const llm = { interface: 'json', temperature: 0, maxTokens: 400, thinking: false };
      expect(JSON.parse(json.out).config.llm).toEqual(llm);
      const file = readRunFile(readFileSync(path, 'utf8'), 0);
      expect(file.ok).toBe(true);
      if (file.ok && file.value.run.config.kind === 'tournament') expect(file.value.run.config.tournament.llm).toEqual(llm);
      const text = await requestsOf(['tournament', '--agents', 'vllm:m,boulware', '--scenarios', '1', '--samples', '0', ...flags]);
      expect(text.out).toContain('models: interface json, temperature 0, token limit 400, thinking only where +think');
      const scripted = await cli(['tournament', '--agents', 'boulware,linear', '--scenarios', '1', '--samples', '0']);
      expect(scripted.out).not.toContain('models:');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
