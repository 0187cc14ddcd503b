// `parley market` and `parley market-tournament`: the multi-product market from the command line.
// Metric definitions: docs/market-metrics.md.
import { MarketAggregator, STANDING_METRICS, type MarketStandingRow } from '../core/market/aggregate';
import type { MarketEvent, MarketResult } from '../core/market/events';
import { optimalAllocation } from '../core/market/matching';
import { MARKET_METRIC_NAMES, salesOf, type MarketMetrics } from '../core/market/metrics';
import type { BuyerMove, SellerMove } from '../core/market/moves';
import {
  ALL_MARKET_CONFIGS,
  generateMarket,
  HELD_OUT_CONFIGS,
  HELD_OUT_VALUATIONS,
  MARKET_PRESETS,
  MAX_BUDGET,
  MAX_SIDE,
  MAX_STOCK,
  MIN_SIDE,
  marketConfigByName,
  VALUATIONS,
  type MarketConfig,
  type MarketScenario,
  type NamedMarketConfig,
} from '../core/market/scenario';
import { playMarket, plannedMarkets, runMarketTournament, type MarketTournamentConfig, type MarketTournamentResult } from '../core/market/tournament';
import { assertNever } from '../core/result';
import { createRng, deriveSeed } from '../core/rng';
import {
  createMarketAgentFactory,
  DEFAULT_MARKET_SPECS,
  MARKET_STRATEGIES,
  parseMarketSpec,
  parseMarketSpecs,
  type MarketAgentSpec,
} from '../agents/market';
import type { MarketAgentFactory } from '../core/market/tournament';
import { choiceFlag, intFlag, numberFlag, parseFlags, requiredFlag, UsageError, type ParsedArgs } from './args';
import { money, pct } from './format';
import { llmFlags, printable, remoteSettings } from './model-flags';
import { HeadedJsonlFile } from './output-file';
// Only the type: main.ts imports this file, and a value import back would make a cycle.
import type { Io } from './main';

/** As main.ts's EXIT_INTERRUPTED: a command stopped through `Io.signal`. */
const EXIT_INTERRUPTED = 130;

export const MARKET_USAGE = `  market      --buyers N --products M [--budget T] [--valuation MODEL] [--stock K]
              [--preset NAME] [--seller SPEC] [--buyer SPEC] [--seed S] [--json]: one market, one seller, M products,
              N buyers with unit demand, T seller turns; sellers ${MARKET_STRATEGIES.seller.map((d) => d.name).join(', ')} (default ${DEFAULT_MARKET_SPECS.seller}),
              buyers ${MARKET_STRATEGIES.buyer.map((d) => d.name).join(', ')} (default ${DEFAULT_MARKET_SPECS.buyer}), or a model as PROVIDER:MODEL with the model flags below;
              --valuation ${VALUATIONS.filter((v) => !HELD_OUT_VALUATIONS.includes(v)).join(', ')} (the presets' models; default independent)
              or ${HELD_OUT_VALUATIONS.join(', ')} (only held-out configurations use them)
  market-tournament  [--sellers SPEC,SPEC,...] [--buyer SPEC] [--configs NAME,...] [--markets N] [--seed S]
              [--samples N] [--json] [--jsonl PATH]: every seller on the same markets of each configuration:
              ${MARKET_PRESETS.map((c) => c.name).join(', ')},
              held out: ${HELD_OUT_CONFIGS.map((c) => c.name).join(', ')}`;

const quote = (text: string): string => printable(JSON.stringify(text));

/** One spec for a seat, or the default; a bad one is a usage error naming the flag. */
function seatSpec(args: ParsedArgs, flag: 'seller' | 'buyer'): MarketAgentSpec {
  const spec = parseMarketSpec(args.values.get(flag) ?? DEFAULT_MARKET_SPECS[flag], flag);
  if (!spec.ok) throw new UsageError(`--${flag}: ${spec.error}`);
  return spec.value;
}

/** The flags for model seats, as the bilateral commands take them (src/cli/main.ts). */
const MODEL_FLAGS = { interface: true, temperature: true, 'max-tokens': true, thinking: false, 'base-url': true, 'timeout-ms': true } as const;

/**
 * The agent factory for the seats named: model seats get their provider's key from the
 * environment (or PARLEY_API_KEY with --base-url), and are asked as the model flags say.
 */
