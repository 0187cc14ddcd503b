export {
  MARKET_STRATEGIES,
  DEFAULT_MARKET_SPECS,
  parseMarketSpec,
  parseMarketSpecs,
  createMarketAgentFactory,
  makeMarketAgent,
  marketStrategy,
  isMarketModelSpec,
} from './specs';
export { marketLlmAgent } from './llm/agent';
export { buildMarketPrompt } from './llm/prompt';
export { decodeMarketMove, marketJsonSchema, marketTools, MODEL_BUYER_SCHEMA, MODEL_SELLER_SCHEMA } from './llm/schema';
export type { MarketAgentSpec } from './specs';
export type { MarketStrategyDef } from './strategies/types';
export { catalogSeller, greedySeller, exploreSeller, randomSeller } from './strategies/sellers';
export { marginBuyer, randomBuyer } from './strategies/buyers';
