import { z } from 'zod';
import { CATALOG, tierOf, type CatalogItem } from './catalog';
import { roundCents } from '../../engine/money';
import { createRng, deriveSeed, type Rng } from '../../engine/rng';

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

const turns = z.int().min(1).max(1000);

/**
 * How a scenario set's turn limit is chosen. `fixed`: every scenario has `turns` and both sides
 * know it. `uncertain`: each scenario draws its limit from [min, max]; both sides know the range,
 * neither knows the exact last turn, so neither can make a last-turn ultimatum knowingly.
 */
export const DeadlineSchema = z
  .discriminatedUnion('kind', [z.object({ kind: z.literal('fixed'), turns }), z.object({ kind: z.literal('uncertain'), min: turns, max: turns })])
  .refine((d) => d.kind === 'fixed' || d.min <= d.max, { message: 'the lowest turn limit is above the highest' });
export type Deadline = z.infer<typeof DeadlineSchema>;
export const DEADLINE_KINDS = ['fixed', 'uncertain'] as const satisfies readonly Deadline['kind'][];

/** 20 turns on average, neither side knowing the last one. */
export const DEFAULT_DEADLINE: Deadline = { kind: 'uncertain', min: 16, max: 24 };

/** An uncertain deadline around `turns`: ±20%, at least one turn either side when there is room. */
export function uncertainAround(turns: number): Deadline {
  const spread = Math.max(1, Math.round(turns * 0.2));
  return { kind: 'uncertain', min: Math.max(1, turns - spread), max: Math.min(1000, turns + spread) };
}

export const deadlineLabel = (d: Deadline): string => (d.kind === 'fixed' ? `${d.turns} turns (fixed)` : `${d.min}–${d.max} turns (uncertain)`);

/**
 * Who opens. `alternate`: the seller opens even-numbered scenarios and the buyer odd ones, so each
 * role moves last in half of the scenarios (exactly, not just on average) and neither gets the last
 * word by construction.
 */
export const FIRST_MOVERS = ['alternate', 'seller', 'buyer'] as const;
export const FirstMoverSchema = z.enum(FIRST_MOVERS);
export type FirstMoverChoice = z.infer<typeof FirstMoverSchema>;
export const DEFAULT_FIRST_MOVER: FirstMoverChoice = 'alternate';

/** A public price range `[lo, hi]` in dollars. */
export const PriceRangeSchema = z
  .object({ lo: z.number().nonnegative().finite(), hi: z.number().positive().finite() })
  .refine((r) => r.lo < r.hi, { message: "the price range's low end (lo) must be below its high end (hi)" });
export type PriceRange = z.infer<typeof PriceRangeSchema>;

export const ScenarioSchema = z.object({
  id: z.string().min(1).max(200),
  item: ItemSchema,
  /** The buyer's private value v. */
  buyerValue: z.number().nonnegative().finite(),
  /** The seller's private cost c. */
  sellerCost: z.number().nonnegative().finite(),
  tier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]),
  /** The exact turn limit. With an uncertain deadline the agents are told only `turnRange`. */
  turnLimit: turns,
  /** With an uncertain deadline: the range both sides know the turn limit lies in. */
  turnRange: z.object({ min: turns, max: turns }).optional(),
  firstMover: RoleSchema,
  preset: PresetSchema.optional(),
  /**
   * The price range both sides know (NegMAS's outcome space): scripted strategies open at its end
   * that is best for them. Absent, it is the preset's (`priceRangeOf`); a scenario file may set it.
   */
  priceRange: PriceRangeSchema.optional(),
});
export type Scenario = z.infer<typeof ScenarioSchema>;

/**
 * Each preset's price range, as multiples of the list price: every reservation the preset can
 * draw lies in it (standard: a midpoint in [0.7, 1.0] ± half a gap of up to 0.35, so [0.525, 1.175]),
 * and it is centred where the preset's zones are on average, so neither role opens nearer its own
 * reservation by construction. A scenario with no preset uses the standard one.
 */
export const PRESET_PRICE_RANGES: Record<Preset, { lo: number; hi: number }> = {
  standard: { lo: 0.525, hi: 1.175 },
  uniform: { lo: 0, hi: 1 },
  wide: { lo: 0.35, hi: 1.2 },
  narrow: { lo: 0.72, hi: 1.03 },
};

