import { setMaxListeners } from 'node:events';
import { basename } from 'node:path';
import { Aggregator, describeIntervals } from '../core/bilateral/aggregate';
import { standingsCsv } from '../core/bilateral/csv';
import {
  CONFIRM_PLANS_OVER,
  playNegotiation,
  plannedCount,
  runTournament,
  type TournamentConfig,
  type TournamentSummary,
} from '../core/bilateral/tournament';
import { createRng, deriveSeed } from '../core/rng';
import {
  DEADLINE_KINDS,
  deadlineLabel,
  DEFAULT_DEADLINE,
  DEFAULT_FIRST_MOVER,
  DEFAULT_TURN_LIMIT,
  FIRST_MOVERS,
  generateScenarios,
  PRESETS,
  uncertainAround,
  type Deadline,
  type Role,
} from '../core/scenario';
import { createAgentFactory, isModelSpec, parseAgentSpec, parseAgentSpecs } from '../agents/registry';
import { DEFAULT_LLM_SETTINGS, type LlmSettings } from '../agents/llm/settings';
import { KEY_ENV } from '../agents/remote';
import { MOVE_TOKENS, THINKING_MAX_TOKENS } from '../agents/backends/types';
import { STRATEGIES } from '../agents/scripted';
import { choiceFlag, intFlag, parseFlags, requiredFlag, UsageError } from './args';
import { formatBehaviour, formatLeaderboard, formatPairs, formatReference, formatTranscript, formatUsage } from './format';
import { OracleScorer } from '../agents/oracle';
import { agentCost, priceSpec, runCost, type Prices } from '../agents/pricing';
import { parseDollars, type Price } from '../core/cost';
import type { RunUsage } from '../core/bilateral/usage';
import { fullTournamentConfig, type RunRecord, type StoredTournamentConfig } from '../storage/schema';
import { RunJsonlWriter } from './jsonl';
import { sameFile } from './output-file';
import { llmFlags, printable, remoteSettings } from './model-flags';
import { readRunFile } from '../storage/run-file';
import { readRunFileText } from './read-run-file';
import { readScenarioFile } from './read-scenario-file';
import { marketFormatOf, readMarketFile } from '../storage/market-file';
import { MARKET_USAGE, marketCommand, marketTournamentCommand } from './market';
import { serveEnvCommand, sftCommand } from './training';

const USAGE = `usage: npm run parley -- <command> [flags]

commands:
  run         --buyer SPEC --seller SPEC [--preset P] [--seed N] [--deadline fixed|uncertain] [--turns N|MIN-MAX]
              [--first alternate|seller|buyer] [--json]
  tournament  --agents SPEC,SPEC,... --scenarios N [--preset P] [--seed N] [--deadline fixed|uncertain]
              [--turns N|MIN-MAX] [--first alternate|seller|buyer] [--self-play] [--samples N] [--concurrency N]
              [--json|--csv] [--jsonl PATH] [--yes]
              or --scenarios-from FILE.jsonl instead of --scenarios, --preset, --deadline, --turns and --first:
              play the file's scenarios (one JSON object a line: id, listPrice, buyerValue, sellerCost, turns,
              first, optional lo, hi, name, category; docs/scenario-files.md)
  strategies  list the scripted strategies and their parameters
  check       FILE: check a run file (a JSON or JSONL export) exactly as the app's import does; prints
              "ok: NAME, N negotiations" ("N markets" for a market run) or the first problem in one line (exit 2)
${MARKET_USAGE}
  serve-env   [--port N] [--host H] [--idle-ms N] [--max-episodes N]: the environment server for trainers
              (POST /episodes, POST /episodes/ID/step, GET /health) on 127.0.0.1 until Ctrl-C
  sft         --from RUN.jsonl [--out FILE] [--seat buyer|seller|both] [--agent SPEC] [--tier N] [--zone N]
              [--deals-only] [--min-share X] [--ir-only] [--validation F] [--interface tools|json]:
              fine-tuning examples (chat format) from a run file, split by scenario, with a summary
Deadline: by default the turn limit is drawn per scenario from 16–24 turns and both sides know only that
range (uncertain), and seller and buyer open alternate scenarios (alternate). --turns N alone fixes the
limit at N; --turns MIN-MAX draws it from that range; --deadline uncertain --turns N draws it around N.
--jsonl PATH writes the tournament as a file the app imports (Runs page); Ctrl-C stops a tournament and
keeps what had finished.

SPEC is a strategy name with optional parameters, e.g. boulware or boulware:beta=0.2:kappa=0.1,
or a remote model as PROVIDER:MODEL, e.g. openai:gpt-4o-mini or vllm:Qwen/Qwen3-8B (+think: it thinks first).
Models: [--interface tools|json] [--temperature T] [--max-tokens N] [--thinking], the same for every model
of the run: tools (make_offer, respond_to_offer, send_message, walk_away; the default) or one JSON object
per turn; temperature ${DEFAULT_LLM_SETTINGS.temperature} by default; a token limit per answer, thinking included (default
${MOVE_TOKENS}, ${THINKING_MAX_TOKENS} for a model that thinks); --thinking lets every model think first.
Remote models: [--base-url URL] [--timeout-ms N] [--price SPEC=IN,OUT ...]; each provider's key is
read from its environment variable (${Object.values(KEY_ENV).slice(0, 3).join(', ')}, …) and sent to that provider
alone; with --base-url every model is played on that server, which is sent PARLEY_API_KEY and no other key.
--price (repeatable) gives a model's US dollars per million input and output tokens, for a cost estimate:
--price openai:gpt-4o-mini=0.15,0.6
presets: ${PRESETS.join(', ')}
`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /**
   * Wall-clock milliseconds since the epoch: for progress lines and the dates of a `--jsonl` run,
   * never in what is printed.
   */
  now: () => number;
  /** Environment variables: where remote models' keys come from. */
  env?: Record<string, string | undefined>;
  /** Aborted to stop early (Ctrl-C): a tournament then reports, and writes, what had finished. */
  signal?: AbortSignal;
}

