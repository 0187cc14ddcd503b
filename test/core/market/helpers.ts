import type { MarketScenario } from '../../../src/core/market/scenario';

/**
 * Two buyers, three products. Values: b1 (30, 12, 9), b2 (25, 14, 2). Costs 10, 5, 8.
 * Optimal welfare: b1–p1 (20) + b2–p2 (9) = 29.
 */
export const handMarket = (over: Partial<MarketScenario> = {}): MarketScenario => ({
  id: 'hand',
  products: [
    { id: 'p1', name: 'Alpha', cost: 10, listPrice: 20, stock: 1 },
    { id: 'p2', name: 'Beta', cost: 5, listPrice: 10, stock: 1 },
    { id: 'p3', name: 'Gamma', cost: 8, listPrice: 12, stock: 1 },
  ],
  buyers: [
    { id: 'b1', values: [30, 12, 9] },
    { id: 'b2', values: [25, 14, 2] },
  ],
  budget: 4,
  valuation: 'independent',
  allowBelowCost: false,
  ...over,
});
