/**
 * The command line's training commands: `serve-env` (the environment server for trainers) and
 * `sft` (fine-tuning data from a run file). Each has the signature of main.ts's commands: it
 * returns the exit status and throws a UsageError for a bad argument.
 */
import { setMaxListeners } from 'node:events';
import { createAgentFactory, parseAgentSpec, WEBLLM_ONLY_IN_BROWSER } from '../agents/registry';
import { createMarketAgentFactory, parseMarketSpec } from '../agents/market/specs';
import { DEFAULT_LLM_SETTINGS, MAX_MAX_TOKENS, MAX_TEMPERATURE, MIN_MAX_TOKENS, MOVE_INTERFACES, type LlmSettings } from '../agents/llm/settings';
import type { RemoteSettings } from '../agents/remote';
import { ROLES, type Role } from '../core/scenario';
import { readRunFile } from '../storage/run-file';
import { readRunFileText } from './read-run-file';
import { choiceFlag, intFlag, numberFlag, parseFlags, requiredFlag, UsageError, type ParsedArgs } from './args';
import type { Io } from './main';
import { missingKey, printable, remoteSettings } from './model-flags';
import { OutputFile, sameFile } from './output-file';
import { DEFAULT_IDLE_MS, DEFAULT_MAX_EPISODES, LOOPBACK, startEnvServer, type EnvGame, type OpponentRefusal } from '../training/server';
import { selectedSeats, sftExample, SftTally, validationScenarios, type SftFilter, type SftSummary } from '../training/sft';

const MODEL_FLAGS = {
  'base-url': true,
  'timeout-ms': true,
  concurrency: true,
  interface: true,
  temperature: true,
  'max-tokens': true,
  thinking: false,
} as const;

/** Where model opponents are played and with which key: the tournaments' rules (model-flags.ts), and calls in flight per provider. */
function opponentRemote(args: ParsedArgs, io: Io): RemoteSettings {
  return { ...remoteSettings(args, io.env ?? {}, []), concurrency: intFlag(args, 'concurrency', 8, 1, 1024) };
}

/** How model opponents are asked for their moves (the policy's own interface is each episode's). */
function opponentLlm(args: ParsedArgs): LlmSettings {
  return {
    interface: choiceFlag(args, 'interface', MOVE_INTERFACES, DEFAULT_LLM_SETTINGS.interface),
    temperature: numberFlag(args, 'temperature', DEFAULT_LLM_SETTINGS.temperature, 0, MAX_TEMPERATURE),
    maxTokens: args.values.has('max-tokens') ? intFlag(args, 'max-tokens', 0, MIN_MAX_TOKENS, MAX_MAX_TOKENS) : null,
    thinking: args.switches.has('thinking'),
  };
}

/**
 * `serve-env [--port N] [--host H] [--idle-ms N] [--max-episodes N]` and the model flags for model
 * opponents: serves episodes until `io.signal` is aborted (Ctrl-C), then closes them and returns 0.
 */
