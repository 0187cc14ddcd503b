/**
 * A market training episode: the policy plays the seller of one market (a catalog, a pool of
 * buyers with private values, a budget of seller turns) and a Parley buyer strategy answers for
 * the buyers. The seller's seat is the market's LLM agent over a backend whose answers come from
 * outside, so the policy sees that agent's exact prompts and its answers go through the same
 * decoder, refusals and forfeits included. Scored by `marketReward` (adherence, extraction,
 * allocation quality).
 */
import { z } from 'zod';
import type { MarketRecord } from '../games/market/events';
import { market } from '../games/market/protocol';
import { marketReward, MarketRewardWeightsSchema, type MarketReward } from '../games/market/reward';
import { generateMarket, marketConfigByName, ALL_MARKET_CONFIGS, type MarketScenario } from '../games/market/scenario';
import type { MarketAgent, MarketAgentFactory } from '../games/market/tournament';
import { Seat } from '../engine/seat';
import { runSession } from '../engine/session';
import { DEFAULT_CONTEXT_WINDOW, type ChatRequest, type ChatResponse } from '../agents/backends/types';
import type { LlmAgentOptions } from '../agents/llm/seat';
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS, MoveInterfaceSchema } from '../agents/llm/settings';
import { marketLlmAgent } from '../games/market/llm/agent';
import { Episode, OpponentError, policyBackend, type EpisodeEnd, type EpisodeView } from './episode';
import { SeedSchema } from '../engine/rng';

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
  seed: SeedSchema,
  interface: MoveInterfaceSchema.default('tools'),
  /** Which market of the set (preset, seed). */
  index: z.int().min(0).max(1_000_000).default(0),
  contextWindow: z.int().min(2048).max(10_000_000).default(DEFAULT_CONTEXT_WINDOW),
  maxTokens: z.int().min(MIN_MAX_TOKENS).max(MAX_MAX_TOKENS).optional(),
  thinking: z.boolean().default(false),
  /** Market reward weights (adherence, extraction, allocation); the defaults where left out. */
  weights: z.strictObject(MarketRewardWeightsSchema.partial().shape).optional(),
});
export type MarketEpisodeRequest = z.infer<typeof MarketEpisodeRequestSchema>;
export type MarketEpisodeInput = z.input<typeof MarketEpisodeRequestSchema>;

export interface MarketEpisodeSetup {
  scenario: MarketScenario;
  marketId: string;
  policyOptions: LlmAgentOptions;
}

/** Everything the episode is made from, derived from its request alone. */
export function marketEpisodeSetup(req: MarketEpisodeRequest): MarketEpisodeSetup {
  const named = marketConfigByName(req.preset);
  if (!named) throw new Error(`unknown market configuration ${req.preset}`);
  const marketId = `env-market-${req.preset}-${req.seed}-${req.index}`;
  const policyOptions: LlmAgentOptions = {
    interface: req.interface,
    thinking: req.thinking,
    seed: new Seat(req.seed, marketId, 'seller').seed,
    now: () => 0,
    ...(req.maxTokens !== undefined && { maxTokens: req.maxTokens }),
  };
  return { scenario: generateMarket(named.config, req.seed, req.index, named.name), marketId, policyOptions };
}

/** The buyers' agent from the factory; a spec it refuses is the client's mistake. */
function buyersAgent(req: MarketEpisodeRequest, setup: MarketEpisodeSetup, makeAgent: MarketAgentFactory): MarketAgent {
  try {
    return makeAgent(req.opponent, 'buyer', new Seat(req.seed, setup.marketId, 'buyer'));
  } catch (e) {
    throw new OpponentError(e instanceof Error ? e.message : String(e));
  }
}

export interface MarketEpisodeResult {
  record: MarketRecord;
  reward: MarketReward;
}

export const marketEndView = (result: MarketEpisodeResult): EpisodeEnd => ({
  done: true,
  reward: result.reward.total,
  terms: result.reward.terms,
  outcome: result.record.outcome,
});

async function play(
  req: MarketEpisodeRequest,
  setup: MarketEpisodeSetup,
  buyers: MarketAgent,
  ask: (request: ChatRequest, signal: AbortSignal) => Promise<ChatResponse>,
  signal?: AbortSignal,
): Promise<MarketEpisodeResult> {
  const seller = marketLlmAgent(policyBackend(req.contextWindow, ask), 'seller', setup.policyOptions);
  const record = await runSession(market, setup.scenario, { seller, buyer: buyers }, signal ? { signal } : {});
  return { record, reward: marketReward(setup.scenario, record.events, req.weights ?? {}) };
}

/** One market episode in-process, the policy's answers from `answer`: the same as over HTTP, given the same answers. */
export async function playMarketEpisode(
  input: MarketEpisodeInput,
  makeAgent: MarketAgentFactory,
  answer: (request: ChatRequest) => ChatResponse | Promise<ChatResponse>,
  signal?: AbortSignal,
): Promise<MarketEpisodeResult> {
  const req = MarketEpisodeRequestSchema.parse(input);
  const setup = marketEpisodeSetup(req);
  return play(req, setup, buyersAgent(req, setup, makeAgent), async (r) => answer(r), signal);
}

/** A market episode played a step at a time, for the environment server. */
export function startMarketEpisode(id: string, req: MarketEpisodeRequest, makeAgent: MarketAgentFactory): Promise<{ episode: Episode; view: EpisodeView }> {
  const setup = marketEpisodeSetup(req);
  const buyers = buyersAgent(req, setup, makeAgent);
  return Episode.launch(id, async (ask, signal) => marketEndView(await play(req, setup, buyers, ask, signal)));
}
