import { z } from 'zod';
import { CATALOG, tierOf, type CatalogItem } from './catalog';
import { createRng, deriveSeed, type Rng } from './rng';

export const ROLES = ['buyer', 'seller'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;
export const opponentOf = (role: Role): Role => (role === 'buyer' ? 'seller' : 'buyer');

export const PRESETS = ['standard', 'uniform', 'wide', 'narrow'] as const;
export const PresetSchema = z.enum(PRESETS);
export type Preset = z.infer<typeof PresetSchema>;

export const ItemSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  category: z.string().min(1).max(100),
  listPrice: z.number().positive().finite(),
});

export const DEFAULT_TURN_LIMIT = 20;

export const ScenarioSchema = z.object({
  id: z.string().min(1).max(200),
  item: ItemSchema,
  /** The buyer's private value v. */
  buyerValue: z.number().nonnegative().finite(),
  /** The seller's private cost c. */
  sellerCost: z.number().nonnegative().finite(),
  tier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]),
  turnLimit: z.int().min(1).max(1000),
  firstMover: RoleSchema,
  preset: PresetSchema.optional(),
});
export type Scenario = z.infer<typeof ScenarioSchema>;

export const hasGainsFromTrade = (s: Scenario): boolean => s.buyerValue > s.sellerCost;

export const roundCents = (price: number): number => Math.round(price * 100) / 100;

export interface ScenarioOptions {
  preset?: Preset;
  seed?: number;
  count: number;
  turnLimit?: number;
  firstMover?: Role;
}

/** Share of `standard` scenarios that have gains from trade. */
export const STANDARD_GFT_SHARE = 0.8;

/**
 * Draws buyer value and seller cost, as fractions of the list price, for one preset.
 * Everything but `uniform` draws a midpoint and a gap: with gains from trade the cost sits
 * gap/2 below the midpoint and the value gap/2 above it; without, the other way round.
 */
function drawValues(preset: Preset, rng: Rng): { value: number; cost: number } {
  const around = (mid: number, gap: number, gft: boolean) =>
    gft ? { value: mid + gap / 2, cost: mid - gap / 2 } : { value: mid - gap / 2, cost: mid + gap / 2 };
  switch (preset) {
    case 'standard':
      return around(rng.uniform(0.7, 1.0), rng.uniform(0.05, 0.35), rng.next() < STANDARD_GFT_SHARE);
    case 'uniform':
      return { value: rng.next(), cost: rng.next() };
    case 'wide':
      return around(rng.uniform(0.65, 0.9), rng.uniform(0.4, 0.6), true);
    case 'narrow':
      return around(rng.uniform(0.75, 1.0), rng.uniform(0.01, 0.06), true);
  }
}

export function makeScenario(
  id: string,
  item: CatalogItem,
  buyerValue: number,
  sellerCost: number,
  opts: { turnLimit?: number; firstMover?: Role; preset?: Preset } = {},
): Scenario {
  return {
    id,
    item: { id: item.id, name: item.name, category: item.category, listPrice: item.listPrice },
    buyerValue: roundCents(buyerValue),
    sellerCost: roundCents(sellerCost),
    tier: tierOf(item.listPrice),
    turnLimit: opts.turnLimit ?? DEFAULT_TURN_LIMIT,
    firstMover: opts.firstMover ?? 'seller',
    ...(opts.preset ? { preset: opts.preset } : {}),
  };
}

/** The same preset, seed and count always give the same scenarios; scenario i never depends on count. */
export function generateScenarios(opts: ScenarioOptions): Scenario[] {
  const preset = opts.preset ?? 'standard';
  const seed = opts.seed ?? 1;
  const out: Scenario[] = [];
  for (let i = 0; i < opts.count; i++) {
    const rng = createRng(deriveSeed(seed, 'scenario', preset, i));
    const item = rng.pick(CATALOG);
    const { value, cost } = drawValues(preset, rng);
    let buyerValue = roundCents(value * item.listPrice);
    let sellerCost = roundCents(cost * item.listPrice);
    // Rounding to cents must not erase the sign of v − c that the preset drew.
    if (buyerValue === sellerCost) {
      if (value >= cost) buyerValue = roundCents(buyerValue + 0.01);
      else sellerCost = roundCents(sellerCost + 0.01);
    }
    out.push(
      makeScenario(`${preset}-${seed}-${i}`, item, buyerValue, sellerCost, {
        turnLimit: opts.turnLimit,
        firstMover: opts.firstMover,
        preset,
      }),
    );
  }
  return out;
}
