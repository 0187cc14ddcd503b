/**
 * Market scenarios: one seller, a catalog of substitutable products, a pool of buyers with private
 * values and unit demand, and a budget of seller turns. The zod schemas are the types.
 * Definitions of the measures on these markets: docs/market-metrics.md.
 */
import { z } from 'zod';
import { createRng, deriveSeed, type Rng } from '../../engine/rng';
import { roundCents } from '../../engine/money';

export const VALUATIONS = ['independent', 'correlated', 'shifted', 'segmented', 'lognormal'] as const;
export const ValuationSchema = z.enum(VALUATIONS);
/**
 * How buyers value products, each as a multiple of the product's list price:
 * - `independent`: every value drawn on its own from U(0.5, 1.3);
 * - `correlated`: a common quality per product q ~ U(0.8, 1.2), each buyer's taste t ~ U(0.7, 1.2)
 *   and noise e ~ U(−0.1, 0.1): value = q · t · (1 + e);
 * - `shifted`: values sit below the list prices, U(0.35, 0.95): a seller who holds to list price sells little;
 * - `segmented`: two segments with opposite tastes (a Hotelling line). Each product sits at x ~ U(0, 1);
 *   each buyer is in segment A or B with probability 1/2; its fit is 1 − x in A and x in B, and
 *   value = (0.4 + fit) · (1 + e), e ~ U(−0.1, 0.1): the segments rank the products in opposite orders;
 * - `lognormal`: every value drawn on its own, exp(ln 0.8 + 0.5 · Z), Z standard normal: median 0.8,
 *   mean about 0.91 (as `independent`'s 0.9) but a long right tail, about 1 value in 30 above twice list.
 * No preset uses `segmented` or `lognormal`: they are the held-out configurations' models.
 */
export type Valuation = z.infer<typeof ValuationSchema>;

export const MIN_SIDE = 1;
export const MAX_SIDE = 50;
export const MAX_STOCK = 20;
export const MAX_BUDGET = 10_000;

const side = z.int().min(MIN_SIDE).max(MAX_SIDE);
const money = z.number().nonnegative().finite();
const id = z.string().min(1).max(100);

export const PriceRangeSchema = z
  .object({ min: z.number().positive().finite(), max: z.number().positive().finite() })
  .refine((r) => r.min <= r.max, { message: 'the lowest list price is above the highest' });
export type PriceRange = z.infer<typeof PriceRangeSchema>;

/** What a market is drawn from: sizes, valuation model, list-price range, stock and turn budget. */
export const MarketConfigSchema = z.object({
  buyers: side,
  products: side,
  valuation: ValuationSchema,
  /** List prices are drawn uniformly from this range. */
  priceRange: PriceRangeSchema,
  /** Units of each product (default 1). */
  stock: z.int().min(1).max(MAX_STOCK),
  /** Seller turns; `null` means the default, twice the number of buyers. */
  budget: z.int().min(1).max(MAX_BUDGET).nullable(),
});
export type MarketConfig = z.infer<typeof MarketConfigSchema>;

export const ProductSchema = z.object({
  id,
  name: z.string().min(1).max(200),
  cost: money,
  listPrice: z.number().positive().finite(),
  stock: z.int().min(0).max(MAX_STOCK),
});
export type Product = z.infer<typeof ProductSchema>;

export const BuyerSchema = z.object({
  id,
  /** Private value for each product, in product order. */
  values: z.array(money).max(MAX_SIDE),
});
export type Buyer = z.infer<typeof BuyerSchema>;

export const MarketScenarioSchema = z
  .object({
    id: z.string().min(1).max(200),
    products: z.array(ProductSchema).min(MIN_SIDE).max(MAX_SIDE),
    buyers: z.array(BuyerSchema).min(MIN_SIDE).max(MAX_SIDE),
    /** Seller turns: each seller move (or forfeited seller turn) spends one. */
    budget: z.int().min(1).max(MAX_BUDGET),
    valuation: ValuationSchema,
    /** Whether the seller may name a price below the product's cost (when false, such a move is invalid). */
    allowBelowCost: z.boolean(),
    /** The named configuration the market was drawn from, if any. */
    config: z.string().min(1).max(100).optional(),
  })
  .refine((s) => s.buyers.every((b) => b.values.length === s.products.length), {
    message: 'every buyer needs one value per product',
  });
