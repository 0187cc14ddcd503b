// `parley tournament`: a round robin of agents over drawn scenarios or a scenario file; standings with intervals.
import { basename } from 'node:path';
import { createAgentFactory } from '../../games/bilateral/registry';
import { isModelSpec } from '../../agents/specs';
import { parseAgentSpecs } from '../../games/bilateral/specs';
import { KEY_ENV } from '../../agents/remote';
import { describeIntervals } from '../../games/bilateral/aggregate';
import { standingsCsv } from '../../games/bilateral/csv';
import { CONFIRM_PLANS_OVER, plannedCount, type TournamentConfig } from '../../games/bilateral/tournament';
import { deriveSeed } from '../../engine/rng';
import { deadlineLabel, DEFAULT_DEADLINE } from '../../games/bilateral/scenario';
import { fullTournamentConfig, TournamentConfigSchema, type StoredTournamentConfig } from '../../storage/schema';
import { MarketRunConfigSchema } from '../../storage/market-schema';
import { intFlag, parseFlags, rangeOf, requiredFlag, usageError, type Command, type ParsedArgs } from '../args';
import { BILATERAL_MODEL_FLAGS, costJson, describeLlm, priceFlags, scenarioFlags, SCENARIO_FLAGS } from '../bilateral-flags';
import { formatBehaviour, formatLeaderboard, formatPairs, formatReference, formatUsage } from '../format';
import { EXIT_INTERRUPTED, type Io } from '../io';
import { negotiationLines } from '../jsonl';
import { CONCURRENCY, llmFlags, printable, remoteSettings } from '../model-flags';
import { readScenarioFile } from '../read-scenario-file';
import { bilateralRuns } from '../../runs/bilateral';
import { openJsonlFlag, playCliRun } from '../play-run';

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

/** What a scenario file replaces, refused beside it: the file gives every scenario, its turns and its opener. */
const DRAWN_SCENARIO_FLAGS = ['scenarios', 'preset', 'deadline', 'turns', 'first'] as const;

/** `--scenarios-from FILE`: the file's scenarios, or a UsageError naming the flag that clashes or the line at fault. */
async function scenarioFileFlag(args: ParsedArgs, path: string) {
  const clash = DRAWN_SCENARIO_FLAGS.find((f) => args.values.has(f));
  if (clash) throw usageError('not-with-scenario-file', { flag: `--${clash}` });
  if (path.trim() === '') throw usageError('needs-path', { flag: '--scenarios-from' });
  const read = await readScenarioFile(path);
  if (!read.ok) throw usageError('unreadable-file', { flag: '--scenarios-from', path, problem: read.error });
  return read.value;
}

