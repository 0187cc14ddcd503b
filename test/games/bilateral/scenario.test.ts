import { describe, expect, it } from 'vitest';
import { CATALOG, tierOf } from '../../../src/games/bilateral/catalog';
import {
  DEFAULT_TURN_LIMIT,
  PRESETS,
  ScenarioSchema,
  generateScenarios,
  hasGainsFromTrade,
  makeScenario,
  opponentOf,
  type Scenario,
} from '../../../src/games/bilateral/scenario';
import { roundCents } from '../../../src/engine/money';

const isCents = (x: number): boolean => Math.abs(x * 100 - Math.round(x * 100)) < 1e-6;
/** v − c as a fraction of the list price. */
const zone = (s: Scenario): number => (s.buyerValue - s.sellerCost) / s.item.listPrice;

describe('small helpers', () => {
  it('opponentOf swaps roles', () => {
    expect(opponentOf('buyer')).toBe('seller');
    expect(opponentOf('seller')).toBe('buyer');
  });

  it('roundCents rounds to the nearest cent', () => {
    expect(roundCents(12.3449)).toBe(12.34);
    expect(roundCents(12.346)).toBe(12.35);
    expect(roundCents(99.999)).toBe(100);
    expect(roundCents(0.004)).toBe(0);
    expect(roundCents(-1.006)).toBe(-1.01);
  });

  it('hasGainsFromTrade is strict v > c', () => {
    const item = CATALOG[0]!;
    expect(hasGainsFromTrade(makeScenario('a', item, 10, 9.99))).toBe(true);
    expect(hasGainsFromTrade(makeScenario('a', item, 10, 10))).toBe(false);
    expect(hasGainsFromTrade(makeScenario('a', item, 9, 10))).toBe(false);
  });
});

describe('makeScenario', () => {
  const item = CATALOG.find((i) => i.listPrice > 1000)!;

  it('rounds values to cents, copies the item and derives the tier', () => {
    const s = makeScenario('x', item, 1000.123, 800.456);
    expect(s.buyerValue).toBe(1000.12);
    expect(s.sellerCost).toBe(800.46);
    expect(s.item).toEqual({ id: item.id, name: item.name, category: item.category, listPrice: item.listPrice });
    expect(s.tier).toBe(tierOf(item.listPrice));
    expect(ScenarioSchema.safeParse(s).success).toBe(true);
  });

  it('defaults to 20 turns and the seller moving first; both can be overridden', () => {
    const s = makeScenario('x', item, 10, 5);
    expect(DEFAULT_TURN_LIMIT).toBe(20);
    expect(s.turnLimit).toBe(20);
    expect(s.firstMover).toBe('seller');
    const t = makeScenario('x', item, 10, 5, { turnLimit: 7, firstMover: 'buyer' });
    expect(t.turnLimit).toBe(7);
    expect(t.firstMover).toBe('buyer');
  });
});