/** The exit status of a command stopped through `Io.signal`, as a shell reports an interrupted one. */
export const EXIT_INTERRUPTED = 130;

const REMOTE_FLAGS = {
  'base-url': true,
  'timeout-ms': true,
  thinking: false,
  price: 'repeat',
  interface: true,
  temperature: true,
  'max-tokens': true,
} as const;

const PRICE_FORM = 'SPEC=IN,OUT in US dollars per million input and output tokens, e.g. openai:gpt-4o-mini=0.15,0.6';

/** Every `--price SPEC=IN,OUT`, by model spec. */
function priceFlags(args: ReturnType<typeof parseFlags>): Map<string, Price> {
  const prices = new Map<string, Price>();
  for (const raw of args.lists.get('price') ?? []) {
    const eq = raw.lastIndexOf('=');
    const amounts = eq < 0 ? [] : raw.slice(eq + 1).split(',');
    if (amounts.length !== 2) throw new UsageError(`--price must be ${PRICE_FORM}; got "${raw}"`);
    const spec = priceSpec(raw.slice(0, eq));
    if (!spec.ok) throw new UsageError(`--price: ${spec.error}`);
    const input = parseDollars(amounts[0] as string);
    const output = parseDollars(amounts[1] as string);
    if (!input.ok) throw new UsageError(`--price ${spec.value}: input price: ${input.error}`);
    if (!output.ok) throw new UsageError(`--price ${spec.value}: output price: ${output.error}`);
    if (prices.has(spec.value)) throw new UsageError(`--price for ${spec.value} given twice`);
    prices.set(spec.value, { inputPerMTok: input.value, outputPerMTok: output.value });
  }
  return prices;
}

/** US dollars for JSON: 0 for a local model, null without a price. */
function usd(agent: string, usage: { tokensIn: number; tokensOut: number }, prices: Prices): number | null {
  const cost = agentCost(agent, usage, prices);
  return cost.kind === 'priced' ? cost.usd : cost.kind === 'local' ? 0 : null;
}

/** What a tournament's --json adds when prices were given: each usage row's cost and the priced total. */
function costJson(usage: RunUsage, prices: Prices) {
  const overall = runCost(usage.byAgent.filter((r) => r.role === 'all'), prices);
  return {
    byAgent: usage.byAgent.map((r) => ({ agent: r.agent, role: r.role, usd: usd(r.agent, r, prices) })),
    totalUsd: overall.usd,
    unpriced: overall.unpriced,
  };
}

