// The Python example client (docs/examples/parley_env_client.py, standard library only) against a
// real `parley serve-env` process: it plays episodes over OpenEnv's HTTP routes and over /ws, and
// each ends as the in-process run of the same request with the same policy (test/support/policy-model.ts,
// of which the example's policy is a port).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent } from '../../src/games/bilateral/registry';
import { EpisodeRequestSchema, playEpisode, type EpisodeInput } from '../../src/training/episode';
import { policy } from '../support/policy-model';

const run = promisify(execFile);

/** The policy's tool call for a prompt, as the example sends it. */
function toolAnswer(messages: readonly { content: string }[]) {
  const { action, message } = policy(messages.map((m) => m.content).join('\n'));
  const said = message === undefined ? {} : { message };
  const call =
    action?.type === 'offer'
      ? { name: 'make_offer', arguments: JSON.stringify({ price: action.price, ...said }) }
      : { name: 'respond_to_offer', arguments: JSON.stringify({ decision: 'accept', ...said }) };
  return { text: '', toolCalls: [call], tokensIn: 0, tokensOut: 0 };
}

describe('the Python example client against serve-env', () => {
  let server: ChildProcess;
  let url: string;
  let stderr = '';
  beforeAll(async () => {
    server = spawn(process.execPath, ['--import', 'tsx', 'src/cli/parley.ts', 'serve-env', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    server.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    let out = '';
    url = await new Promise<string>((resolve, reject) => {
      server.stdout?.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        const m = /environment server on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1] as string);
      });
      server.once('exit', (code) => reject(new Error(`serve-env exited ${code}: ${stderr}`)));
    });
  }, 60_000);
  afterAll(async () => {
    if (server.exitCode === null) {
      server.kill('SIGINT');
      await once(server, 'exit');
    }
  });

  const play = async (args: string[]) => {
    const { stdout } = await run('python3', ['docs/examples/parley_env_client.py', '--url', url, ...args], { timeout: 60_000 });
    const line = stdout.split('\n').find((l) => l.startsWith('result: '));
    expect(line).toBeDefined();
    return { stdout, result: JSON.parse((line as string).slice('result: '.length)) };
  };

  const expectSameAsInProcess = async (result: any, request: EpisodeInput) => {
    const local = await playEpisode(EpisodeRequestSchema.parse(request), makeAgent, (q) => toolAnswer(q.messages));
    expect(result.reward).toBe(local.reward.total);
    expect(result.outcome).toEqual(local.record.outcome);
    expect(result.steps).toBe(result.step_count);
    expect(result.steps).toBeGreaterThan(0);
    const cut = local.record.outcome.kind === 'turn_limit';
    expect([result.terminated, result.truncated]).toEqual([!cut, cut]);
  };

  it('plays an episode to the end over HTTP, printing each step and the reward', async () => {
    const { stdout, result } = await play(['--seed', '8', '--seat', 'seller']);
    expect(stdout).toMatch(/^episode \S+: bilateral, the policy plays the seller, seed 8$/m);
    expect(stdout).toMatch(/^step 1: make_offer\(/m);
    expect(stdout).toMatch(/^ended: \w+ \((terminated|truncated)\), reward -?\d/m);
    await expectSameAsInProcess(result, { game: 'bilateral', seat: 'seller', opponent: 'boulware', seed: 8, interface: 'tools' });
  }, 60_000);

  it('plays over the WebSocket at /ws, and on a seed the server drew and answered', async () => {
    const ws = await play(['--ws', '--seed', '21', '--opponent', 'conceder']);
    await expectSameAsInProcess(ws.result, { game: 'bilateral', seat: 'buyer', opponent: 'conceder', seed: 21, interface: 'tools' });
    const drawn = await play([]);
    expect(drawn.result.seat).toBe('buyer');
    await expectSameAsInProcess(drawn.result, { game: 'bilateral', seat: 'buyer', opponent: 'boulware', seed: drawn.result.seed, interface: 'tools' });
  }, 60_000);

  it('serve-env stops on Ctrl-C and exits 0', async () => {
    server.kill('SIGINT');
    const [code] = (await once(server, 'exit')) as [number];
    expect(code).toBe(0);
    expect(stderr).toContain('environment server stopped');
  }, 30_000);
});