async function run(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, tournamentCommand);
  if (args.switches.has('json') && args.switches.has('csv')) throw usageError('flags-exclusive', { flags: ['--json', '--csv'] });
  const list = requiredFlag(args, 'agents', 'a comma-separated list of strategy specs').split(',');
  const specs = parseAgentSpecs(list);
  if (!specs.ok) throw usageError('bad-value', { flag: '--agents', problem: specs.error });
  const selfPlay = args.switches.has('self-play');
  if (specs.value.length < 2 && !selfPlay) throw usageError('too-few-agents');
  const fromPath = args.values.get('scenarios-from');
  const file = fromPath === undefined ? null : await scenarioFileFlag(args, fromPath);
  if (file === null && !args.values.has('scenarios')) throw usageError('scenarios-required');
  const scenariosPerPair = file?.scenarios.length ?? intFlag(args, 'scenarios');
  const samples = intFlag(args, 'samples');
  const anyRemote = specs.value.some((s) => s.remote !== undefined);
  const concurrency = intFlag(args, 'concurrency', anyRemote ? 8 : 1);
  const prices = priceFlags(args);
  const llm = llmFlags(args, specs.value);
  const makeAgent = createAgentFactory(remoteSettings(args, io.env ?? {}, specs.value), {}, llm);
  const { preset, seed, deadline, firstMover } = scenarioFlags(args);
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
  if (planned > CONFIRM_PLANS_OVER && !args.switches.has('yes')) throw usageError('confirm-large-run', { planned, over: CONFIRM_PLANS_OVER });
  const writer = await openJsonlFlag(
    args.values.get('jsonl'),
    negotiationLines,
    fromPath === undefined ? undefined : { flag: '--scenarios-from', path: fromPath },
  );
  const tally = bilateralRuns.tally();
  const { aggregator } = tally;
  const summary = await playCliRun(bilateralRuns, config, {
    io,
    makeAgent,
    tally,
    concurrency,
    writer,
    named: () => ({ id: cliRunId(stored), name: cliRunName(stored, fileName), config: { kind: 'tournament' as const, tournament: stored } }),
  });
  const standings = aggregator.standings({ samples, seed });
  if (args.switches.has('json')) {
    const priced = prices.size > 0 ? { cost: costJson(standings.usage, prices) } : {};
    const withPrices = prices.size > 0 ? { prices: Object.fromEntries(prices) } : {};
    io.out(JSON.stringify({ config: { ...stored, samples, ...withPrices }, negotiations: aggregator.count, ...standings, ...priced }, null, 2) + '\n');
  } else if (args.switches.has('csv')) {
    io.out(standingsCsv(standings));
  } else {
    const intervals = standings.intervals === null ? 'no intervals (--samples 0)' : describeIntervals(standings.intervals);
    io.out(
      printable(`${aggregator.count} negotiations: ${config.agents.length} agents, ${scenarioWords(stored, fileName)} per ordered pair, seed ${seed}`) +
        '\n' +
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
  return summary.status === 'cancelled' ? EXIT_INTERRUPTED : 0;
}

export const tournamentCommand: Command = {
  name: 'tournament',
  summary: 'Every ordered pair of agents (buyer, seller) on the same scenarios: a leaderboard with 95% intervals, behaviour, usage and pairs.',
  flags: {
    agents: {
      required: true,
      kind: 'text',
      value: 'SPEC,SPEC,...',
      help: 'the agents, comma-separated: strategies or PROVIDER:MODEL (at least two, or one with --self-play)',
    },
    scenarios: {
      required: 'unless --scenarios-from',
      kind: 'int',
      value: 'N',
      ...rangeOf(TournamentConfigSchema.out.shape.scenariosPerPair),
      help: 'scenarios per ordered pair',
    },
    'scenarios-from': {
      kind: 'text',
      value: 'FILE.jsonl',
      help: "play this file's scenarios (one JSON object a line; docs/scenario-files.md) instead of --scenarios, --preset, --deadline, --turns and --first",
    },
    ...SCENARIO_FLAGS,
    'self-play': { kind: 'switch', help: 'also pair each agent with itself' },
    // Bilateral runs store no resample count; the market runs' schema holds the one limit for both.
    samples: {
      kind: 'int',
      value: 'N',
      ...rangeOf(MarketRunConfigSchema.shape.samples),
      default: 1000,
      help: 'bootstrap resamples for the intervals (0: no intervals)',
    },
    concurrency: { kind: 'int', value: 'N', ...CONCURRENCY, default: '8 with a model, else 1', help: 'negotiations played at once' },
    json: { kind: 'switch', help: 'print the config and standings as JSON' },
    csv: { kind: 'switch', help: 'print the standings as CSV' },
    jsonl: { kind: 'text', value: 'PATH', help: 'also write the run as a file the app imports (Runs page)' },
    yes: { kind: 'switch', help: `run a plan of over ${CONFIRM_PLANS_OVER.toLocaleString('en-US')} negotiations` },
    ...BILATERAL_MODEL_FLAGS,
  },
  notes:
    `By default the turn limit is drawn per scenario, ${deadlineLabel(DEFAULT_DEADLINE)}: both sides know only the range; ` +
    'seller and buyer open alternate scenarios. --turns N alone fixes the limit at N; --turns MIN-MAX draws it from that range. ' +
    "Ctrl-C stops the tournament and reports (and writes to --jsonl) what had finished. A model's key is read from its provider's " +
    `environment variable (${Object.values(KEY_ENV).slice(0, 3).join(', ')}, …) and sent to that provider alone.`,
  example: 'npm run parley -- tournament --agents boulware,conceder,linear --scenarios 50 --seed 7 --jsonl run.jsonl',
  run,
};