/** "interface tools, temperature 0.7, token limit 512 (2048 thinking), thinking off" */
function describeLlm(llm: LlmSettings): string {
  const limit = llm.maxTokens === null ? `default token limit (${MOVE_TOKENS}; ${THINKING_MAX_TOKENS} thinking)` : `token limit ${llm.maxTokens}`;
  return `interface ${llm.interface}, temperature ${llm.temperature}, ${limit}, ${llm.thinking ? 'every model thinks' : 'thinking only where +think'}`;
}

/** `--deadline fixed|uncertain` with `--turns N` or `--turns MIN-MAX`; see USAGE. */
function deadlineFlags(args: ReturnType<typeof parseFlags>): Deadline {
  const kind = args.values.has('deadline') ? choiceFlag(args, 'deadline', DEADLINE_KINDS, 'uncertain') : null;
  const raw = args.values.get('turns');
  if (raw === undefined) return kind === 'fixed' ? { kind: 'fixed', turns: DEFAULT_TURN_LIMIT } : DEFAULT_DEADLINE;
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(raw);
  if (range) {
    const [min, max] = [Number(range[1]), Number(range[2])];
    if (kind === 'fixed') throw new UsageError(`--turns ${raw} is a range; a fixed deadline takes one number`);
    if (min < 1 || max > 1000 || min > max)
      throw new UsageError(`--turns MIN-MAX must have 1 ≤ MIN ≤ MAX ≤ 1000, got "${raw}"`);
    return { kind: 'uncertain', min, max };
  }
  const turns = intFlag(args, 'turns', DEFAULT_TURN_LIMIT, 1, 1000);
  return kind === 'uncertain' ? uncertainAround(turns) : { kind: 'fixed', turns };
}

function sharedScenarioFlags(args: ReturnType<typeof parseFlags>) {
  return {
    preset: choiceFlag(args, 'preset', PRESETS, 'standard'),
    seed: intFlag(args, 'seed', 1, 0, 2 ** 32 - 1),
    deadline: deadlineFlags(args),
    firstMover: choiceFlag(args, 'first', FIRST_MOVERS, DEFAULT_FIRST_MOVER),
  };
}

async function runCommand(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(
    argv,
    { buyer: true, seller: true, preset: true, seed: true, deadline: true, turns: true, first: true, json: false, ...REMOTE_FLAGS },
    'run',
  );
  const hint = `a strategy such as ${STRATEGIES.map((s) => s.name).join(', ')}, or PROVIDER:MODEL`;
  const buyer = parseAgentSpec(requiredFlag(args, 'buyer', hint));
  if (!buyer.ok) throw new UsageError(`--buyer: ${buyer.error}`);
  const seller = parseAgentSpec(requiredFlag(args, 'seller', hint));
  if (!seller.ok) throw new UsageError(`--seller: ${seller.error}`);
  const { preset, seed, deadline, firstMover } = sharedScenarioFlags(args);
  const [scenario] = generateScenarios({ preset, seed, count: 1, deadline, firstMover });
  if (!scenario) throw new Error('no scenario generated');
  const negotiationId = `run-${seed}`;
  const prices = priceFlags(args);
  const llm = llmFlags(args, [buyer.value, seller.value]);
  const makeAgent = createAgentFactory(remoteSettings(args, io.env ?? {}, [buyer.value, seller.value]), {}, llm);
  const seat = (role: Role, label: string) => {
    const seatSeed = deriveSeed(seed, negotiationId, role);
    return makeAgent(label, role, { rng: createRng(seatSeed), negotiationId, seed: seatSeed });
  };
  const result = await playNegotiation(
    scenario,
    { buyer: seat('buyer', buyer.value.label), seller: seat('seller', seller.value.label) },
    io.signal ? { signal: io.signal } : {},
  );
  const agents = { buyer: buyer.value.label, seller: seller.value.label };
  new OracleScorer().score(agents.buyer, agents.seller, scenario, result.metrics);
  if (args.switches.has('json')) {
    const cost = (role: Role) => usd(agents[role], result.metrics[role], prices);
    const priced = prices.size > 0 ? { prices: Object.fromEntries(prices), cost: { buyer: cost('buyer'), seller: cost('seller') } } : {};
    io.out(JSON.stringify({ scenario, agents, ...result, ...priced }, null, 2) + '\n');
  } else {
    io.out(formatTranscript(scenario, agents, result.events, result.metrics, prices));
  }
  return result.outcome.kind === 'cancelled' ? EXIT_INTERRUPTED : 0;
}

