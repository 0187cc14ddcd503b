import { describe, expect, it } from 'vitest';
import {
  ALL_MARKET_CONFIGS,
  generateMarket,
  HELD_OUT_CONFIGS,
  MARKET_PRESETS,
  marketConfig,
  MarketScenarioSchema,
  VALUATIONS,
} from '../../../src/core/market/scenario';
import { handMarket } from './helpers';

describe('market scenarios', () => {
  it('the same config, seed and index give the same market; another seed or index another', () => {
    const c = marketConfig({ buyers: 5, products: 4, valuation: 'correlated' });
    expect(generateMarket(c, 3, 2)).toEqual(generateMarket(c, 3, 2));
    expect(generateMarket(c, 3, 2)).not.toEqual(generateMarket(c, 4, 2));
    expect(generateMarket(c, 3, 2).products).not.toEqual(generateMarket(c, 3, 1).products);
  });

  it('makes schema-valid markets from 2 × 2 to 20 × 20 in every valuation model, with the default budget of two turns per buyer', () => {
    for (const valuation of VALUATIONS)
      for (const [buyers, products] of [
        [2, 2],
        [3, 7],
        [20, 20],
      ] as const) {
        const s = generateMarket(marketConfig({ buyers, products, valuation }), 9);
        expect(MarketScenarioSchema.safeParse(s).success).toBe(true);
        expect(s.products).toHaveLength(products);
        expect(s.buyers).toHaveLength(buyers);
        expect(s.budget).toBe(2 * buyers);
        for (const p of s.products) {
          expect(p.stock).toBe(1);
          expect(p.cost).toBeLessThan(p.listPrice);
          expect(p.listPrice).toBeGreaterThanOrEqual(20);
          expect(p.listPrice).toBeLessThanOrEqual(200);
        }
        for (const b of s.buyers) expect(b.values).toHaveLength(products);
      }
  });

  it('shifted values sit below list price; independent ones straddle it', () => {
    const shifted = generateMarket(marketConfig({ buyers: 20, products: 20, valuation: 'shifted' }), 1);
    const independent = generateMarket(marketConfig({ buyers: 20, products: 20 }), 1);
    const ratios = (s: typeof shifted) => s.buyers.flatMap((b) => b.values.map((v, j) => v / (s.products[j] as { listPrice: number }).listPrice));
    expect(Math.max(...ratios(shifted))).toBeLessThan(0.96);
    expect(Math.max(...ratios(independent))).toBeGreaterThan(1.1);
    expect(Math.min(...ratios(independent))).toBeLessThan(0.6);
  });

  it('correlated values share a product quality: buyers rank products far more alike than independent values', () => {
    // Mean correlation between two buyers' value-to-list ratios over the products.
    const agreement = (valuation: 'correlated' | 'independent') => {
      const s = generateMarket(marketConfig({ buyers: 12, products: 12, valuation }), 5);
      const rows = s.buyers.map((b) => b.values.map((v, j) => v / (s.products[j] as { listPrice: number }).listPrice));
      const corr = (x: number[], y: number[]) => {
        const mx = x.reduce((a, b) => a + b) / x.length;
        const my = y.reduce((a, b) => a + b) / y.length;
        let sxy = 0, sxx = 0, syy = 0;
        x.forEach((xi, i) => {
          sxy += (xi - mx) * ((y[i] as number) - my);
          sxx += (xi - mx) ** 2;
          syy += ((y[i] as number) - my) ** 2;
        });
        return sxy / Math.sqrt(sxx * syy);
      };
      let sum = 0, n = 0;
      for (let a = 0; a < rows.length; a++) for (let b = a + 1; b < rows.length; b++) (sum += corr(rows[a] as number[], rows[b] as number[])), n++;
      return sum / n;
    };
    expect(agreement('correlated')).toBeGreaterThan(0.6);
    expect(Math.abs(agreement('independent'))).toBeLessThan(0.2);
  });

  it('keeps held-out configurations apart: other sizes and unseen list-price ranges, correlated values among them', () => {
    const presetNames = new Set(MARKET_PRESETS.map((p) => p.name));
    const presetSizes = new Set(MARKET_PRESETS.map((p) => `${p.config.buyers}x${p.config.products}`));
    for (const h of HELD_OUT_CONFIGS) {
      expect(h.heldOut).toBe(true);
      expect(presetNames.has(h.name)).toBe(false);
      expect(presetSizes.has(`${h.config.buyers}x${h.config.products}`)).toBe(false);
      for (const p of MARKET_PRESETS) expect(h.config.priceRange).not.toEqual(p.config.priceRange);
    }
    expect(HELD_OUT_CONFIGS.some((h) => h.config.valuation === 'correlated')).toBe(true);
    expect(MARKET_PRESETS.every((p) => !p.heldOut)).toBe(true);
    expect(new Set(ALL_MARKET_CONFIGS.map((c) => c.name)).size).toBe(ALL_MARKET_CONFIGS.length);
    expect(MARKET_PRESETS.some((p) => p.config.buyers === 20 && p.config.products === 20)).toBe(true);
  });

  it('names a market by its configuration, and a list price range is honoured', () => {
    const h = HELD_OUT_CONFIGS[0]!;
    const s = generateMarket(h.config, 2, 0, h.name);
    expect(s.config).toBe(h.name);
    expect(s.id).toBe(`${h.name}-2-0`);
    for (const p of s.products) {
      expect(p.listPrice).toBeGreaterThanOrEqual(h.config.priceRange.min);
      expect(p.listPrice).toBeLessThanOrEqual(h.config.priceRange.max);
    }
  });

  it('the schema refuses a buyer without one value per product', () => {
    const bad = handMarket({ buyers: [{ id: 'b1', values: [1, 2] }] });
    expect(MarketScenarioSchema.safeParse(bad).success).toBe(false);
    expect(MarketScenarioSchema.safeParse(handMarket()).success).toBe(true);
  });
});
