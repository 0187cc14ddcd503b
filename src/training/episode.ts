/**
 * One training episode: a bilateral negotiation in which one seat is played by a policy outside
 * Parley (a model being trained) and the other by any Parley agent. The policy's seat is the LLM
 * agent itself over a ChatBackend whose answers come from outside: so the policy is shown exactly
 * the prompt the LLM agent builds, its answer goes through the same decoder, and a malformed answer
 * is an invalid move under the runner's own retry and forfeit rules.
 *
 * `playEpisode` runs one in-process with the answers from a function; `Episode` runs one a step at
 * a time for the environment server. Both make the same negotiation from the same request.
 */
import { z } from 'zod';
import type { BilateralRecord, BilateralResult } from '../games/bilateral/events';
import { bilateral } from '../games/bilateral/protocol';
import { bilateralReward, RewardWeightsSchema, type Reward, type RewardTerms } from '../games/bilateral/reward';
import type { BilateralAgentFactory, BilateralAgent } from '../games/bilateral/tournament';
import { deriveSeed, SeedSchema } from '../engine/rng';
import { FirstMoverSchema, opponentOf, PresetSchema, RoleSchema, scenarioAt, type Role, type Scenario } from '../games/bilateral/scenario';
import { runSession } from '../engine/session';
import { DEFAULT_CONTEXT_WINDOW, type ChatBackend, type ChatMessage, type ChatRequest, type ChatResponse } from '../agents/backends/types';
import { llmAgent } from '../games/bilateral/llm/agent';
import { type LlmAgentOptions } from '../agents/llm/seat';
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS, MoveInterfaceSchema } from '../agents/llm/settings';
import type { MarketResult } from '../games/market/events';
import type { MarketRewardTerms } from '../games/market/reward';
import { deeperThan } from './json-depth';
import { Seat } from '../engine/seat';

/** `POST /episodes`: which game, which seat the policy plays, against whom, on which scenario. */
export const EpisodeRequestSchema = z.strictObject({
  game: z.literal('bilateral'),
  /** The seat the policy plays. */
  seat: RoleSchema,
  /** Any Parley agent spec: a strategy (`boulware:beta=0.2`) or a model (`vllm:Qwen/Qwen3-8B`). */
  opponent: z.string().trim().min(1).max(300),
  preset: PresetSchema.default('standard'),
  seed: SeedSchema,
  /** How the policy is asked for its moves: the four move tools, or one JSON object. */
  interface: MoveInterfaceSchema.default('tools'),
  /** Which scenario of the set (preset, seed): 0 unless a trainer walks a set as a tournament does. */
  index: z.int().min(0).max(1_000_000).default(0),
  /** Who opens; `alternate` gives the seller the scenarios where seed + index is even. */
  first: FirstMoverSchema.default('alternate'),
  /** The policy's context window in tokens: long transcripts are shortened to fit, as the LLM agent does. */
  contextWindow: z.int().min(2048).max(10_000_000).default(DEFAULT_CONTEXT_WINDOW),
  /** Token limit of one answer (the agent's default when left out); the prompt budget leaves room for it. */
  maxTokens: z.int().min(MIN_MAX_TOKENS).max(MAX_MAX_TOKENS).optional(),
  /** The policy thinks first (`<think>…</think>` is split off its answers). */
  thinking: z.boolean().default(false),
  /** Reward weights; the defaults where left out. */
  weights: z.strictObject(RewardWeightsSchema.partial().shape).optional(),
});
export type EpisodeRequest = z.infer<typeof EpisodeRequestSchema>;
export type EpisodeInput = z.input<typeof EpisodeRequestSchema>;

/** A tool as OpenAI-compatible servers take it. */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

/** What the policy is asked: the exact messages, and the tools or the JSON Schema its answer must fit. */
export interface EpisodeTurn {
  done: false;
  messages: ChatMessage[];
  tools?: OpenAiTool[];
  response_format?: { type: 'json_schema'; json_schema: { name: string; schema: object } };
}

export interface EpisodeEnd {
  done: true;
  reward: number;
  /** The reward's weighted terms: the bilateral reward's, or the market's (market-episode.ts). */
  terms: RewardTerms | MarketRewardTerms;
  outcome: BilateralResult | MarketResult;
}

export type EpisodeView = EpisodeTurn | EpisodeEnd;

/** Everything an episode is made from, derived from its request alone (so the same request makes the same negotiation). */
export interface EpisodeSetup {
  scenario: Scenario;
  negotiationId: string;
  seat: Role;
  seatSeed: (role: Role) => number;
  policyOptions: LlmAgentOptions;
}

export function episodeSetup(req: EpisodeRequest): EpisodeSetup {
  const opener: Role = req.first === 'alternate' ? ((req.seed + req.index) % 2 === 0 ? 'seller' : 'buyer') : req.first;
  const scenario = scenarioAt({ preset: req.preset, seed: req.seed, firstMover: opener }, req.index);
  const negotiationId = `env-${req.preset}-${req.seed}-${req.index}`;
  const seatSeed = (role: Role) => deriveSeed(req.seed, negotiationId, role);
  const policyOptions: LlmAgentOptions = {
    interface: req.interface,
    thinking: req.thinking,
    seed: seatSeed(req.seat),
    // Latency is the trainer's business; a fixed clock keeps the event log the same on every run.
    now: () => 0,
    ...(req.maxTokens !== undefined && { maxTokens: req.maxTokens }),
  };
  return { scenario, negotiationId, seat: req.seat, seatSeed, policyOptions };
}