function agentFactory(args: ParsedArgs, io: Io, specs: readonly MarketAgentSpec[]): MarketAgentFactory {
  const llm = llmFlags(args, specs);
  return createMarketAgentFactory(remoteSettings(args, io.env ?? {}, specs), llm);
}

/** The market's configuration: a preset's (`--preset`), with any size, model, stock or budget flag laid over it. */
function marketFlags(args: ParsedArgs): { name: string | undefined; config: MarketConfig } {
  const presetName = args.values.get('preset');
  const preset = presetName === undefined ? undefined : marketConfigByName(presetName);
  if (presetName !== undefined && !preset)
    throw new UsageError(`unknown market preset "${presetName}"; choose one of: ${ALL_MARKET_CONFIGS.map((c) => c.name).join(', ')}`);
  const base = preset?.config;
  const side = (flag: 'buyers' | 'products') => {
    if (base === undefined && !args.values.has(flag)) requiredFlag(args, flag, `how many ${flag}, ${MIN_SIDE} to ${MAX_SIDE}`);
    return intFlag(args, flag, base?.[flag] ?? 0, MIN_SIDE, MAX_SIDE);
  };
  const buyers = side('buyers');
  const products = side('products');
  const config: MarketConfig = {
    buyers,
    products,
    valuation: choiceFlag(args, 'valuation', VALUATIONS, base?.valuation ?? 'independent'),
    priceRange: base?.priceRange ?? { min: 20, max: 200 },
    stock: intFlag(args, 'stock', base?.stock ?? 1, 1, MAX_STOCK),
    budget: args.values.has('budget') ? intFlag(args, 'budget', 0, 1, MAX_BUDGET) : (base?.budget ?? null),
  };
  const changed = preset !== undefined && JSON.stringify(config) !== JSON.stringify(preset.config);
  return { name: preset && !changed ? preset.name : undefined, config };
}

export function describeMarketEnd(outcome: MarketResult): string {
  switch (outcome.kind) {
    case 'budget_spent':
      return `the seller's budget was spent (turn ${outcome.turn})`;
    case 'sold_out':
      return `every unit was sold (turn ${outcome.turn})`;
    case 'no_buyers':
      return `every buyer had bought (turn ${outcome.turn})`;
    case 'error':
      return `error: the ${outcome.actor}'s agent failed on turn ${outcome.turn + 1}: ${printable(outcome.message)}`;
    case 'cancelled':
      return `cancelled on turn ${outcome.turn + 1}`;
    default:
      return assertNever(outcome);
  }
}

/** One event as a line of the transcript; `addressed` is the buyer the last offer went to. */
function eventLine(e: MarketEvent, addressed: string): string {
  const turn = String(e.turn + 1).padStart(3);
  switch (e.type) {
    case 'move': {
      if (e.actor === 'seller') {
        const m = e.move as SellerMove;
        return `${turn} seller → ${printable(m.buyer)}: ${printable(m.product)} at ${money(m.price)}${m.message ? `  ${quote(m.message)}` : ''}`;
      }
      const m = e.move as BuyerMove;
      const said = m.message ? `  ${quote(m.message)}` : '';
      return `${turn}   ${printable(addressed)}: ${m.response.type === 'counter' ? `counter ${money(m.response.price)}` : m.response.type}${said}`;
    }
    case 'invalid':
      return `${turn} ${e.actor} refused (try ${e.attempt + 1}): ${printable(e.reason)}`;
    case 'forfeit':
      return `${turn} ${e.actor} forfeits the turn`;
    case 'end':
      return `ended: ${describeMarketEnd(e.outcome)}`;
    default:
      return assertNever(e);
  }
}

/** The nine named measures, in the order docs/market-metrics.md gives them. */
const namedMetrics = (m: MarketMetrics) => Object.fromEntries(MARKET_METRIC_NAMES.map((k) => [k, m[k]])) as Pick<MarketMetrics, (typeof MARKET_METRIC_NAMES)[number]>;

