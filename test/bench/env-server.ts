// `npx tsx test/bench/env-server.ts`: episodes per second through the environment server, with
// CLIENTS concurrent HTTP clients (64 by default) each playing episodes back to back against a
// scripted opponent, the policy a pure function of the prompt (test/training/helpers.ts: about one
// answer in nine malformed), over node:http with keep-alive. Server and clients share this process
// and the machine's cores. PROTOCOL picks the routes: `episodes` (the server's own, the default),
// `openenv` (OpenEnv's POST /reset and POST /step) or `ws` (OpenEnv's WebSocket session at /ws, one
// socket per client).
import { once } from 'node:events';
import os from 'node:os';
import WebSocket from 'ws';
import { makeAgent } from '../../src/games/bilateral/registry';
import { startEnvServer } from '../../src/training/server';
import { policyAnswer, post, stepBody } from '../training/helpers';

const CLIENTS = Number(process.env.CLIENTS ?? 64);
const EPISODES = Number(process.env.EPISODES ?? 3000);
const WARMUP = Number(process.env.WARMUP ?? 300);
const OPPONENT = process.env.OPPONENT ?? 'boulware';
const PROTOCOL = process.env.PROTOCOL ?? 'episodes';
if (!['episodes', 'openenv', 'ws'].includes(PROTOCOL)) throw new Error(`PROTOCOL must be episodes, openenv or ws, not ${PROTOCOL}`);

const server = await startEnvServer({ makeAgent });

async function postJson(path: string, body: unknown): Promise<any> {
  const r = await post(`${server.url}${path}`, body);
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** Plays episodes numbered from `next` until `total` have been started; returns the steps taken. */
async function play(total: number, seedBase: number): Promise<{ steps: number; deals: number; reward: number }> {
  let next = 0;
  let steps = 0;
  let deals = 0;
  let reward = 0;
  /** One episode's request, by its number. */
  const request = (i: number) => ({
    game: 'bilateral',
    seat: i % 2 === 0 ? 'buyer' : 'seller',
    opponent: OPPONENT,
    seed: seedBase + i,
    interface: i % 3 === 0 ? 'json' : 'tools',
  });
  const ended = (view: any) => {
    if (view.outcome.kind === 'deal') deals++;
    reward += view.reward;
  };
  const overEpisodes = async (i: number) => {
    const first = await postJson('/episodes', request(i));
    const tools = Array.isArray(first.tools);
    let view = first;
    while (!view.done) {
      view = await postJson(`/episodes/${first.id}/step`, stepBody(policyAnswer(view.messages, tools)));
      steps++;
    }
    ended(view);
  };
  const overOpenEnv = async (i: number) => {
    let r = await postJson('/reset', request(i));
    const id = r.observation.episode_id;
    const tools = Array.isArray(r.observation.tools);
    while (!r.done) {
      r = await postJson('/step', { episode_id: id, action: stepBody(policyAnswer(r.observation.messages, tools)) });
      steps++;
    }
    ended({ outcome: r.observation.outcome, reward: r.reward });
  };
  const client = async () => {
    if (PROTOCOL !== 'ws') {
      for (let i = next++; i < total; i = next++) await (PROTOCOL === 'openenv' ? overOpenEnv(i) : overEpisodes(i));
      return;
    }
    const ws = new WebSocket(`${server.url.replace('http://', 'ws://')}/ws`);
    await once(ws, 'open');
    const call = async (message: unknown): Promise<any> => {
      ws.send(JSON.stringify(message));
      const [data] = (await once(ws, 'message')) as [Buffer];
      const reply = JSON.parse(data.toString('utf8'));
      if (reply.type === 'error') throw new Error(JSON.stringify(reply.data));
      return reply.data;
    };
    for (let i = next++; i < total; i = next++) {
      let r = await call({ type: 'reset', data: request(i) });
      const tools = Array.isArray(r.observation.tools);
      while (!r.done) {
        r = await call({ type: 'step', data: stepBody(policyAnswer(r.observation.messages, tools)) });
        steps++;
      }
      ended({ outcome: r.observation.outcome, reward: r.reward });
    }
    ws.close();
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return { steps, deals, reward };
}

try {
  await play(WARMUP, 1_000_000);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { steps, deals, reward } = await play(EPISODES, 0);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpus = os.cpus();
  console.log(`machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, Node ${process.version}, load average ${os.loadavg()[0]?.toFixed(2)}`);
  console.log(
    `env server (${PROTOCOL}): ${EPISODES} episodes against ${OPPONENT}, ${CLIENTS} concurrent ${PROTOCOL === 'ws' ? 'WebSocket sessions' : 'HTTP clients'} ` +
      `(server and clients in one process), after ${WARMUP} warm-up episodes`,
  );
  console.log(`${steps} steps (${(steps / EPISODES).toFixed(1)} per episode), ${deals} deals, mean reward ${(reward / EPISODES).toFixed(3)}`);
  console.log(
    `time ${seconds.toFixed(2)} s: ${(EPISODES / seconds).toFixed(0)} episodes/s, ${((steps + EPISODES) / seconds).toFixed(0)} ${PROTOCOL === 'ws' ? 'messages' : 'requests'}/s; ` +
      `CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (${((cpu.user + cpu.system) / 1e6 / seconds).toFixed(2)} cores)`,
  );
  // On a shared machine the wall-clock rate follows the load; episodes per CPU-second do not.
  console.log(`${(EPISODES / ((cpu.user + cpu.system) / 1e6)).toFixed(0)} episodes per CPU-second (server, clients and policy together)`);
} finally {
  await server.close();
}
