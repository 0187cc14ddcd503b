// `npm run bench:remote`: a tournament of LLM agents against a local OpenAI-compatible server
// that answers every call after a fixed latency. Prints negotiations per second and how close the
// run came to the latency-bound ideal (every concurrency slot always waiting on a call).
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import type { TournamentConfig } from '../../src/games/bilateral/tournament';
import { createAgentFactory } from '../../src/games/bilateral/registry';
import { move, promptOf, slow, start, type RecordedRequest } from '../support/chat-server';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

const LATENCY_MS = Number(process.env.LATENCY_MS ?? 100);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const SCENARIOS = Number(process.env.SCENARIOS ?? 20);

/** Accepts what is on the table, else asks its own number with a margin; after the latency. */
function policy(req: RecordedRequest) {
  const { system, user } = promptOf(req);
  if (/you may accept it/.test(user)) return slow(LATENCY_MS, move({ action: { type: 'accept' } }));
  const own = Number(/Your private (?:value for it|cost for it|cost): \$([\d.]+)/.exec(system)?.[1] ?? '100');
  const price = /You are the buyer/.test(system) ? own * 0.7 : own * 1.3;
  return slow(LATENCY_MS, move({ action: { type: 'offer', price: Math.round(price * 100) / 100 } }));
}

const server = await start(policy);
try {
  const config: TournamentConfig = {
    agents: ['openai:bench-a', 'openai:bench-b', 'boulware', 'conceder'],
    scenariosPerPair: SCENARIOS,
    preset: 'standard',
    seed: 5,
    selfPlay: false,
  };
  const makeAgent = createAgentFactory({ baseUrl: `${server.url}/v1`, concurrency: CONCURRENCY, timeoutMs: 30_000 });
  const aggregator = new Aggregator();
  let calls = 0;
  let errors = 0;
  const t0 = performance.now();
  const cancel = new AbortController();
  setMaxListeners(0, cancel.signal);
  const summary = await runTournament(bilateralGame, config, makeAgent, {
    concurrency: CONCURRENCY,
    signal: cancel.signal,
    onResult: (r) => {
      calls += r.events.filter((e) => e.type !== 'end' && e.type !== 'forfeit' && e.call !== undefined).length;
      if (r.outcome.kind === 'error') errors++;
      aggregator.add(r.buyer, r.seller, r.scenario, r.metrics);
    },
  });
  const seconds = (performance.now() - t0) / 1000;
  // Calls within one negotiation are sequential; CONCURRENCY negotiations run at once.
  const idealSeconds = (calls * LATENCY_MS) / 1000 / CONCURRENCY;
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}`);
  console.log(
    `tournament: ${summary.played} negotiations (${config.agents.join(', ')}), ${calls} model calls, ` +
      `${LATENCY_MS} ms per call, concurrency ${CONCURRENCY}, ${errors} errors`,
  );
  console.log(`time ${seconds.toFixed(2)} s; latency-bound ideal ${idealSeconds.toFixed(2)} s`);
  console.log(
    `${(summary.played / seconds).toFixed(2)} negotiations/s, ${(calls / seconds).toFixed(1)} calls/s; ` +
      `ratio to the ideal ${(idealSeconds / seconds).toFixed(3)}`,
  );
} finally {
  await server.close();
}