/** The opponent, built by the factory as a tournament builds a seat. Throws on a spec the factory refuses. */
export function opponentAgent(req: EpisodeRequest, setup: EpisodeSetup, makeAgent: BilateralAgentFactory): BilateralAgent {
  const role = opponentOf(req.seat);
  return makeAgent(req.opponent, role, new Seat(req.seed, setup.negotiationId, role));
}

/** A backend whose answers come from `answer`: the policy's side of an episode. */
export function policyBackend(contextWindow: number, answer: (request: ChatRequest, signal: AbortSignal) => Promise<ChatResponse>): ChatBackend {
  return {
    name: 'env',
    model: 'policy',
    capabilities: { jsonSchema: true, tools: true, thinking: true },
    contextWindow,
    complete: answer,
  };
}

export const toOpenAiTools = (request: ChatRequest): OpenAiTool[] | undefined =>
  request.tools?.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

/** The turn as the policy is shown it. */
export function turnView(request: ChatRequest): EpisodeTurn {
  const view: EpisodeTurn = { done: false, messages: request.messages.map((m) => ({ role: m.role, content: m.content })) };
  const tools = toOpenAiTools(request);
  if (tools !== undefined) view.tools = tools;
  const format = request.responseFormat;
  if (format !== undefined) view.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } };
  return view;
}

export interface EpisodeResult {
  record: BilateralRecord;
  reward: Reward;
}

export function endView(result: EpisodeResult): EpisodeEnd {
  return { done: true, reward: result.reward.total, terms: result.reward.terms, outcome: result.record.outcome };
}

const scoreOf = (req: EpisodeRequest, setup: EpisodeSetup, record: BilateralRecord): EpisodeResult => ({
  record,
  reward: bilateralReward(setup.scenario, record.events, req.seat, req.weights ?? {}),
});

/**
 * One episode played in-process: the policy's answers come from `answer`. The same request gives
 * the same negotiation as the environment server plays over HTTP, given the same answers.
 */
export async function playEpisode(
  input: EpisodeRequest,
  makeAgent: BilateralAgentFactory,
  answer: (request: ChatRequest) => ChatResponse | Promise<ChatResponse>,
  signal?: AbortSignal,
): Promise<EpisodeResult> {
  const req = EpisodeRequestSchema.parse(input);
  const setup = episodeSetup(req);
  const policy = llmAgent(
    policyBackend(req.contextWindow, async (r) => answer(r)),
    setup.policyOptions,
  );
  const agents = { [req.seat]: policy, [opponentOf(req.seat)]: opponentAgent(req, setup, makeAgent) } as Record<Role, BilateralAgent>;
  const record = await runSession(bilateral, setup.scenario, agents, signal ? { signal } : {});
  return scoreOf(req, setup, record);
}

type Turn = { kind: 'ask'; request: ChatRequest } | { kind: 'end'; view: EpisodeEnd } | { kind: 'crash'; message: string };

/** How the policy's seat asks for an answer: the request waits until a step brings it. */
export type AskPolicy = (request: ChatRequest, signal: AbortSignal) => Promise<ChatResponse>;

/** The opponent's spec was refused by the agent factory: the client's mistake. */
export class OpponentError extends Error {}
/** The session failed by a bug (nothing an agent does makes it throw): the server's fault, the episode over. */
export class EpisodeCrash extends Error {}

export type EpisodeState = 'waiting' | 'busy' | 'done';

/**
 * An episode played a step at a time. The session runs on its own; when it asks the policy, the
 * request waits here until `step` brings the answer. `cancel` ends it (as cancelled).
 */
export class Episode {
  private readonly controller = new AbortController();
  private readonly queue: Turn[] = [];
  private waiter: ((turn: Turn) => void) | null = null;
  private pendingAnswer: { resolve: (r: ChatResponse) => void } | null = null;
  private stateNow: EpisodeState = 'busy';

  private constructor(readonly id: string) {}

  /** Starts the episode and returns it with its first view (the policy's first turn, or the end if it never got one). Throws on an opponent the factory refuses. */
  static start(id: string, req: EpisodeRequest, makeAgent: BilateralAgentFactory): Promise<{ episode: Episode; view: EpisodeView }> {
    const setup = episodeSetup(req);
    let opponent: BilateralAgent;
    try {
      opponent = opponentAgent(req, setup, makeAgent);
    } catch (e) {
      throw new OpponentError(e instanceof Error ? e.message : String(e));
    }
    return Episode.launch(id, async (ask, signal) => {
      const policy = llmAgent(policyBackend(req.contextWindow, ask), setup.policyOptions);
      const agents = { [req.seat]: policy, [opponentOf(req.seat)]: opponent } as Record<Role, BilateralAgent>;
      return endView(scoreOf(req, setup, await runSession(bilateral, setup.scenario, agents, { signal })));
    });
  }

