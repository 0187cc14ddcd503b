/**
 * A bilateral training episode: the policy plays one seat of a negotiation and any Parley agent
 * the other, driven by episode-core.ts; scored by `bilateralReward`. `playEpisode` runs one
 * in-process, `startEpisode` a step at a time for the environment server.
 */
import { z } from 'zod';
import { llmAgent } from '../games/bilateral/llm/agent';
import { bilateral } from '../games/bilateral/protocol';
import { bilateralReward, RewardWeightsSchema } from '../games/bilateral/reward';
import { FirstMoverSchema, opponentOf, PresetSchema, RoleSchema, scenarioAt, type Role } from '../games/bilateral/scenario';
import { episodeDriver, EPISODE_FIELDS, POLICY_FIELDS } from './episode-core';

/** `POST /episodes`: which game, which seat the policy plays, against whom, on which scenario. */
export const EpisodeRequestSchema = z.strictObject({
  game: z.literal('bilateral'),
  /** The seat the policy plays. */
  seat: RoleSchema,
  /** Any Parley agent spec: a strategy (`boulware:beta=0.2`) or a model (`vllm:Qwen/Qwen3-8B`). */
  opponent: z.string().trim().min(1).max(300),
  preset: PresetSchema.default('standard'),
  ...EPISODE_FIELDS,
  /** Who opens; `alternate` gives the seller the scenarios where seed + index is even. */
  first: FirstMoverSchema.default('alternate'),
  ...POLICY_FIELDS,
  /** Reward weights; the defaults where left out. */
  weights: z.strictObject(RewardWeightsSchema.partial().shape).optional(),
});
export type EpisodeRequest = z.infer<typeof EpisodeRequestSchema>;
export type EpisodeInput = z.input<typeof EpisodeRequestSchema>;

/** What is the bilateral game's own in an episode. */
const bilateralEpisodes = episodeDriver({
  schema: EpisodeRequestSchema,
  protocol: bilateral,
  setup: (req) => {
    const opener: Role = req.first === 'alternate' ? ((req.seed + req.index) % 2 === 0 ? 'seller' : 'buyer') : req.first;
    const scenario = scenarioAt({ preset: req.preset, seed: req.seed, firstMover: opener }, req.index);
    return { scenario, jobId: `env-${req.preset}-${req.seed}-${req.index}` };
  },
  seats: (req) => ({ policy: req.seat, opponent: opponentOf(req.seat) }),
  policyAgent: (backend, _role, options) => llmAgent(backend, options),
  reward: (req, scenario, record) => bilateralReward(scenario, record.events, req.seat, req.weights ?? {}),
});

/** One episode played in-process, the policy's answers from a function: the same negotiation as over HTTP, given the same answers. */
export const playEpisode = bilateralEpisodes.play;
/** An episode played a step at a time, for the environment server. */
export const startEpisode = bilateralEpisodes.start;