export type MarketScenario = z.infer<typeof MarketScenarioSchema>;

export const DEFAULT_PRICE_RANGE: PriceRange = { min: 20, max: 200 };

/** The default budget: two seller turns per buyer. */
export const defaultBudget = (buyers: number): number => 2 * buyers;

export const budgetOf = (config: MarketConfig): number => config.budget ?? defaultBudget(config.buyers);

/** A config with the defaults filled in where `partial` is silent. */
export function marketConfig(partial: Partial<MarketConfig> & Pick<MarketConfig, 'buyers' | 'products'>): MarketConfig {
  return {
    buyers: partial.buyers,
    products: partial.products,
    valuation: partial.valuation ?? 'independent',
    priceRange: partial.priceRange ?? DEFAULT_PRICE_RANGE,
    stock: partial.stock ?? 1,
    budget: partial.budget ?? null,
  };
}

/** Seller's cost as a share of list price, U(0.4, 0.7), in every valuation model. */
const COST_SHARE = { min: 0.4, max: 0.7 } as const;

/** Each buyer's values for every product, as multiples of list price, row by row. */
function valueShares(valuation: Valuation, buyers: number, products: number, rng: Rng): number[][] {
  switch (valuation) {
    case 'independent':
      return Array.from({ length: buyers }, () => Array.from({ length: products }, () => rng.uniform(0.5, 1.3)));
    case 'correlated': {
      const quality = Array.from({ length: products }, () => rng.uniform(0.8, 1.2));
      return Array.from({ length: buyers }, () => {
        const taste = rng.uniform(0.7, 1.2);
        return quality.map((q) => q * taste * (1 + rng.uniform(-0.1, 0.1)));
      });
    }
    case 'shifted':
      return Array.from({ length: buyers }, () => Array.from({ length: products }, () => rng.uniform(0.35, 0.95)));
    case 'segmented': {
      const position = Array.from({ length: products }, () => rng.next());
      return Array.from({ length: buyers }, () => {
        const segmentA = rng.next() < 0.5;
        return position.map((x) => (0.4 + (segmentA ? 1 - x : x)) * (1 + rng.uniform(-0.1, 0.1)));
      });
    }
    case 'lognormal':
      return Array.from({ length: buyers }, () => Array.from({ length: products }, () => Math.exp(Math.log(0.8) + 0.5 * standardNormal(rng))));
  }
}

/** A standard normal draw (Box–Muller; 1 − u keeps the logarithm finite). */
function standardNormal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Market `index` of a config and seed: the same three always give the same market. */
export function generateMarket(config: MarketConfig, seed: number, index = 0, name?: string): MarketScenario {
  const label = name ?? configKey(config);
  const rng = createRng(deriveSeed(seed, 'market', label, index));
  const { min, max } = config.priceRange;
  const products: Product[] = Array.from({ length: config.products }, (_, j) => {
    const listPrice = Math.max(0.01, roundCents(rng.uniform(min, max)));
    return {
      id: `p${j + 1}`,
      name: `Product ${j + 1}`,
      cost: roundCents(listPrice * rng.uniform(COST_SHARE.min, COST_SHARE.max)),
      listPrice,
      stock: config.stock,
    };
  });
  const shares = valueShares(config.valuation, config.buyers, config.products, rng);
  const buyers: Buyer[] = shares.map((row, b) => ({
    id: `b${b + 1}`,
    values: row.map((share, j) => roundCents(share * (products[j] as Product).listPrice)),
  }));
  return {
    id: `${label}-${seed}-${index}`,
    products,
    buyers,
    budget: budgetOf(config),
    valuation: config.valuation,
    allowBelowCost: false,
    ...(name !== undefined ? { config: name } : {}),
  };
}