export async function serveEnvCommand(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, { port: true, host: true, 'idle-ms': true, 'max-episodes': true, ...MODEL_FLAGS }, 'serve-env');
  const port = intFlag(args, 'port', 8765, 0, 65535);
  const host = args.values.get('host') ?? '127.0.0.1';
  if (host.trim() === '' || /\s/.test(host)) throw new UsageError(`--host must be an address such as 127.0.0.1, got "${host}"`);
  const idleMs = intFlag(args, 'idle-ms', DEFAULT_IDLE_MS, 1000, 24 * 3_600_000);
  const maxEpisodes = intFlag(args, 'max-episodes', DEFAULT_MAX_EPISODES, 1, 1_000_000);
  const remote = opponentRemote(args, io);
  const env = io.env ?? {};
  const makeAgent = createAgentFactory(remote, {}, opponentLlm(args));
  // A market episode's buyers, scripted or a model, with the same remote settings and model flags.
  const makeMarketAgent = createMarketAgentFactory(remote, opponentLlm(args));
  // Either game's opponent, checked before its episode is made: no provider is asked without its key.
  const checkOpponent = (spec: string, game: EnvGame): OpponentRefusal | null => {
    const parsed = game === 'market' ? parseMarketSpec(spec, 'buyer') : parseAgentSpec(spec);
    if (!parsed.ok) return { code: 'bad-opponent', message: parsed.error };
    if (parsed.value.webllm !== undefined) return { code: 'bad-opponent', message: `${parsed.value.label}: ${WEBLLM_ONLY_IN_BROWSER}` };
    const missing = missingKey(parsed.value, remote.baseUrl, env);
    if (missing === null) return null;
    return { code: 'missing-key', message: `${parsed.value.label} needs a key: start the server with ${missing} set (or with --base-url for your own server)` };
  };
  let server: Awaited<ReturnType<typeof startEnvServer>>;
  try {
    server = await startEnvServer({ makeAgent, makeMarketAgent, host, port, idleMs, maxEpisodes, checkOpponent });
  } catch (e) {
    throw new UsageError(`cannot listen on ${host}:${port} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (!LOOPBACK.has(host))
    io.err(`parley: warning: serving on ${host}, not loopback alone: anyone who can reach it can play episodes (there is no authentication)\n`);
  io.out(`parley: environment server on ${server.url} (GET /health, POST /episodes, POST /episodes/{id}/step); episodes idle over ${idleMs / 1000} s are closed\n`);
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

/** An agent as runs name it: a spec's canonical label (`boulware:beta=0.2`), or the text as given when it is no spec. */
function agentLabel(text: string): string {
  const parsed = parseAgentSpec(text);
  return parsed.ok ? parsed.value.label : text.trim();
}

/** `train.jsonl` → `train.validation.jsonl`. */
export const validationPath = (out: string): string => (out.endsWith('.jsonl') ? `${out.slice(0, -'.jsonl'.length)}.validation.jsonl` : `${out}.validation`);

/**
 * `sft --from RUN.jsonl [--out FILE] [--seat buyer|seller|both] [--agent SPEC] [--tier N] [--zone N]
 * [--deals-only] [--min-share X] [--ir-only] [--validation F] [--interface tools|json]`.
 */
export async function sftCommand(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(
    argv,
    {
      from: true,
      out: true,
      seat: true,
      agent: true,
      tier: true,
      zone: true,
      'deals-only': false,
      'min-share': true,
      'ir-only': false,
      validation: true,
      interface: true,
    },
    'sft',
  );
  const path = requiredFlag(args, 'from', 'a run file, as tournament --jsonl or the app writes it');
  const out = args.values.get('out');
  if (out !== undefined && out.trim() === '') throw new UsageError('--out needs a file path');
  const fraction = numberFlag(args, 'validation', 0, 0, 0.9);
  if (fraction > 0 && out === undefined) throw new UsageError('--validation needs --out (the held-out examples go to a second file beside it)');
  if (out !== undefined)
    await refuseOverwrite(path, [['--out', out], ...(fraction > 0 ? [['the validation file', validationPath(out)] as [string, string]] : [])]);
  const minShare = args.values.has('min-share') ? numberFlag(args, 'min-share', 0, 0, 1) : undefined;
  const filter: SftFilter = {
    seat: choiceFlag(args, 'seat', [...ROLES, 'both'] as const, 'both'),
    ...(args.values.has('agent') && { agent: agentLabel(args.values.get('agent') as string) }),
    ...(args.values.has('tier') && { tier: intFlag(args, 'tier', 1, 1, 5) }),
    ...(args.values.has('zone') && { zone: intFlag(args, 'zone', 1, 1, 5) }),
    dealsOnly: args.switches.has('deals-only'),
    ...(minShare !== undefined && { minShare }),
    irOnly: args.switches.has('ir-only'),
  };

  const problem = (message: string): number => {
    io.err(printable(`parley: error: ${path}: ${message.replace(/\s*\n\s*/g, ' ')}`) + '\n');
    return 2;
  };
  const read = await readRunFileText(path);
  if (!read.ok) return problem(read.error);
  const checked = readRunFile(read.value.text, read.value.size);
  if (!checked.ok) return problem(checked.error.message);
  const { run, rows } = checked.value;
  const runInterface = run.config.kind === 'tournament' ? run.config.tournament.llm.interface : (run.config.llm?.interface ?? 'tools');
  const style = choiceFlag(args, 'interface', MOVE_INTERFACES, runInterface);

  const picked = rows.flatMap((row) => selectedSeats(row, filter).map((seat: Role) => ({ row, seat })));
  const heldOut = validationScenarios(
    picked.map((p) => p.row.scenario.id),
    fraction,
  );
  // Examples stream out as they are made: a large run's examples need not fit in memory at once.
  const files: OutputFile[] = [];
  const openOut = async (file: string): Promise<LineSink> => {
    try {
      const output = await OutputFile.open(file);
      files.push(output);
      return new LineSink((text) => output.write(text));
    } catch (e) {
      throw new UsageError(`--out: cannot write ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  };
  const tally = new SftTally();
  try {
    const train = out === undefined ? new LineSink((text) => io.out(text)) : await openOut(out);
    const validation = out !== undefined && fraction > 0 ? await openOut(validationPath(out)) : null;
    for (const { row, seat } of picked) {
      const example = sftExample(row, seat, { interface: style });
      if (example === null) continue;
      const isHeldOut = validation !== null && heldOut.has(row.scenario.id);
      await (isHeldOut ? (validation as LineSink) : train).add(JSON.stringify(example) + '\n');
      tally.add(row, seat, isHeldOut);
    }
    await train.flush();
    await validation?.flush();
    for (const file of files) await file.commit();
  } catch (e) {
    for (const file of files) await file.abandon();
    throw e;
  }
  const summary = formatSummary(tally.summary(), style, rows.length);
  if (out === undefined) io.err(summary);
  else io.out(summary + printable(`train: ${out}`) + '\n' + (fraction > 0 ? printable(`validation: ${validationPath(out)}`) + '\n' : ''));
  return 0;
}