const METRIC_LABELS: Record<(typeof MARKET_METRIC_NAMES)[number], string> = {
  constraintAdherence: 'constraint adherence',
  sellerSurplus: 'seller surplus',
  buyerSurplus: 'buyer surplus',
  extraction: 'extraction',
  allocationQuality: 'allocation quality',
  optimalWelfare: 'optimal welfare',
  realisedWelfare: 'realised welfare',
  sellThrough: 'sell-through',
  budgetUsed: 'budget used',
};
const MONEY_METRICS = new Set(['sellerSurplus', 'buyerSurplus', 'optimalWelfare', 'realisedWelfare']);
const showMetric = (name: string, x: number | null): string => (x === null ? '–' : MONEY_METRICS.has(name) ? money(x) : pct(x));

function formatMarket(scenario: MarketScenario, seats: { seller: string; buyer: string }, events: readonly MarketEvent[], metrics: MarketMetrics, seed: number): string {
  const optimal = optimalAllocation(scenario);
  const sales = salesOf(events);
  const product = (id: string) => scenario.products.find((p) => p.id === id) as MarketScenario['products'][number];
  const valueOf = (buyer: string, productId: string) =>
    (scenario.buyers.find((b) => b.id === buyer) as MarketScenario['buyers'][number]).values[scenario.products.findIndex((p) => p.id === productId)] as number;
  let addressed = '';
  const lines = [
    `market ${scenario.id}: ${scenario.buyers.length} buyers × ${scenario.products.length} products, ${scenario.valuation} values, budget ${scenario.budget} seller turns, seed ${seed}`,
    `seller ${seats.seller}; buyers ${seats.buyer}`,
    'products:',
    ...scenario.products.map((p) => `  ${p.id.padEnd(4)} list ${money(p.listPrice).padStart(9)}  cost ${money(p.cost).padStart(9)}  stock ${p.stock}`),
    '',
    ...events.map((e) => {
      if (e.type === 'move' && e.actor === 'seller') addressed = (e.move as SellerMove).buyer;
      return eventLine(e, addressed);
    }),
    '',
    sales.length === 0 ? 'sales: none' : 'sales:',
    ...sales.map((s) => `  ${s.buyer} bought ${s.product} at ${money(s.price)} (value ${money(valueOf(s.buyer, s.product))}, cost ${money(product(s.product).cost)})`),
    optimal.assignments.length === 0 ? 'optimal allocation: none (no buyer values any product above its cost)' : 'optimal allocation:',
    ...optimal.assignments.map((a) => `  ${a.buyer} gets ${a.product} (welfare ${money(a.welfare)})`),
    '',
    ...MARKET_METRIC_NAMES.map((k) => `${METRIC_LABELS[k].padEnd(21)} ${showMetric(k, metrics[k])}`),
    ...(['seller', 'buyer'] as const).flatMap((seat) => {
      const t = metrics[seat];
      return t.calls === 0 ? [] : [`${seat} model: ${t.calls} calls, ${t.tokensIn} tokens in, ${t.tokensOut} out, ${Math.round(t.latencyMs / t.calls)} ms a call`];
    }),
  ];
  return lines.join('\n') + '\n';
}

export async function marketCommand(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(
    argv,
    { buyers: true, products: true, budget: true, valuation: true, stock: true, preset: true, seller: true, buyer: true, seed: true, json: false, ...MODEL_FLAGS },
    'market',
  );
  const { name, config } = marketFlags(args);
  const sellerSpec = seatSpec(args, 'seller');
  const buyerSpec = seatSpec(args, 'buyer');
  const makeMarketAgent = agentFactory(args, io, [sellerSpec, buyerSpec]);
  const seller = sellerSpec.label;
  const buyer = buyerSpec.label;
  const seed = intFlag(args, 'seed', 1, 0, 2 ** 32 - 1);
  const scenario = generateMarket(config, seed, 0, name);
  const id = `market-${seed}`;
  const seat = (role: 'seller' | 'buyer', spec: string) => {
    const seatSeed = deriveSeed(seed, id, role);
    return makeMarketAgent(spec, role, { rng: createRng(seatSeed), negotiationId: id, seed: seatSeed });
  };
  const played = await playMarket(scenario, { seller: seat('seller', seller), buyer: seat('buyer', buyer) }, io.signal ? { signal: io.signal } : {});
  const { events, outcome, metrics } = played;
  if (args.switches.has('json')) {
    const optimal = optimalAllocation(scenario);
    const doc = {
      scenario,
      agents: { seller, buyer },
      seed,
      events,
      outcome,
      allocation: { sales: salesOf(events), optimal: optimal.assignments },
      metrics: namedMetrics(metrics),
      seats: { seller: metrics.seller, buyer: metrics.buyer },
    };
    io.out(JSON.stringify(doc, null, 2) + '\n');
  } else io.out(formatMarket(scenario, { seller, buyer }, events, metrics, seed));
  return outcome.kind === 'cancelled' ? EXIT_INTERRUPTED : 0;
}