/** A run id that the same configuration always gets: the seed and a hash of the whole config. */
const cliRunId = (config: StoredTournamentConfig): string =>
  `cli-s${config.seed}-${deriveSeed(config.seed, 'cli-tournament', JSON.stringify(config)).toString(36)}`;

/** The scenarios in words: "50 standard scenarios", or "250 scenarios from reference.jsonl". */
const scenarioWords = (config: StoredTournamentConfig, file: string | null): string =>
  file === null ? `${config.scenariosPerPair} ${config.preset} scenarios` : `${config.scenariosPerPair} scenarios from ${file}`;

/** "CLI tournament: boulware, linear (50 standard scenarios per pair, seed 1)", at most 200 characters. */
function cliRunName(config: StoredTournamentConfig, file: string | null): string {
  const tail = ` (${scenarioWords(config, file).slice(0, 120)} per pair, seed ${config.seed})`;
  let agents = config.agents.join(', ');
  const room = 200 - 'CLI tournament: '.length - tail.length;
  if (agents.length > room) agents = `${agents.slice(0, room - 1)}…`;
  return `CLI tournament: ${agents}${tail}`;
}

/** Lets timers and signals run: a tournament of scripted agents otherwise never yields to them. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a scenario file replaces, refused beside it: the file gives every scenario, its turns and its opener. */
const DRAWN_SCENARIO_FLAGS = ['scenarios', 'preset', 'deadline', 'turns', 'first'] as const;

/** `--scenarios-from FILE`: the file's scenarios, or a UsageError naming the flag that clashes or the line at fault. */
async function scenarioFileFlag(args: ReturnType<typeof parseFlags>, path: string) {
  const clash = DRAWN_SCENARIO_FLAGS.find((f) => args.values.has(f));
  if (clash) throw new UsageError(`--${clash} does not apply with --scenarios-from (the file gives every scenario, its turn limit and who opens)`);
  if (path.trim() === '') throw new UsageError('--scenarios-from needs a file path');
  const read = await readScenarioFile(path);
  if (!read.ok) throw new UsageError(printable(`--scenarios-from ${path}: ${read.error}`));
  return read.value;
}

