// `parley market-tournament`: every seller on the same markets of each configuration, with standings.
import { DEFAULT_MARKET_SPECS, MARKET_STRATEGIES, parseMarketSpecs } from '../../games/market';
import { STANDING_METRICS } from '../../games/market/aggregate';
import { ALL_MARKET_CONFIGS, HELD_OUT_CONFIGS, MARKET_PRESETS, marketConfigByName, type NamedMarketConfig } from '../../games/market/scenario';
import { type MarketTournamentConfig } from '../../games/market/tournament';
import { deriveSeed, SeedSchema } from '../../engine/rng';
import { MarketRunConfigSchema } from '../../storage/market-schema';
import { intFlag, parseFlags, rangeOf, usageError, type Command } from '../args';
import { EXIT_INTERRUPTED, type Io } from '../io';
import { agentFactory, formatStandings, marketLines, seatSpec } from '../market';
import { LLM_FLAGS, REMOTE_FLAGS } from '../model-flags';
import { marketRuns } from '../../runs/market';
import { openJsonlFlag, playCliRun } from '../play-run';

/** The sellers played when --sellers is not given: every deterministic one. */
const deterministic = MARKET_STRATEGIES.seller.filter((d) => d.deterministic).map((d) => d.name);

async function run(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, marketTournamentCommand);
  const sellers = parseMarketSpecs((args.values.get('sellers') ?? deterministic.join(',')).split(','), 'seller');
  if (!sellers.ok) throw usageError('bad-value', { flag: '--sellers', problem: sellers.error });
  const buyerSpec = seatSpec(args, 'buyer');
  const buyer = buyerSpec.label;
  const makeMarketAgent = agentFactory(args, io, [...sellers.value, buyerSpec]);
  const configNames =
    args.values
      .get('configs')
      ?.split(',')
      .map((s) => s.trim()) ?? ALL_MARKET_CONFIGS.map((c) => c.name);
  const configs: NamedMarketConfig[] = [];
  for (const name of configNames) {
    const found = marketConfigByName(name);
    if (!found) throw usageError('unknown-config', { name, configs: ALL_MARKET_CONFIGS.map((c) => c.name) });
    if (configs.includes(found)) throw usageError('config-twice', { name });
    configs.push(found);
  }
  const marketsPerConfig = intFlag(args, 'markets');
  const seed = intFlag(args, 'seed');
  const samples = intFlag(args, 'samples');
  const config: MarketTournamentConfig = { sellers: sellers.value.map((s) => s.label), buyer, configs, marketsPerConfig, seed };
  const writer = await openJsonlFlag(args.values.get('jsonl'), marketLines);
  const stored = { ...config, configs: configs.map((c) => ({ name: c.name, heldOut: c.heldOut, summary: c.summary, config: c.config })), samples };
  const aggregator = marketRuns.tally();
  const summary = await playCliRun(marketRuns, config, {
    io,
    makeAgent: makeMarketAgent,
    tally: aggregator,
    writer,
    named: () => ({
      id: `cli-market-s${seed}-${deriveSeed(seed, 'cli-market-tournament', JSON.stringify(stored)).toString(36)}`,
      name: `CLI market tournament: ${config.sellers.join(', ')} (${marketsPerConfig} markets per configuration, seed ${seed})`.slice(0, 200),
      config: stored,
    }),
  });
  const standings = aggregator.standings({ samples, seed });
  const intervals =
    samples === 0 ? null : { method: 'paired-analytic', unit: 'market', level: 0.95, bootstrapBelow: 30, samples, statistic: 'mean over markets' };
  if (args.switches.has('json')) {
    io.out(JSON.stringify({ config: stored, markets: aggregator.count, standings, intervals, metrics: STANDING_METRICS.map(([k]) => k) }, null, 2) + '\n');
  } else {
    io.out(
      `${aggregator.count} markets: ${config.sellers.length} sellers × ${configs.length} configurations × ${marketsPerConfig} markets, buyers ${buyer}, seed ${seed}\n` +
        (samples === 0 ? 'no intervals (--samples 0)' : `95% intervals over markets (normal approximation; bootstrap of ${samples} below 30 markets)`) +
        '; a market that ended in an error counts only in errors\n\n' +
        formatStandings(standings, configs),
    );
  }
  return summary.status === 'cancelled' ? EXIT_INTERRUPTED : 0;
}

const names = (list: readonly { name: string }[]) => list.map((d) => d.name).join(', ');

export const marketTournamentCommand: Command = {
  name: 'market-tournament',
  summary:
    'Every seller on the same markets of each configuration; standings per configuration, for the presets together and for the held-out configurations together, with 95% intervals over markets.',
  flags: {
    sellers: {
      kind: 'text',
      value: 'SPEC,SPEC,...',
      default: deterministic.join(','),
      help: `the sellers: ${names(MARKET_STRATEGIES.seller)}, or PROVIDER:MODEL`,
    },
    buyer: { kind: 'text', value: 'SPEC', default: DEFAULT_MARKET_SPECS.buyer, help: `every buyer: ${names(MARKET_STRATEGIES.buyer)}, or PROVIDER:MODEL` },
    configs: {
      kind: 'text',
      value: 'NAME,...',
      default: 'all',
      help: `the configurations: ${names(MARKET_PRESETS)}; held out: ${names(HELD_OUT_CONFIGS)}`,
    },
    markets: { kind: 'int', value: 'N', ...rangeOf(MarketRunConfigSchema.shape.marketsPerConfig), default: 20, help: 'markets per configuration' },
    seed: { kind: 'int', value: 'S', ...rangeOf(SeedSchema), default: 1, help: 'the seed the markets are drawn from' },
    samples: {
      kind: 'int',
      value: 'N',
      ...rangeOf(MarketRunConfigSchema.shape.samples),
      default: 1000,
      help: 'bootstrap resamples for the intervals (0: none)',
    },
    json: { kind: 'switch', help: 'print the config and standings as JSON' },
    jsonl: { kind: 'text', value: 'PATH', help: 'also write the run as a file the app imports (Runs page)' },
    ...LLM_FLAGS,
    ...REMOTE_FLAGS,
  },
  example: 'npm run parley -- market-tournament --sellers greedy,explore --configs small,scarce --markets 50 --jsonl market.jsonl',
  run,
};