/** A short name for an unnamed config: `5x5-independent-20-200`. */
export const configKey = (c: MarketConfig): string =>
  `${c.buyers}x${c.products}-${c.valuation}-${c.priceRange.min}-${c.priceRange.max}` +
  (c.stock !== 1 ? `-s${c.stock}` : '') +
  (c.budget !== null ? `-t${c.budget}` : '');

/** A named configuration; held-out ones are kept apart from the presets to test generalisation. */
export interface NamedMarketConfig {
  name: string;
  summary: string;
  heldOut: boolean;
  config: MarketConfig;
}

const named = (name: string, summary: string, heldOut: boolean, partial: Parameters<typeof marketConfig>[0]): NamedMarketConfig => ({
  name,
  summary,
  heldOut,
  config: marketConfig(partial),
});

/** Presets: sizes and models a seller may be tuned on. List prices $20–$200. */
export const MARKET_PRESETS: readonly NamedMarketConfig[] = [
  named('small', '3 buyers × 3 products, independent values', false, { buyers: 3, products: 3 }),
  named('standard', '5 buyers × 5 products, independent values', false, { buyers: 5, products: 5 }),
  named('scarce', '10 buyers × 4 products: more buyers than stock', false, { buyers: 10, products: 4 }),
  named('correlated', '8 buyers × 8 products, values correlated by quality and taste', false, {
    buyers: 8,
    products: 8,
    valuation: 'correlated',
  }),
  named('shifted', '6 buyers × 6 products, values below list price', false, { buyers: 6, products: 6, valuation: 'shifted' }),
  named('large', '20 buyers × 20 products, independent values', false, { buyers: 20, products: 20 }),
];

/**
 * Held out: valuation models no preset uses (`segmented`, `lognormal`), with sizes and list-price
 * ranges no preset has, to test whether a seller generalises to unseen value distributions.
 */
export const HELD_OUT_CONFIGS: readonly NamedMarketConfig[] = [
  named('held-out-7x5-segmented', '7 buyers × 5 products, two segments with opposite tastes, list $500–$2,500', true, {
    buyers: 7,
    products: 5,
    valuation: 'segmented',
    priceRange: { min: 500, max: 2500 },
  }),
  named('held-out-12x12-segmented', '12 buyers × 12 products, two segments with opposite tastes, list $5–$40', true, {
    buyers: 12,
    products: 12,
    valuation: 'segmented',
    priceRange: { min: 5, max: 40 },
  }),
  named('held-out-4x9-lognormal', '4 buyers × 9 products, heavy-tailed (lognormal) values, list $1,000–$3,000', true, {
    buyers: 4,
    products: 9,
    valuation: 'lognormal',
    priceRange: { min: 1000, max: 3000 },
  }),
  named('held-out-15x10-lognormal-stock2', '15 buyers × 10 products, 2 units each, heavy-tailed (lognormal) values, list $300–$900', true, {
    buyers: 15,
    products: 10,
    valuation: 'lognormal',
    stock: 2,
    priceRange: { min: 300, max: 900 },
  }),
];

/** Valuation models that held-out configurations use and no preset does. */
export const HELD_OUT_VALUATIONS: readonly Valuation[] = VALUATIONS.filter(
  (v) => HELD_OUT_CONFIGS.some((h) => h.config.valuation === v) && !MARKET_PRESETS.some((p) => p.config.valuation === v),
);

export const MARKET_PRESET_NAMES = MARKET_PRESETS.map((p) => p.name);
export const ALL_MARKET_CONFIGS: readonly NamedMarketConfig[] = [...MARKET_PRESETS, ...HELD_OUT_CONFIGS];
export const marketConfigByName = (name: string): NamedMarketConfig | undefined => ALL_MARKET_CONFIGS.find((c) => c.name === name);

/** Units the market holds at the start, over every product. */
export const totalStock = (s: MarketScenario): number => s.products.reduce((n, p) => n + p.stock, 0);
