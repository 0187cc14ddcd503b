/** Reading the Market page's forms: each field's text checked, every problem named by its field. */
import { parseMarketSpec, parseMarketSpecs } from '../../../games/market/specs';
import {
  ALL_MARKET_CONFIGS,
  MAX_BUDGET,
  MAX_SIDE,
  MAX_STOCK,
  MIN_SIDE,
  marketConfig,
  marketConfigByName,
  VALUATIONS,
  type Valuation,
} from '../../../games/market/scenario';
import type { MarketRunConfig } from '../../../storage/market-schema';
import type { LlmSettings } from '../../../agents/llm/settings';
import { MAX_SEED } from '../../../engine/rng';

export const CUSTOM = 'custom';

export interface GameFields {
  preset: string;
  buyers: string;
  products: string;
  valuation: Valuation;
  stock: string;
  budget: string;
  seed: string;
  seller: string;
  buyer: string;
}

export type Problems = Partial<Record<string, string>>;

function whole(text: string, label: string, min: number, max: number, problems: Problems, key: string): number {
  const t = text.trim();
  const n = Number(t);
  if (!/^\d+$/.test(t) || n < min || n > max) problems[key] = `${label} must be a whole number from ${min} to ${max}${t === '' ? '' : ` (it is “${t}”)`}.`;
  return n;
}

export { MAX_SEED };

/** The game's run config, or the problems by field; nothing the user typed is changed. */
export function readGame(f: GameFields, llm?: LlmSettings): { config: MarketRunConfig } | { problems: Problems } {
  const problems: Problems = {};
  const seed = whole(f.seed, 'Seed', 0, MAX_SEED, problems, 'seed');
  const seller = parseMarketSpec(f.seller, 'seller');
  if (!seller.ok) problems.seller = seller.error.message;
  const buyer = parseMarketSpec(f.buyer, 'buyer');
  if (!buyer.ok) problems.buyer = buyer.error.message;
  let named = f.preset === CUSTOM ? undefined : marketConfigByName(f.preset);
  if (f.preset !== CUSTOM && !named) problems.preset = `Unknown configuration “${f.preset}”.`;
  if (f.preset === CUSTOM) {
    const buyers = whole(f.buyers, 'Buyers', MIN_SIDE, MAX_SIDE, problems, 'buyers');
    const products = whole(f.products, 'Products', MIN_SIDE, MAX_SIDE, problems, 'products');
    const stock = whole(f.stock, 'Stock', 1, MAX_STOCK, problems, 'stock');
    const budget = f.budget.trim() === '' ? null : whole(f.budget, 'Budget', 1, MAX_BUDGET, problems, 'budget');
    if (!VALUATIONS.includes(f.valuation)) problems.valuation = 'Choose a valuation model.';
    if (Object.keys(problems).length === 0) {
      const config = marketConfig({ buyers, products, valuation: f.valuation, stock, budget });
      named = {
        name: `${buyers}x${products}-${f.valuation}`,
        summary: `${buyers} buyers × ${products} products, ${f.valuation} values`,
        heldOut: false,
        config,
      };
    }
  }
  if (Object.keys(problems).length > 0 || !named || !seller.ok || !buyer.ok) return { problems };
  return {
    config: {
      sellers: [seller.value.label],
      buyer: buyer.value.label,
      configs: [{ name: named.name, heldOut: named.heldOut, summary: named.summary, config: named.config }],
      marketsPerConfig: 1,
      seed,
      samples: 0,
      ...(llm && { llm }),
      game: true,
    },
  };
}

export interface TournamentFields {
  sellers: string;
  buyer: string;
  configs: string[];
  markets: string;
  seed: string;
}

/** A market tournament's run config, or the problems by field. */
export function readTournament(f: TournamentFields, llm?: LlmSettings): { config: MarketRunConfig } | { problems: Problems } {
  const problems: Problems = {};
  const sellers = parseMarketSpecs(
    f.sellers
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    'seller',
  );
  if (!sellers.ok) problems.sellers = sellers.error.message;
  else if (sellers.value.length === 0) problems.sellers = 'Name at least one seller.';
  const buyer = parseMarketSpec(f.buyer, 'buyer');
  if (!buyer.ok) problems.buyer = buyer.error.message;
  const configs = ALL_MARKET_CONFIGS.filter((c) => f.configs.includes(c.name));
  if (configs.length === 0) problems.configs = 'Tick at least one configuration.';
  const markets = whole(f.markets, 'Markets per configuration', 1, 10_000, problems, 'markets');
  const seed = whole(f.seed, 'Seed', 0, MAX_SEED, problems, 'seed');
  if (Object.keys(problems).length > 0 || !sellers.ok || !buyer.ok) return { problems };
  return {
    config: {
      sellers: sellers.value.map((s) => s.label),
      buyer: buyer.value.label,
      configs: configs.map((c) => ({ name: c.name, heldOut: c.heldOut, summary: c.summary, config: c.config })),
      marketsPerConfig: markets,
      seed,
      samples: 1000,
      ...(llm && { llm }),
    },
  };
}