/** The scenario's public price range: its own, or its preset's (standard's without one) at its list price. */
export function priceRangeOf(s: Pick<Scenario, 'item' | 'preset' | 'priceRange'>): PriceRange {
  if (s.priceRange) return s.priceRange;
  const r = PRESET_PRICE_RANGES[s.preset ?? 'standard'];
  const list = s.item.listPrice;
  return { lo: roundCents(r.lo * list), hi: roundCents(r.hi * list) };
}

/** The prices of a scenario, all that gains from trade and the zone depend on. */
type Prices = Pick<Scenario, 'buyerValue' | 'sellerCost' | 'item'>;

export const hasGainsFromTrade = (s: Pick<Scenario, 'buyerValue' | 'sellerCost'>): boolean => s.buyerValue > s.sellerCost;

/** The turn limits the agents know are possible: [turnLimit, turnLimit] when it is fixed. */
export const knownTurnRange = (s: Scenario): { min: number; max: number } => s.turnRange ?? { min: s.turnLimit, max: s.turnLimit };

/** Zone width `(v − c)` / list price: negative when there are no gains from trade. */
export const zoneWidth = (s: Prices): number => (s.buyerValue - s.sellerCost) / s.item.listPrice;

/** Zone bins by width: no gains, then upper edges (inclusive) of each bin with gains. */
export const ZONE_BINS = [
  { bin: 1, label: 'no gains', upTo: 0 },
  { bin: 2, label: '0–10%', upTo: 0.1 },
  { bin: 3, label: '10–20%', upTo: 0.2 },
  { bin: 4, label: '20–40%', upTo: 0.4 },
  { bin: 5, label: 'over 40%', upTo: Infinity },
] as const;
export type ZoneBin = (typeof ZONE_BINS)[number]['bin'];
export const ZoneBinSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]);

export function zoneBinOf(s: Prices): ZoneBin {
  if (!hasGainsFromTrade(s)) return 1;
  const w = zoneWidth(s);
  for (const z of ZONE_BINS) if (z.bin > 1 && w <= z.upTo) return z.bin;
  return 5;
}

export interface ScenarioOptions {
  preset?: Preset;
  seed?: number;
  count: number;
  deadline?: Deadline;
  firstMover?: FirstMoverChoice;
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
  opts: { turnLimit?: number; turnRange?: { min: number; max: number }; firstMover?: Role; preset?: Preset; priceRange?: PriceRange } = {},
): Scenario {
  return {
    id,
    item: { id: item.id, name: item.name, category: item.category, listPrice: item.listPrice },
    buyerValue: roundCents(buyerValue),
    sellerCost: roundCents(sellerCost),
    tier: tierOf(item.listPrice),
    turnLimit: opts.turnLimit ?? DEFAULT_TURN_LIMIT,
    ...(opts.turnRange ? { turnRange: { min: opts.turnRange.min, max: opts.turnRange.max } } : {}),
    firstMover: opts.firstMover ?? 'seller',
    ...(opts.preset ? { preset: opts.preset } : {}),
    ...(opts.priceRange ? { priceRange: { lo: opts.priceRange.lo, hi: opts.priceRange.hi } } : {}),
  };
}

/** The same preset, seed and count always give the same scenarios; scenario i never depends on count. */
export function generateScenarios(opts: ScenarioOptions): Scenario[] {
  const out: Scenario[] = [];
  for (let i = 0; i < opts.count; i++) out.push(scenarioAt(opts, i));
  return out;
}

/** Scenario i of a set, made on its own (a plan of any size never holds them all). */
export function scenarioAt(opts: Omit<ScenarioOptions, 'count'>, i: number): Scenario {
  const preset = opts.preset ?? 'standard';
  const seed = opts.seed ?? 1;
  const deadline = opts.deadline ?? DEFAULT_DEADLINE;
  const firstMover = opts.firstMover ?? DEFAULT_FIRST_MOVER;
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
  // The deadline draws from a stream of its own, so the items and values of a seed stay the
  // same whatever the deadline.
  const turnLimit =
    deadline.kind === 'fixed' ? deadline.turns : deadline.min + createRng(deriveSeed(seed, 'turns', preset, i)).int(deadline.max - deadline.min + 1);
  const opener: Role = firstMover === 'alternate' ? (i % 2 === 0 ? 'seller' : 'buyer') : firstMover;
  return makeScenario(`${preset}-${seed}-${i}`, item, buyerValue, sellerCost, {
    turnLimit,
    ...(deadline.kind === 'uncertain' ? { turnRange: { min: deadline.min, max: deadline.max } } : {}),
    firstMover: opener,
    preset,
  });
}