export const MARKET_JSONL_FORMAT = 'parley-market-jsonl';
export const MARKET_JSONL_VERSION = 1;

/**
 * A market tournament as JSONL: a header line `{"format":"parley-market-jsonl","version":1,"run":{…}}`
 * with the config and the count, then one market a line. Markets stream to a side file; the header
 * is known only at the end, when the whole moves into place (the path never holds half a run).
 */
class MarketJsonlWriter {
  count = 0;
  private constructor(private readonly file: HeadedJsonlFile) {}

  static async open(path: string): Promise<MarketJsonlWriter> {
    return new MarketJsonlWriter(await HeadedJsonlFile.open(path));
  }

  async add(r: MarketTournamentResult): Promise<void> {
    const { id, config, marketIndex, seller, buyer, scenario, events, outcome, metrics } = r;
    this.count++;
    await this.file.add(JSON.stringify({ id, config: config.name, heldOut: config.heldOut, marketIndex, seller, buyer, scenario, events, outcome, metrics }) + '\n');
  }

  async finish(run: object): Promise<void> {
    await this.file.finish(JSON.stringify({ format: MARKET_JSONL_FORMAT, version: MARKET_JSONL_VERSION, run }) + '\n');
  }

  async abandon(): Promise<void> {
    await this.file.abandon();
  }
}

/** A value with its interval: `0.523 [0.481, 0.566]`; money in dollars. */
function estimate(name: string, e: MarketStandingRow['metrics'][keyof MarketStandingRow['metrics']]): string {
  if (e.value === null) return '–';
  const fmt = (x: number) => (MONEY_METRICS.has(name) ? money(x) : x.toFixed(3));
  return e.ci === null ? fmt(e.value) : `${fmt(e.value)} [${fmt(e.ci[0])}, ${fmt(e.ci[1])}]`;
}

const TABLE_METRICS = ['constraintAdherence', 'extraction', 'allocationQuality', 'sellThrough', 'budgetUsed', 'sellerSurplus'] as const;

function formatStandings(rows: readonly MarketStandingRow[], configs: readonly NamedMarketConfig[]): string {
  const header = ['seller', 'n', 'errors', ...TABLE_METRICS.map((k) => METRIC_LABELS[k])];
  const blocks: string[] = [];
  const groups = [...new Set(rows.map((r) => `${r.scope}|${r.config}`))];
  for (const key of groups) {
    const members = rows.filter((r) => `${r.scope}|${r.config}` === key);
    const first = members[0] as MarketStandingRow;
    const named = configs.find((c) => c.name === first.config);
    const title =
      first.scope === 'config'
        ? `${first.config}${first.heldOut ? ' [held out]' : ''}: ${named?.summary ?? ''}`
        : `all ${first.scope === 'held-out' ? 'held-out configurations' : 'presets'} together`;
    const table = [header, ...members.map((r) => [r.seller, String(r.n), String(r.errors), ...TABLE_METRICS.map((k) => estimate(k, r.metrics[k]))])];
    const widths = header.map((_, c) => Math.max(...table.map((row) => (row[c] as string).length)));
    blocks.push([title, ...table.map((row) => row.map((cell, c) => cell.padEnd(widths[c] as number)).join('  ').trimEnd())].join('\n'));
  }
  return blocks.join('\n\n') + '\n';
}

