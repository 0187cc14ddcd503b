import { describe, expect, it } from 'vitest';
import { CATALOG, TIER_BOUNDS, TIERS, tierOf } from '../../../src/games/bilateral/catalog';
import { ItemSchema } from '../../../src/games/bilateral/scenario';

describe('catalog', () => {
  it('has at least 60 items with unique ids, each a valid item', () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CATALOG.map((i) => i.id)).size).toBe(CATALOG.length);
    expect(new Set(CATALOG.map((i) => i.name)).size).toBe(CATALOG.length);
    for (const item of CATALOG) {
      expect(ItemSchema.safeParse(item).success).toBe(true);
      expect(item.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });

  it('spans list prices from under $10 to over $1000', () => {
    const prices = CATALOG.map((i) => i.listPrice);
    expect(Math.min(...prices)).toBeLessThan(10);
    expect(Math.max(...prices)).toBeGreaterThan(1000);
  });

  it('has several categories', () => {
    expect(new Set(CATALOG.map((i) => i.category)).size).toBeGreaterThanOrEqual(5);
  });
});

describe('tiers', () => {
  it('has four ascending quintile bounds', () => {
    expect(TIER_BOUNDS).toHaveLength(4);
    for (let k = 1; k < TIER_BOUNDS.length; k++) {
      expect(TIER_BOUNDS[k] as number).toBeGreaterThan(TIER_BOUNDS[k - 1] as number);
    }
  });

  it('puts catalog items in every tier 1–5, about a fifth in each', () => {
    const counts = TIERS.map((t) => CATALOG.filter((i) => tierOf(i.listPrice) === t).length);
    for (const c of counts) {
      expect(c).toBeGreaterThan(0);
      // Quintiles: a fifth of the catalog each, give or take ties at a bound.
      expect(Math.abs(c - CATALOG.length / 5)).toBeLessThanOrEqual(CATALOG.length / 10);
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBe(CATALOG.length);
  });

  it('is monotone in list price', () => {
    const sorted = [...CATALOG].sort((a, b) => a.listPrice - b.listPrice);
    for (let k = 1; k < sorted.length; k++) {
      expect(tierOf((sorted[k] as { listPrice: number }).listPrice)).toBeGreaterThanOrEqual(tierOf((sorted[k - 1] as { listPrice: number }).listPrice));
    }
    // Every item of a higher tier costs more than every item of a lower tier.
    for (const t of [1, 2, 3, 4] as const) {
      const here = CATALOG.filter((i) => tierOf(i.listPrice) === t).map((i) => i.listPrice);
      const above = CATALOG.filter((i) => tierOf(i.listPrice) > t).map((i) => i.listPrice);
      expect(Math.max(...here)).toBeLessThan(Math.min(...above));
    }
  });

  it('classifies any price, including ones outside the catalog and exactly on a bound', () => {
    expect(tierOf(0.01)).toBe(1);
    expect(tierOf(1_000_000)).toBe(5);
    // Tier k covers (bound[k-2], bound[k-1]]: a bound belongs to the lower tier.
    TIER_BOUNDS.forEach((bound, k) => {
      expect(tierOf(bound)).toBe(k + 1);
      expect(tierOf(bound + 0.01)).toBe(k + 2);
    });
  });
});
