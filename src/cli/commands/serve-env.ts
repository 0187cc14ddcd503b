// `parley serve-env`: the environment server for trainers (docs on training: POST /episodes, POST /episodes/ID/step, GET /health,
// and OpenEnv's POST /reset, POST /step, GET /state, GET /schema and the WebSocket /ws).
import { setMaxListeners } from 'node:events';
import { createAgentFactory, WEBLLM_ONLY_IN_BROWSER } from '../../games/bilateral/registry';
import { parseAgentSpec } from '../../games/bilateral/specs';
import { createMarketAgentFactory, parseMarketSpec } from '../../games/market/specs';
import {
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_EPISODES,
  EnvServerLimitsSchema,
  envProblem,
  LOOPBACK,
  startEnvServer,
  type EnvGame,
  type OpponentRefusal,
} from '../../training/server';
import { intFlag, parseFlags, rangeOf, usageError, type Command } from '../args';
import type { Io } from '../io';
import { CONCURRENCY, LLM_FLAGS, missingKey, REMOTE_FLAGS } from '../model-flags';
import { opponentLlm, opponentRemote } from '../training';

/**
 * `serve-env [--port N] [--host H] [--idle-ms N] [--max-episodes N]` and the model flags for model
 * opponents: serves episodes until `io.signal` is aborted (Ctrl-C), then closes them and returns 0.
 */
async function run(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, serveEnvCommand);
  const port = intFlag(args, 'port');
  const host = args.values.get('host') ?? '127.0.0.1';
  if (host.trim() === '' || /\s/.test(host)) throw usageError('bad-host', { value: host });
  const idleMs = intFlag(args, 'idle-ms');
  const maxEpisodes = intFlag(args, 'max-episodes');
  const remote = opponentRemote(args, io);
  const env = io.env ?? {};
  const makeAgent = createAgentFactory(remote, {}, opponentLlm(args));
  // A market episode's buyers, scripted or a model, with the same remote settings and model flags.
  const makeMarketAgent = createMarketAgentFactory(remote, opponentLlm(args));
  // Either game's opponent, checked before its episode is made: no provider is asked without its key.
  const checkOpponent = (spec: string, game: EnvGame): OpponentRefusal | null => {
    const parsed = game === 'market' ? parseMarketSpec(spec, 'buyer') : parseAgentSpec(spec);
    if (!parsed.ok) return envProblem('bad-opponent', { reason: parsed.error.message });
    const { label } = parsed.value;
    if (parsed.value.webllm !== undefined) return envProblem('bad-opponent', { reason: `${label}: ${WEBLLM_ONLY_IN_BROWSER}` });
    const missing = missingKey(parsed.value, remote.baseUrl, env);
    return missing === null ? null : envProblem('missing-key', { opponent: label, variable: missing });
  };
  let server: Awaited<ReturnType<typeof startEnvServer>>;
  try {
    server = await startEnvServer({ makeAgent, makeMarketAgent, host, port, idleMs, maxEpisodes, checkOpponent });
  } catch (e) {
    throw usageError('cannot-listen', { host, port, reason: (e as NodeJS.ErrnoException).code ?? String(e) });
  }
  if (!LOOPBACK.has(host))
    io.err(`parley: warning: serving on ${host}, not loopback alone: anyone who can reach it can play episodes (there is no authentication)\n`);
  io.out(
    `parley: environment server on ${server.url} (GET /health, POST /episodes, POST /episodes/{id}/step; OpenEnv: POST /reset, POST /step, GET /state, GET /schema, WebSocket /ws); ` +
      `episodes idle over ${idleMs / 1000} s are closed\n`,
  );
  const signal = io.signal;
  if (signal) setMaxListeners(0, signal);
  await new Promise<void>((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  io.err('parley: environment server stopped\n');
  return 0;
}

const LIMITS = EnvServerLimitsSchema.shape;

export const serveEnvCommand: Command = {
  name: 'serve-env',
  summary:
    "Serves bargaining and market episodes to a trainer over HTTP (GET /health, POST /episodes, POST /episodes/ID/step) and OpenEnv's protocol " +
    '(POST /reset, POST /step, GET /state, GET /schema, the WebSocket /ws) until Ctrl-C. Model opponents are played with the model flags below.',
  flags: {
    port: { kind: 'int', value: 'N', ...rangeOf(LIMITS.port), default: 8765, help: 'the port (0: any free one)' },
    host: { kind: 'text', value: 'H', default: '127.0.0.1', help: 'the address to listen on; any other than loopback is served without authentication' },
    'idle-ms': { kind: 'int', value: 'N', ...rangeOf(LIMITS.idleMs), default: DEFAULT_IDLE_MS, help: 'milliseconds after which an idle episode is closed' },
    'max-episodes': { kind: 'int', value: 'N', ...rangeOf(LIMITS.maxEpisodes), default: DEFAULT_MAX_EPISODES, help: 'episodes open at once' },
    concurrency: { kind: 'int', value: 'N', ...CONCURRENCY, default: 8, help: "model opponents' calls in flight per provider" },
    ...LLM_FLAGS,
    ...REMOTE_FLAGS,
  },
  example: 'npm run parley -- serve-env --port 8765 --max-episodes 256',
  run,
};