async function tournamentCommand(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(
    argv,
    {
      agents: true,
      scenarios: true,
      'scenarios-from': true,
      preset: true,
      seed: true,
      deadline: true,
      turns: true,
      first: true,
      samples: true,
      'self-play': false,
      json: false,
      csv: false,
      jsonl: true,
      concurrency: true,
      yes: false,
      ...REMOTE_FLAGS,
    },
    'tournament',
  );
  if (args.switches.has('json') && args.switches.has('csv')) throw new UsageError('choose one of --json and --csv');
  const list = requiredFlag(args, 'agents', 'a comma-separated list of strategy specs').split(',');
  const specs = parseAgentSpecs(list);
  if (!specs.ok) throw new UsageError(`--agents: ${specs.error}`);
  const selfPlay = args.switches.has('self-play');
  if (specs.value.length < 2 && !selfPlay)
    throw new UsageError('--agents needs at least two agents (or one with --self-play)');
  const fromPath = args.values.get('scenarios-from');
  const file = fromPath === undefined ? null : await scenarioFileFlag(args, fromPath);
  if (file === null && !args.values.has('scenarios'))
    throw new UsageError('--scenarios is required (scenarios per ordered pair, at least 1), or --scenarios-from FILE');
  const scenariosPerPair = file?.scenarios.length ?? intFlag(args, 'scenarios', 1, 1, 1_000_000);
  const samples = intFlag(args, 'samples', 1000, 0, 100_000);
  const anyRemote = specs.value.some((s) => s.remote !== undefined);
  const concurrency = intFlag(args, 'concurrency', anyRemote ? 8 : 1, 1, 1024);
  const prices = priceFlags(args);
  const llm = llmFlags(args, specs.value);
  const makeAgent = createAgentFactory(remoteSettings(args, io.env ?? {}, specs.value), {}, llm);
  const { preset, seed, deadline, firstMover } = sharedScenarioFlags(args);
  const config: TournamentConfig = {
    agents: specs.value.map((s) => s.label),
    scenariosPerPair,
    preset,
    seed,
    selfPlay,
    deadline,
    firstMover,
    ...(file ? { scenarios: file.scenarios } : {}),
  };
  const stored = fullTournamentConfig(config, llm);
  const fileName = fromPath === undefined ? null : basename(fromPath);
  const planned = plannedCount(config);
  if (planned > CONFIRM_PLANS_OVER && !args.switches.has('yes'))
    throw new UsageError(
      `this tournament plans ${planned.toLocaleString('en-US')} negotiations (over ${CONFIRM_PLANS_OVER.toLocaleString('en-US')}); add --yes to run it`,
    );
  const jsonlPath = args.values.get('jsonl');
  if (jsonlPath !== undefined && jsonlPath.trim() === '') throw new UsageError('--jsonl needs a file path');
  if (jsonlPath !== undefined && fromPath !== undefined && (await sameFile(jsonlPath, fromPath)))
    throw new UsageError(`--jsonl ${jsonlPath} is the --scenarios-from file itself; write the run somewhere else`);
  // Opened before anything is played, so a path that cannot be written costs no model call.
  const writer =
    jsonlPath === undefined
      ? null
      : await RunJsonlWriter.open(jsonlPath).catch((e: unknown) => {
          throw new UsageError(`--jsonl: cannot write ${jsonlPath} (${e instanceof Error ? e.message : String(e)})`);
        });
  const aggregator = new Aggregator();
  const scorer = new OracleScorer();
  const started = io.now();
  let lastReport = started;
  let done = 0;
  // Every open model call listens on this signal; Node warns past ten listeners unless told.
  const cancel = new AbortController();
  setMaxListeners(0, cancel.signal);
  const stop = () => cancel.abort();
  if (io.signal?.aborted) stop();
  io.signal?.addEventListener('abort', stop, { once: true });
  let summary: TournamentSummary;
  try {
    summary = await runTournament(config, makeAgent, {
      concurrency,
      signal: cancel.signal,
      onResult: async (r) => {
        aggregator.add(r.buyer, r.seller, r.scenario, scorer.score(r.buyer, r.seller, r.scenario, r.metrics));
        await writer?.add(r);
        done++;
        if ((done & 255) === 0) {
          const now = io.now();
          if (now - lastReport >= 1000) {
            lastReport = now;
            const rate = done / ((now - started) / 1000);
            io.err(`parley: ${done}/${planned} negotiations, ${Math.round(rate)}/s, ${Math.ceil((planned - done) / rate)} s left\n`);
          }
          if (io.signal) await yieldToEventLoop();
        }
      },
    });
  } catch (e) {
    await writer?.abandon();
    throw e;
  } finally {
    io.signal?.removeEventListener('abort', stop);
  }
  // Stopped with negotiations still to play (a stop after the last one changes nothing).
  const cancelled = summary.cancelled && done < planned;
  if (cancelled) io.err(`parley: stopped after ${done}/${planned} negotiations; the results below cover those\n`);
  else if (io.now() - started >= 1000) io.err(`parley: ${planned}/${planned} negotiations; computing intervals\n`);
  if (writer !== null) {
    const run: RunRecord = {
      id: cliRunId(stored),
      name: cliRunName(stored, fileName),
      createdAt: started,
      updatedAt: io.now(),
      status: cancelled ? 'cancelled' : 'done',
      config: { kind: 'tournament', tournament: stored },
      planned,
      done: writer.written,
      message: cancelled ? `stopped from the command line after ${writer.written} of ${planned} negotiations` : null,
    };
    try {
      await writer.finish(run);
    } catch (e) {
      await writer.abandon();
      throw e;
    }
  }
  const standings = aggregator.standings({ samples, seed });
  if (args.switches.has('json')) {
    const priced = prices.size > 0 ? { cost: costJson(standings.usage, prices) } : {};
    const withPrices = prices.size > 0 ? { prices: Object.fromEntries(prices) } : {};
    io.out(
      JSON.stringify({ config: { ...stored, samples, ...withPrices }, negotiations: aggregator.count, ...standings, ...priced }, null, 2) +
        '\n',
    );
  } else if (args.switches.has('csv')) {
    io.out(standingsCsv(standings));
  } else {
    const intervals =
      standings.intervals === null
        ? 'no intervals (--samples 0)'
        : describeIntervals(standings.intervals);
    io.out(
      printable(`${aggregator.count} negotiations: ${config.agents.length} agents, ${scenarioWords(stored, fileName)} per ordered pair, seed ${seed}`) + '\n' +
        (file
          ? "deadline and first mover: each scenario's own (a fixed turn limit both sides know)\n"
          : `deadline ${deadlineLabel(stored.deadline)}, first mover ${stored.firstMover}\n`) +
        (specs.value.some(isModelSpec) ? `models: ${describeLlm(llm)}\n` : '') +
        `${intervals}; a negotiation that ended in an error counts only in errors\n\n` +
        formatLeaderboard(standings.leaderboard) +
        '\n' +
        formatBehaviour(standings.leaderboard) +
        '\n' +
        formatReference(standings.leaderboard) +
        '\n' +
        (standings.usage.byAgent.length > 0 ? formatUsage(standings.usage, prices) + '\n' : '') +
        formatPairs(standings.pairs),
    );
  }
  return cancelled ? EXIT_INTERRUPTED : 0;
}