export async function marketTournamentCommand(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(
    argv,
    { sellers: true, buyer: true, configs: true, markets: true, seed: true, samples: true, json: false, jsonl: true, ...MODEL_FLAGS },
    'market-tournament',
  );
  const deterministic = MARKET_STRATEGIES.seller.filter((d) => d.deterministic).map((d) => d.name);
  const sellers = parseMarketSpecs((args.values.get('sellers') ?? deterministic.join(',')).split(','), 'seller');
  if (!sellers.ok) throw new UsageError(`--sellers: ${sellers.error}`);
  const buyerSpec = seatSpec(args, 'buyer');
  const buyer = buyerSpec.label;
  const makeMarketAgent = agentFactory(args, io, [...sellers.value, buyerSpec]);
  const configNames = args.values.get('configs')?.split(',').map((s) => s.trim()) ?? ALL_MARKET_CONFIGS.map((c) => c.name);
  const configs: NamedMarketConfig[] = [];
  for (const name of configNames) {
    const found = marketConfigByName(name);
    if (!found) throw new UsageError(`--configs: unknown configuration "${name}"; choose from: ${ALL_MARKET_CONFIGS.map((c) => c.name).join(', ')}`);
    if (configs.includes(found)) throw new UsageError(`--configs: "${name}" is listed twice`);
    configs.push(found);
  }
  const marketsPerConfig = intFlag(args, 'markets', 20, 1, 100_000);
  const seed = intFlag(args, 'seed', 1, 0, 2 ** 32 - 1);
  const samples = intFlag(args, 'samples', 1000, 0, 100_000);
  const config: MarketTournamentConfig = { sellers: sellers.value.map((s) => s.label), buyer, configs, marketsPerConfig, seed };
  const planned = plannedMarkets(config);
  const jsonlPath = args.values.get('jsonl');
  if (jsonlPath !== undefined && jsonlPath.trim() === '') throw new UsageError('--jsonl needs a file path');
  const writer =
    jsonlPath === undefined
      ? null
      : await MarketJsonlWriter.open(jsonlPath).catch((e: unknown) => {
          throw new UsageError(`--jsonl: cannot write ${jsonlPath} (${e instanceof Error ? e.message : String(e)})`);
        });
  const aggregator = new MarketAggregator();
  const started = io.now();
  let done = 0;
  let summary;
  try {
    summary = await runMarketTournament(config, makeMarketAgent, {
      ...(io.signal && { signal: io.signal }),
      onResult: async (r) => {
        aggregator.add(r.config.name, r.config.heldOut, r.seller, r.metrics);
        await writer?.add(r);
        done++;
        // Lets Ctrl-C through: scripted markets never wait on anything.
        if (io.signal && (done & 63) === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      },
    });
  } catch (e) {
    await writer?.abandon();
    throw e;
  }
  const cancelled = summary.cancelled && done < planned;
  if (cancelled) io.err(`parley: stopped after ${done}/${planned} markets; the results below cover those\n`);
  const stored = { ...config, configs: configs.map((c) => ({ name: c.name, heldOut: c.heldOut, summary: c.summary, config: c.config })), samples };
  if (writer !== null) {
    const run = {
      id: `cli-market-s${seed}-${deriveSeed(seed, 'cli-market-tournament', JSON.stringify(stored)).toString(36)}`,
      name: `CLI market tournament: ${config.sellers.join(', ')} (${marketsPerConfig} markets per configuration, seed ${seed})`.slice(0, 200),
      createdAt: started,
      updatedAt: io.now(),
      status: cancelled ? 'cancelled' : 'done',
      config: stored,
      planned,
      done: writer.count,
    };
    try {
      await writer.finish(run);
    } catch (e) {
      await writer.abandon();
      throw e;
    }
  }
  const standings = aggregator.standings({ samples, seed });
  const intervals =
    samples === 0
      ? null
      : { method: 'paired-analytic', unit: 'market', level: 0.95, bootstrapBelow: 30, samples, statistic: 'mean over markets' };
  if (args.switches.has('json')) {
    io.out(JSON.stringify({ config: stored, markets: aggregator.count, standings, intervals, metrics: STANDING_METRICS.map(([k]) => k) }, null, 2) + '\n');
  } else {
    io.out(
      `${aggregator.count} markets: ${config.sellers.length} sellers × ${configs.length} configurations × ${marketsPerConfig} markets, buyers ${buyer}, seed ${seed}\n` +
        (samples === 0
          ? 'no intervals (--samples 0)'
          : `95% intervals over markets (normal approximation; bootstrap of ${samples} below 30 markets)`) +
        '; a market that ended in an error counts only in errors\n\n' +
        formatStandings(standings, configs),
    );
  }
  return cancelled ? EXIT_INTERRUPTED : 0;
}
