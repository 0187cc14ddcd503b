// `npx tsx test/bench/env-server.ts`: episodes per second through the environment server, with
// CLIENTS concurrent HTTP clients (64 by default) each playing episodes back to back against a
// scripted opponent, the policy a pure function of the prompt (test/training/helpers.ts: about one
// answer in nine malformed), over node:http with keep-alive. Server and clients share this process
// and the machine's cores.
import os from 'node:os';
import { makeAgent } from '../../src/games/bilateral/registry';
import { startEnvServer } from '../../src/training/server';
import { policyAnswer, post, stepBody } from '../training/helpers';

const CLIENTS = Number(process.env.CLIENTS ?? 64);
const EPISODES = Number(process.env.EPISODES ?? 3000);
const WARMUP = Number(process.env.WARMUP ?? 300);
const OPPONENT = process.env.OPPONENT ?? 'boulware';

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
  const client = async () => {
    for (let i = next++; i < total; i = next++) {
      const first = await postJson('/episodes', {
        game: 'bilateral',
        seat: i % 2 === 0 ? 'buyer' : 'seller',
        opponent: OPPONENT,
        seed: seedBase + i,
        interface: i % 3 === 0 ? 'json' : 'tools',
      });
      const tools = Array.isArray(first.tools);
      let view = first;
      while (!view.done) {
        view = await postJson(`/episodes/${first.id}/step`, stepBody(policyAnswer(view.messages, tools)));
        steps++;
      }
      if (view.outcome.kind === 'deal') deals++;
      reward += view.reward;
    }
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
    `env server: ${EPISODES} episodes against ${OPPONENT}, ${CLIENTS} concurrent HTTP clients (server and clients in one process), after ${WARMUP} warm-up episodes`,
  );
  console.log(`${steps} steps (${(steps / EPISODES).toFixed(1)} per episode), ${deals} deals, mean reward ${(reward / EPISODES).toFixed(3)}`);
  console.log(
    `time ${seconds.toFixed(2)} s: ${(EPISODES / seconds).toFixed(0)} episodes/s, ${((steps + EPISODES) / seconds).toFixed(0)} requests/s; ` +
      `CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (${((cpu.user + cpu.system) / 1e6 / seconds).toFixed(2)} cores)`,
  );
  // On a shared machine the wall-clock rate follows the load; episodes per CPU-second do not.
  console.log(`${(EPISODES / ((cpu.user + cpu.system) / 1e6)).toFixed(0)} episodes per CPU-second (server, clients and policy together)`);
} finally {
  await server.close();
}
