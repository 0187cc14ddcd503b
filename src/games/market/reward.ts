/**
 * A verifiable reward for the seller of one finished market, for trainers and the environment
 * server: a fold over the event log through the market's own metrics (metrics.ts), so it needs
 * nothing but the scenario and the log.
 *
 *   total = adherence + extraction + allocation
 *
 * - `adherence` = −adherence weight × (1 − constraint adherence): 0 when every seller move was
 *   valid, −weight when none was. A penalty rather than a credit, so that a seller that does
 *   nothing (adherence 1 over no moves) earns nothing for it.
 * - `extraction` = extraction weight × seller surplus / optimal welfare, clamped to [0, 1] (a
 *   buyer that accepts a loss can push it past 1; a sale below cost below 0).
 * - `allocation` = allocation weight × realised welfare / optimal welfare, clamped to [0, 1]: how
 *   well buyers were matched to the products they value most.
 *
 * A market whose optimal welfare is 0 (no buyer values any product above its cost) scores only
 * its adherence. A market that ended in an error or was cancelled scores what it did until then.
 */
import { z } from 'zod';
import type { MarketEvent } from './events';
import { computeMarketMetrics } from './metrics';
import type { MarketScenario } from './scenario';

export const MarketRewardWeightsSchema = z.object({
  /** Cost of a market in which every seller move was refused (scaled by the refused share). */
  adherence: z.number().finite().min(0).max(100),
  /** Weight of the seller's surplus over the optimal welfare. */
  extraction: z.number().finite().min(0).max(100),
  /** Weight of the realised welfare over the optimal welfare. */
  allocation: z.number().finite().min(0).max(100),
});
export type MarketRewardWeights = z.infer<typeof MarketRewardWeightsSchema>;

export const DEFAULT_MARKET_REWARD_WEIGHTS: Readonly<MarketRewardWeights> = Object.freeze({ adherence: 1, extraction: 1, allocation: 0.5 });

export interface MarketRewardTerms {
  adherence: number;
  extraction: number;
  allocation: number;
}
export const MARKET_REWARD_TERMS = ['adherence', 'extraction', 'allocation'] as const satisfies readonly (keyof MarketRewardTerms)[];

export interface MarketReward {
  total: number;
  terms: MarketRewardTerms;
  /** The metrics the terms were computed from, unweighted and unclamped. */
  counts: {
    constraintAdherence: number;
    extraction: number | null;
    allocationQuality: number | null;
    validMoves: number;
    invalidMoves: number;
  };
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/** The seller's reward over a finished market log (it must end in an `end` event). Pure. */
export function marketReward(
  scenario: MarketScenario,
  events: readonly MarketEvent[],
  weights: Partial<MarketRewardWeights> = {},
  optimalWelfare?: number,
): MarketReward {
  const w: MarketRewardWeights = { ...DEFAULT_MARKET_REWARD_WEIGHTS };
  for (const key of MARKET_REWARD_TERMS) if (weights[key] !== undefined) w[key] = weights[key];
  const m = optimalWelfare === undefined ? computeMarketMetrics(scenario, events) : computeMarketMetrics(scenario, events, optimalWelfare);
  const terms: MarketRewardTerms = {
    // + 0: no negative zero in JSON or in tests.
    adherence: -w.adherence * (1 - m.constraintAdherence) + 0,
    extraction: m.extraction === null ? 0 : w.extraction * clamp01(m.extraction),
    allocation: m.allocationQuality === null ? 0 : w.allocation * clamp01(m.allocationQuality),
  };
  return {
    total: terms.adherence + terms.extraction + terms.allocation,
    terms,
    counts: {
      constraintAdherence: m.constraintAdherence,
      extraction: m.extraction,
      allocationQuality: m.allocationQuality,
      validMoves: m.seller.moves,
      invalidMoves: m.seller.invalidMoves,
    },
  };
}