describe('generateScenarios', () => {
  it('gives the same scenarios for the same preset, seed and count', () => {
    for (const preset of PRESETS) {
      expect(generateScenarios({ preset, seed: 5, count: 30 })).toEqual(generateScenarios({ preset, seed: 5, count: 30 }));
    }
  });

  it('makes scenario i independent of the count', () => {
    const few = generateScenarios({ preset: 'standard', seed: 3, count: 5 });
    const many = generateScenarios({ preset: 'standard', seed: 3, count: 50 });
    expect(many.slice(0, 5)).toEqual(few);
  });

  it('gives different scenarios for different seeds and presets', () => {
    const a = generateScenarios({ preset: 'standard', seed: 1, count: 20 });
    const b = generateScenarios({ preset: 'standard', seed: 2, count: 20 });
    const key = (s: Scenario) => `${s.item.id}/${s.buyerValue}/${s.sellerCost}`;
    expect(a.map(key).filter((k, i) => k === key(b[i]!)).length).toBeLessThanOrEqual(1);
    const w = generateScenarios({ preset: 'wide', seed: 1, count: 20 });
    expect(w.map(key)).not.toEqual(a.map(key));
  });

  it('gives count scenarios with unique ids, defaulting to the standard preset', () => {
    const s = generateScenarios({ seed: 4, count: 40 });
    expect(s).toHaveLength(40);
    expect(new Set(s.map((x) => x.id)).size).toBe(40);
    expect(s.every((x) => x.preset === 'standard')).toBe(true);
    expect(generateScenarios({ count: 0 })).toEqual([]);
  });

  it('defaults to an uncertain 16–24 turn limit with alternating first movers, and passes overrides to every scenario', () => {
    const d = generateScenarios({ preset: 'wide', seed: 1, count: 40 });
    expect(d.every((s) => s.turnRange?.min === 16 && s.turnRange.max === 24)).toBe(true);
    expect(d.every((s) => s.turnLimit >= 16 && s.turnLimit <= 24)).toBe(true);
    expect(new Set(d.map((s) => s.turnLimit)).size).toBeGreaterThan(3);
    expect(d.map((s) => s.firstMover)).toEqual(d.map((_, i) => (i % 2 === 0 ? 'seller' : 'buyer')));
    const o = generateScenarios({ preset: 'wide', seed: 1, count: 40, deadline: { kind: 'fixed', turns: 9 }, firstMover: 'buyer' });
    expect(o.every((s) => s.turnLimit === 9 && s.turnRange === undefined && s.firstMover === 'buyer')).toBe(true);
    // Overrides change the rules, not the values drawn.
    expect(o.map((s) => [s.item.id, s.buyerValue, s.sellerCost])).toEqual(d.map((s) => [s.item.id, s.buyerValue, s.sellerCost]));
  });

  it('produces scenarios that parse, with cent values, catalog items and the right tier', () => {
    for (const preset of PRESETS) {
      for (const s of generateScenarios({ preset, seed: 11, count: 200 })) {
        expect(ScenarioSchema.parse(s)).toEqual(s);
        expect(isCents(s.buyerValue) && isCents(s.sellerCost)).toBe(true);
        const item = CATALOG.find((i) => i.id === s.item.id);
        expect(item).toBeDefined();
        expect(s.item.listPrice).toBe(item!.listPrice);
        expect(s.tier).toBe(tierOf(s.item.listPrice));
        expect(s.preset).toBe(preset);
      }
    }
  });

  it('draws items from across the catalog and every tier', () => {
    const s = generateScenarios({ preset: 'standard', seed: 2, count: 500 });
    expect(new Set(s.map((x) => x.item.id)).size).toBeGreaterThan(CATALOG.length * 0.8);
    expect(new Set(s.map((x) => x.tier))).toEqual(new Set([1, 2, 3, 4, 5]));
  });

  it('standard: mostly gains from trade (about 80%), some without, never v = c', () => {
    const s = generateScenarios({ preset: 'standard', seed: 1, count: 2000 });
    const gftShare = s.filter(hasGainsFromTrade).length / s.length;
    expect(gftShare).toBeGreaterThan(0.75);
    expect(gftShare).toBeLessThan(0.85);
    expect(s.every((x) => x.buyerValue !== x.sellerCost)).toBe(true);
    expect(s.every((x) => x.buyerValue >= 0 && x.sellerCost >= 0)).toBe(true);
  });

  it('uniform: v and c independently in [0, L], both signs of v − c about equally often', () => {
    const s = generateScenarios({ preset: 'uniform', seed: 1, count: 2000 });
    for (const x of s) {
      expect(x.buyerValue).toBeGreaterThanOrEqual(0);
      expect(x.buyerValue).toBeLessThanOrEqual(x.item.listPrice);
      expect(x.sellerCost).toBeGreaterThanOrEqual(0);
      expect(x.sellerCost).toBeLessThanOrEqual(x.item.listPrice);
    }
    const gftShare = s.filter(hasGainsFromTrade).length / s.length;
    expect(gftShare).toBeGreaterThan(0.45);
    expect(gftShare).toBeLessThan(0.55);
    // Uniform on [0, 1] as fractions of L: mean about 1/2, spread over the whole range.
    const v = s.map((x) => x.buyerValue / x.item.listPrice);
    const c = s.map((x) => x.sellerCost / x.item.listPrice);
    for (const xs of [v, c]) {
      expect(Math.abs(xs.reduce((a, b) => a + b, 0) / xs.length - 0.5)).toBeLessThan(0.03);
      expect(xs.filter((f) => f < 0.1).length).toBeGreaterThan(100);
      expect(xs.filter((f) => f > 0.9).length).toBeGreaterThan(100);
    }
  });

  it('wide and narrow: all gains from trade, and every wide zone wider than every narrow one', () => {
    const wide = generateScenarios({ preset: 'wide', seed: 1, count: 1000 });
    const narrow = generateScenarios({ preset: 'narrow', seed: 1, count: 1000 });
    expect(wide.every(hasGainsFromTrade)).toBe(true);
    expect(narrow.every(hasGainsFromTrade)).toBe(true);
    const minWide = Math.min(...wide.map(zone));
    const maxNarrow = Math.max(...narrow.map(zone));
    expect(minWide).toBeGreaterThan(maxNarrow);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(wide.map(zone))).toBeGreaterThan(5 * mean(narrow.map(zone)));
  });
});

describe('ScenarioSchema', () => {
  const good = makeScenario('x', CATALOG[0]!, 5, 3);

  it('accepts a made scenario and rejects broken ones', () => {
    expect(ScenarioSchema.safeParse(good).success).toBe(true);
    expect(ScenarioSchema.safeParse({ ...good, buyerValue: -1 }).success).toBe(false);
    expect(ScenarioSchema.safeParse({ ...good, sellerCost: Infinity }).success).toBe(false);
    expect(ScenarioSchema.safeParse({ ...good, tier: 6 }).success).toBe(false);
    expect(ScenarioSchema.safeParse({ ...good, turnLimit: 2.5 }).success).toBe(false);
    expect(ScenarioSchema.safeParse({ ...good, turnLimit: 0 }).success).toBe(false);
    expect(ScenarioSchema.safeParse({ ...good, firstMover: 'broker' }).success).toBe(false);
    expect(ScenarioSchema.safeParse({ ...good, item: { ...good.item, listPrice: 0 } }).success).toBe(false);
  });
});
