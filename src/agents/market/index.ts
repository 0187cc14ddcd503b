export { MARKET_STRATEGIES, DEFAULT_MARKET_SPECS, parseMarketSpec, parseMarketSpecs, createMarketAgentFactory, makeMarketAgent, marketStrategy } from './specs';
export type { MarketAgentSpec } from './specs';
export type { MarketStrategyDef } from './types';
export { catalogSeller, greedySeller, exploreSeller, randomSeller } from './sellers';
export { marginBuyer, randomBuyer } from './buyers';