/** Refuses an output that is the run file read, or both outputs one file (output-file.ts's sameFile), before anything is written. */
async function refuseOverwrite(from: string, outputs: readonly [flag: string, path: string][]): Promise<void> {
  for (const [i, [flag, path]] of outputs.entries()) {
    if (await sameFile(path, from)) throw new UsageError(`${flag} ${path} is the --from file itself; write the examples somewhere else`);
    for (const [otherFlag, other] of outputs.slice(0, i))
      if (await sameFile(path, other)) throw new UsageError(`${flag} ${path} is the same file as ${otherFlag} ${other}; write them to two files`);
  }
}

/** Lines gathered up to about a megabyte, then written. */
class LineSink {
  private lines: string[] = [];
  private size = 0;
  constructor(private readonly write: (text: string) => void | Promise<void>) {}

  async add(line: string): Promise<void> {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.size = 0;
    await this.write(text);
  }
}

const scenarios = (n: number): string => `${n} scenario${n === 1 ? '' : 's'}`;
const fixed = (x: number | null): string => (x === null ? '–' : x.toFixed(2));

export function formatSummary(s: SftSummary, style: string, negotiations: number): string {
  const lines: string[] = [];
  lines.push(
    `sft: ${s.examples} examples from ${negotiations} negotiations, moves as ${style === 'tools' ? 'tool calls' : 'JSON'}; ` +
      `train ${s.train} (${scenarios(s.scenarios.train)}), validation ${s.validation} (${scenarios(s.scenarios.validation)})`,
  );
  lines.push(`by tier: ${Object.entries(s.byTier).map(([tier, n]) => `${tier}: ${n}`).join(', ') || 'none'}`);
  lines.push('by agent:');
  // Agents are named as the run file names them: escaped like every name from a file.
  const agents = Object.entries(s.byAgent).map(([agent, n]) => [printable(agent), n] as const);
  const width = Math.max(0, ...agents.map(([a]) => a.length));
  for (const [agent, n] of agents) lines.push(`  ${agent.padEnd(width)}  ${n}`);
  const sh = s.share;
  lines.push(
    `surplus share over ${sh.n} deals with gains from trade: mean ${fixed(sh.mean)}, min ${fixed(sh.min)}, p25 ${fixed(sh.p25)}, ` +
      `median ${fixed(sh.median)}, p75 ${fixed(sh.p75)}, max ${fixed(sh.max)}`,
  );
  const most = Math.max(1, ...sh.histogram);
  sh.histogram.forEach((n, i) => {
    const bar = '#'.repeat(Math.round((n / most) * 30));
    lines.push(`  ${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)} ${bar}${bar ? ' ' : ''}${n}`);
  });
  return lines.join('\n') + '\n';
}