  /**
   * Starts any game whose session `play` runs with the policy's answers from `ask` (under the
   * episode's signal) and scores at its end; returns the episode with its first view.
   */
  static async launch(id: string, play: (ask: AskPolicy, signal: AbortSignal) => Promise<EpisodeEnd>): Promise<{ episode: Episode; view: EpisodeView }> {
    const episode = new Episode(id);
    const crashed = (e: unknown) => episode.push({ kind: 'crash', message: e instanceof Error ? e.message : String(e) });
    try {
      play((request, signal) => episode.ask(request, signal), episode.controller.signal).then((view) => episode.push({ kind: 'end', view }), crashed);
    } catch (e) {
      crashed(e);
    }
    return { episode, view: await episode.next() };
  }

  get state(): EpisodeState {
    return this.stateNow;
  }

  /** Gives the policy's answer and waits for its next turn or the end. Only while `state` is 'waiting'. */
  async step(answer: ChatResponse): Promise<EpisodeView> {
    if (this.stateNow !== 'waiting' || this.pendingAnswer === null) throw new Error(`step in state ${this.stateNow}`);
    this.stateNow = 'busy';
    const pending = this.pendingAnswer;
    this.pendingAnswer = null;
    pending.resolve(answer);
    return this.next();
  }

  cancel(): void {
    this.controller.abort(new Error('the episode was closed'));
  }

  private ask(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pendingAnswer = {
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      this.push({ kind: 'ask', request });
    });
  }

  private push(turn: Turn): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter(turn);
    } else this.queue.push(turn);
  }

  private async next(): Promise<EpisodeView> {
    const turn = this.queue.shift() ?? (await new Promise<Turn>((resolve) => (this.waiter = resolve)));
    if (turn.kind === 'crash') {
      this.stateNow = 'done';
      throw new EpisodeCrash(`the episode failed: ${turn.message}`);
    }
    if (turn.kind === 'ask') {
      this.stateNow = 'waiting';
      return turnView(turn.request);
    }
    this.stateNow = 'done';
    return turn.view;
  }
}

/** A step's text, its completion or one tool call's arguments, is at most this many characters (the raw answer a log keeps). */
export const MAX_ANSWER_CHARS = 200_000;
/** Arguments sent as an object may nest this deep; a move's are one level. */
const MAX_ARGUMENTS_DEPTH = 32;

/** A tool call as the decoder reads it, from OpenAI's shape (`{id, type, function: {name, arguments}}`) or a bare `{name, arguments}`. */
function toolCallOf(call: Record<string, unknown>): { name: string; arguments: unknown } {
  const fn = typeof call.function === 'object' && call.function !== null ? (call.function as Record<string, unknown>) : call;
  return { name: typeof fn.name === 'string' ? fn.name : '', arguments: fn.arguments };
}

/** Arguments as text: a string as it came, an object as JSON (checked for depth first by the schema). */
const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

/** The policy's answer from a step's body: its raw text, its tool calls, or both. */
export const StepRequestSchema = z
  .strictObject({
    completion: z.string().max(MAX_ANSWER_CHARS).optional(),
    /** OpenAI's shape or a bare `{name, arguments}`. */
    tool_calls: z
      .array(z.record(z.string(), z.unknown()))
      .max(32)
      .superRefine((calls, ctx) =>
        calls.forEach((call, i) => {
          const args = toolCallOf(call).arguments;
          if (typeof args === 'object' && args !== null && deeperThan(args, MAX_ARGUMENTS_DEPTH))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'arguments'],
              message: `nested over ${MAX_ARGUMENTS_DEPTH} deep; send the model's arguments as the string it wrote`,
            });
          else if (argumentsText(args).length > MAX_ANSWER_CHARS)
            ctx.addIssue({ code: 'custom', path: [i, 'arguments'], message: `over ${MAX_ANSWER_CHARS.toLocaleString('en-US')} characters` });
        }),
      )
      .optional(),
    /** `length` when the answer stopped at the token limit: an unfinished answer, refused like the LLM agent refuses one. */
    finish_reason: z.string().max(100).optional(),
  })
  .refine((s) => s.completion !== undefined || s.tool_calls !== undefined, { message: 'a step needs "completion" or "tool_calls"' });
export type StepRequest = z.infer<typeof StepRequestSchema>;

/** The answer as a backend would have returned it. Whatever the tool calls hold is left to the decoder to refuse. */
export function stepAnswer(step: StepRequest): ChatResponse {
  const response: ChatResponse = { text: step.completion ?? '', tokensIn: 0, tokensOut: 0 };
  if (step.tool_calls !== undefined)
    response.toolCalls = step.tool_calls.map((call) => {
      const { name, arguments: args } = toolCallOf(call);
      return { name, arguments: argumentsText(args) };
    });
  if (step.finish_reason === 'length') response.truncated = true;
  return response;
}
