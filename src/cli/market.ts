// What `parley market` and `parley market-tournament` (commands/) share: seats, the market flags, the transcript,
// the standings table and a market's line in a run file (jsonl.ts writes the file).
// Metric definitions: docs/market-metrics.md.
import type { MarketStandingRow } from '../games/market/aggregate';
import type { MarketEvent, MarketResult } from '../games/market/events';
import { optimalAllocation } from '../games/market/matching';
import { MARKET_METRIC_NAMES, salesOf, type MarketMetrics } from '../games/market/metrics';
import type { BuyerMove, SellerMove } from '../games/market/moves';
import {
  ALL_MARKET_CONFIGS,
  MAX_SIDE,
  MIN_SIDE,
  marketConfigByName,
  VALUATIONS,
  type MarketConfig,
  type MarketScenario,
  type NamedMarketConfig,
} from '../games/market/scenario';
import type { MarketAgentFactory, MarketTournamentResult } from '../games/market/tournament';
import { assertNever } from '../engine/result';
import { createMarketAgentFactory, DEFAULT_MARKET_SPECS, parseMarketSpec, type MarketAgentSpec } from '../games/market';
import { choiceFlag, intFlag, requiredFlag, usageError, type ParsedArgs } from './args';
import { money, pct } from './format';
import type { Io } from './io';
import { llmFlags, printable, remoteSettings } from './model-flags';
import type { JsonlLines } from './jsonl';
import { marketLine } from '../storage/market-schema';

const quote = (text: string): string => printable(JSON.stringify(text));

/** One spec for a seat, or the default; a bad one is a usage error naming the flag. */
export function seatSpec(args: ParsedArgs, flag: 'seller' | 'buyer'): MarketAgentSpec {
  const spec = parseMarketSpec(args.values.get(flag) ?? DEFAULT_MARKET_SPECS[flag], flag);
  if (!spec.ok) throw usageError('bad-value', { flag: `--${flag}`, problem: spec.error });
  return spec.value;
}

/**
 * The agent factory for the seats named: model seats get their provider's key from the
 * environment (or PARLEY_API_KEY with --base-url), and are asked as the model flags say.
 */
export function agentFactory(args: ParsedArgs, io: Io, specs: readonly MarketAgentSpec[]): MarketAgentFactory {
  const llm = llmFlags(args, specs);
  return createMarketAgentFactory(remoteSettings(args, io.env ?? {}, specs), llm);
}

/** The market's configuration: a preset's (`--preset`), with any size, model, stock or budget flag laid over it. */
export function marketFlags(args: ParsedArgs): { name: string | undefined; config: MarketConfig } {
  const presetName = args.values.get('preset');
  const preset = presetName === undefined ? undefined : marketConfigByName(presetName);
  if (presetName !== undefined && !preset) throw usageError('unknown-market-preset', { name: presetName, presets: ALL_MARKET_CONFIGS.map((c) => c.name) });
  const base = preset?.config;
  const side = (flag: 'buyers' | 'products') => {
    if (base === undefined && !args.values.has(flag)) requiredFlag(args, flag, `how many ${flag}, ${MIN_SIDE} to ${MAX_SIDE}`);
    return intFlag(args, flag, base?.[flag] ?? 0);
  };
  const buyers = side('buyers');
  const products = side('products');
  const config: MarketConfig = {
    buyers,
    products,
    valuation: choiceFlag(args, 'valuation', VALUATIONS, base?.valuation ?? 'independent'),
    priceRange: base?.priceRange ?? { min: 20, max: 200 },
    stock: intFlag(args, 'stock', base?.stock ?? 1),
    budget: args.values.has('budget') ? intFlag(args, 'budget', 0) : (base?.budget ?? null),
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
export const namedMetrics = (m: MarketMetrics) =>
  Object.fromEntries(MARKET_METRIC_NAMES.map((k) => [k, m[k]])) as Pick<MarketMetrics, (typeof MARKET_METRIC_NAMES)[number]>;

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

export function formatMarket(
  scenario: MarketScenario,
  seats: { seller: string; buyer: string },
  events: readonly MarketEvent[],
  metrics: MarketMetrics,
  seed: number,
): string {
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
    ...sales.map(
      (s) => `  ${s.buyer} bought ${s.product} at ${money(s.price)} (value ${money(valueOf(s.buyer, s.product))}, cost ${money(product(s.product).cost)})`,
    ),
    optimal.assignments.length === 0 ? 'optimal allocation: none (no buyer values any product above its cost)' : 'optimal allocation:',
    ...optimal.assignments.map((a) => `  ${a.buyer} gets ${a.product} (welfare ${money(a.welfare)})`),
    '',
    ...MARKET_METRIC_NAMES.map((k) => `${METRIC_LABELS[k].padEnd(21)} ${showMetric(k, metrics[k])}`),
    ...(['seller', 'buyer'] as const).flatMap((seat) => {
      const t = metrics[seat];
      return t.calls === 0
        ? []
        : [`${seat} model: ${t.calls} calls, ${t.tokensIn} tokens in, ${t.tokensOut} out, ${Math.round(t.latencyMs / t.calls)} ms a call`];
    }),
  ];
  return lines.join('\n') + '\n';
}

/** A market's line in a run file carries its metrics, derived data an import checks against the log. */
export const marketLines: JsonlLines<'market', MarketTournamentResult> = {
  game: 'market',
  line: (r) => JSON.stringify({ ...marketLine(r), metrics: r.metrics }),
};

/** A value with its interval: `0.523 [0.481, 0.566]`; money in dollars. */
function estimate(name: string, e: MarketStandingRow['metrics'][keyof MarketStandingRow['metrics']]): string {
  if (e.value === null) return '–';
  const fmt = (x: number) => (MONEY_METRICS.has(name) ? money(x) : x.toFixed(3));
  return e.ci === null ? fmt(e.value) : `${fmt(e.value)} [${fmt(e.ci[0])}, ${fmt(e.ci[1])}]`;
}

const TABLE_METRICS = ['constraintAdherence', 'extraction', 'allocationQuality', 'sellThrough', 'budgetUsed', 'sellerSurplus'] as const;

export function formatStandings(rows: readonly MarketStandingRow[], configs: readonly NamedMarketConfig[]): string {
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
    blocks.push(
      [
        title,
        ...table.map((row) =>
          row
            .map((cell, c) => cell.padEnd(widths[c] as number))
            .join('  ')
            .trimEnd(),
        ),
      ].join('\n'),
    );
  }
  return blocks.join('\n\n') + '\n';
}
