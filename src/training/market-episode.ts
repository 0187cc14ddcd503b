/**
 * A market training episode: the policy plays the seller of one market (a catalog, a pool of
 * buyers with private values, a budget of seller turns) and a Parley buyer strategy answers for
 * the buyers, driven by episode-core.ts. Scored by `marketReward` (adherence, extraction,
 * allocation quality).
 */
import { z } from 'zod';
import { marketLlmAgent } from '../games/market/llm/agent';
import { market } from '../games/market/protocol';
import { marketReward, MarketRewardWeightsSchema } from '../games/market/reward';
import { generateMarket, marketConfigByName, ALL_MARKET_CONFIGS, type MarketScenario } from '../games/market/scenario';
import { episodeDriver, EPISODE_FIELDS, POLICY_FIELDS } from './episode-core';

const CONFIG_NAMES = ALL_MARKET_CONFIGS.map((c) => c.name);

/** `POST /episodes` for the market: the policy sells; `opponent` is the buyers' strategy. */
export const MarketEpisodeRequestSchema = z.strictObject({
  game: z.literal('market'),
  /** Only the seller is a policy seat: the buyers answer as one strategy. */
  seat: z.literal('seller').default('seller'),
  /** The buyers' market strategy (`margin`, `random`, or a model as PROVIDER:MODEL). */
  opponent: z.string().trim().min(1).max(300).default('margin'),
  /** A market configuration by name: a preset (`small`, `standard`, …) or a held-out one. */
  preset: z
    .string()
    .refine((name) => marketConfigByName(name) !== undefined, { message: `a market configuration: one of ${CONFIG_NAMES.join(', ')}` })
    .default('standard'),
  ...EPISODE_FIELDS,
  ...POLICY_FIELDS,
  /** Market reward weights (adherence, extraction, allocation); the defaults where left out. */
  weights: z.strictObject(MarketRewardWeightsSchema.partial().shape).optional(),
});
export type MarketEpisodeRequest = z.infer<typeof MarketEpisodeRequestSchema>;
export type MarketEpisodeInput = z.input<typeof MarketEpisodeRequestSchema>;

/** The market of a request and the job id its seats are seeded under, from the request alone. */
export function marketEpisodeSetup(req: MarketEpisodeRequest): { scenario: MarketScenario; jobId: string } {
  const named = marketConfigByName(req.preset);
  if (!named) throw new Error(`unknown market configuration ${req.preset}`);
  return { scenario: generateMarket(named.config, req.seed, req.index, named.name), jobId: `env-market-${req.preset}-${req.seed}-${req.index}` };
}

/** What is the market's own in an episode. */
const marketEpisodes = episodeDriver({
  schema: MarketEpisodeRequestSchema,
  protocol: market,
  setup: marketEpisodeSetup,
  seats: () => ({ policy: 'seller', opponent: 'buyer' }),
  policyAgent: (backend, role, options) => marketLlmAgent(backend, role, options),
  reward: (req, scenario, record) => marketReward(scenario, record.events, req.weights ?? {}),
});

/** One market episode in-process, the policy's answers from a function: the same as over HTTP, given the same answers. */
export const playMarketEpisode = marketEpisodes.play;
/** A market episode played a step at a time, for the environment server. */
export const startMarketEpisode = marketEpisodes.start;