function strategiesCommand(io: Io): void {
  for (const s of STRATEGIES) {
    io.out(`${s.name}: ${s.summary}\n`);
    for (const [key, p] of Object.entries(s.params))
      io.out(`  ${key}=${p.default}  (${p.min} to ${p.max}) ${p.doc}\n`);
  }
}

/**
 * `check FILE`: the app's import validation (`readRunFile`, or `readMarketFile` for a market run) on a file on disk. Its size is read
 * first, so a file too large to import is refused without being read.
 */
async function checkCommand(argv: string[], io: Io): Promise<number> {
  const paths = argv[0] === '--' ? argv.slice(1) : argv;
  if (paths.length !== 1 || (paths[0] as string).startsWith('--'))
    throw new UsageError('check takes one run file: npm run parley -- check FILE');
  const path = paths[0] as string;
  const problem = (message: string): number => {
    io.err(printable(`parley: error: ${path}: ${message}`) + '\n');
    return 2;
  };
  const read = await readRunFileText(path);
  if (!read.ok) return problem(read.error);
  const { text, size } = read.value;
  if (marketFormatOf(text)) {
    const market = readMarketFile(text, size);
    if (!market.ok) return problem(market.error.message.replace(/\s*\n\s*/g, ' '));
    const n = market.value.lines.length;
    io.out(printable(`ok: ${market.value.run.name}, ${n} market${n === 1 ? '' : 's'}`) + '\n');
    return 0;
  }
  const checked = readRunFile(text, size);
  if (!checked.ok) return problem(checked.error.message.replace(/\s*\n\s*/g, ' '));
  const n = checked.value.rows.length;
  io.out(printable(`ok: ${checked.value.run.name}, ${n} negotiation${n === 1 ? '' : 's'}`) + '\n');
  return 0;
}

/** Returns the exit status: 0 on success, 2 on a usage error, 1 on a bug, 130 when stopped through `io.signal`. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'tournament':
        return await tournamentCommand(rest, io);
      case 'strategies':
        strategiesCommand(io);
        return 0;
      case 'check':
        return await checkCommand(rest, io);
      case 'market':
        return await marketCommand(rest, io);
      case 'market-tournament':
        return await marketTournamentCommand(rest, io);
      case 'serve-env':
        return await serveEnvCommand(rest, io);
      case 'sft':
        return await sftCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return 0;
      default:
        throw new UsageError(`unknown command "${command}"; choose one of: run, tournament, strategies, check, market, market-tournament, serve-env, sft, help`);
    }
  } catch (e) {
    // Messages name files and specs as given: escaped, so a hostile name cannot rewrite the terminal.
    if (e instanceof UsageError) {
      io.err(printable(`parley: error: ${e.message}`) + '\n');
      return 2;
    }
    io.err(printable(`parley: internal error: ${e instanceof Error ? e.message : String(e)}`) + '\n');
    return 1;
  }
}
