/**
 * The episode driver every game's training episodes share: one seat is played by a policy outside
 * Parley (a model being trained), the other by any Parley agent. The policy's seat is the game's
 * own LLM agent over a ChatBackend whose answers come from outside: so the policy is shown exactly
 * the prompt that agent builds, its answer goes through the same decoder, and a malformed answer is
 * an invalid move under the runner's own retry and forfeit rules.
 *
 * A game gives only what is its own (`EpisodeGame`: its request, scenario, seats, model seat and
 * reward); `episodeDriver` makes from it the `play` that runs one in-process with the answers from
 * a function and the `start` that runs one a step at a time for the environment server. Both make
 * the same session from the same request.
 */
import { z } from 'zod';
import { DEFAULT_CONTEXT_WINDOW, type ChatBackend, type ChatMessage, type ChatRequest, type ChatResponse } from '../agents/backends/types';
import type { LlmAgentOptions } from '../agents/llm/seat';
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS, MoveInterfaceSchema } from '../agents/llm/settings';
import type { Protocol } from '../engine/protocol';
import { SeedSchema } from '../engine/rng';
import { Seat, type AgentFactory } from '../engine/seat';
import { runSession, type Agent, type SessionRecord } from '../engine/session';

/** The fields of `POST /episodes` every game takes, after its own (game, seat, opponent, preset): which scenario, and how the policy is asked. */
export const EPISODE_FIELDS = {
  seed: SeedSchema,
  /** How the policy is asked for its moves: the game's move tools, or one JSON object. */
  interface: MoveInterfaceSchema.default('tools'),
  /** Which scenario of the set (preset, seed): 0 unless a trainer walks a set as a tournament does. */
  index: z.int().min(0).max(1_000_000).default(0),
};

/** The fields of `POST /episodes` every game takes about the policy model, before its reward weights. */
export const POLICY_FIELDS = {
  /** The policy's context window in tokens: long transcripts are shortened to fit, as the LLM agent does. */
  contextWindow: z.int().min(2048).max(10_000_000).default(DEFAULT_CONTEXT_WINDOW),
  /** Token limit of one answer (the agent's default when left out); the prompt budget leaves room for it. */
  maxTokens: z.int().min(MIN_MAX_TOKENS).max(MAX_MAX_TOKENS).optional(),
  /** The policy thinks first (`<think>…</think>` is split off its answers). */
  thinking: z.boolean().default(false),
};

/** What the driver reads of any game's request. */
export type EpisodeRequestBase = { opponent: string } & z.infer<z.ZodObject<typeof EPISODE_FIELDS & typeof POLICY_FIELDS>>;

/**
 * What a game gives the driver. `Req` is its parsed request (its `schema` parses `Input`), `Scn`
 * its scenario, `Role` its two seats, `Obs`/`Mv`/`Out` its protocol's observations, moves and
 * outcome, and `Rew` its reward (`total` and weighted `terms`).
 */
export interface EpisodeGame<Req extends EpisodeRequestBase, Input, Scn, State, Role extends string, Obs, Mv, Out, Rew extends EpisodeReward> {
  readonly schema: z.ZodType<Req, Input>;
  readonly protocol: Protocol<Scn, State, Role, Obs, Mv, Out>;
  /** The scenario and the job id its seats are seeded under, from the request alone (the same request, the same session). */
  setup(req: Req): { scenario: Scn; jobId: string };
  /** The seat the policy plays, and the opponent's. */
  seats(req: Req): { policy: Role; opponent: Role };
  /** The game's model seat for `role`, asking `backend` (the policy). */
  policyAgent(backend: ChatBackend, role: Role, options: LlmAgentOptions): Agent<Obs, Mv>;
  reward(req: Req, scenario: Scn, record: SessionRecord<Role, Mv, Out>): Rew;
}

export interface EpisodeReward {
  total: number;
  terms: object;
}

/** An episode played to its end: the session's log and its reward. */
export interface EpisodeResult<Rec, Rew> {
  record: Rec;
  reward: Rew;
}

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

/** The end of an episode: its reward, the reward's weighted terms and the session's outcome, each the game's own. */
export interface EpisodeEnd<Terms extends object = object, Outcome = unknown> {
  done: true;
  reward: number;
  terms: Terms;
  outcome: Outcome;
}

export type EpisodeView = EpisodeTurn | EpisodeEnd;

/** An episode the server holds, with the view its creation answers. */
export interface StartedEpisode {
  episode: Episode;
  view: EpisodeView;
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

export const endView = <Rec extends { outcome: unknown }, Rew extends EpisodeReward>(
  result: EpisodeResult<Rec, Rew>,
): EpisodeEnd<Rew['terms'], Rec['outcome']> => ({
  done: true,
  reward: result.reward.total,
  terms: result.reward.terms,
  outcome: result.record.outcome,
});

/** The opponent's spec was refused by the agent factory: the client's mistake. */
export class OpponentError extends Error {}
/** The session failed by a bug (nothing an agent does makes it throw): the server's fault, the episode over. */
export class EpisodeCrash extends Error {}

/** How the policy's seat asks for an answer: the request waits until a step brings it. */
export type AskPolicy = (request: ChatRequest, signal: AbortSignal) => Promise<ChatResponse>;

/**
 * The episode of `req` made ready: its opponent built by the factory as a tournament builds a seat
 * (a spec it refuses throws an OpponentError), and what plays it given the policy's answers.
 */
function prepare<Req extends EpisodeRequestBase, Input, Scn, State, Role extends string, Obs, Mv, Out, Rew extends EpisodeReward>(
  game: EpisodeGame<Req, Input, Scn, State, Role, Obs, Mv, Out, Rew>,
  req: Req,
  makeAgent: AgentFactory<Role, Agent<Obs, Mv>>,
): (ask: AskPolicy, signal?: AbortSignal) => Promise<EpisodeResult<SessionRecord<Role, Mv, Out>, Rew>> {
  const { scenario, jobId } = game.setup(req);
  const seats = game.seats(req);
  let opponent: Agent<Obs, Mv>;
  try {
    opponent = makeAgent(req.opponent, seats.opponent, new Seat(req.seed, jobId, seats.opponent));
  } catch (e) {
    throw new OpponentError(e instanceof Error ? e.message : String(e));
  }
  const options: LlmAgentOptions = {
    interface: req.interface,
    thinking: req.thinking,
    seed: new Seat(req.seed, jobId, seats.policy).seed,
    // Latency is the trainer's business; a fixed clock keeps the event log the same on every run.
    now: () => 0,
    ...(req.maxTokens !== undefined && { maxTokens: req.maxTokens }),
  };
  return async (ask, signal) => {
    const policy = game.policyAgent(policyBackend(req.contextWindow, ask), seats.policy, options);
    const agents = { [seats.policy]: policy, [seats.opponent]: opponent } as Record<Role, Agent<Obs, Mv>>;
    const record = await runSession(game.protocol, scenario, agents, signal ? { signal } : {});
    return { record, reward: game.reward(req, scenario, record) };
  };
}

/** A game's episodes, driven: `play` runs one in-process, `start` one a step at a time. */
export interface EpisodeDriver<Req, Input, Role extends string, Obs, Mv, Out, Rew> {
  /**
   * One episode played in-process: the policy's answers come from `answer`. The same request gives
   * the same session as the environment server plays over HTTP, given the same answers.
   */
  play(
    input: Input,
    makeAgent: AgentFactory<Role, Agent<Obs, Mv>>,
    answer: (request: ChatRequest) => ChatResponse | Promise<ChatResponse>,
    signal?: AbortSignal,
  ): Promise<EpisodeResult<SessionRecord<Role, Mv, Out>, Rew>>;
  /** Starts an episode played a step at a time, for the environment server, and returns it with its first view. Throws an OpponentError on an opponent the factory refuses. */
  start(id: string, req: Req, makeAgent: AgentFactory<Role, Agent<Obs, Mv>>): Promise<StartedEpisode>;
}

/** The driver of a game's episodes, from what is the game's own (its types inferred from its schema, protocol and reward). */
export function episodeDriver<Req extends EpisodeRequestBase, Input, Scn, State, Role extends string, Obs, Mv, Out, Rew extends EpisodeReward>(
  game: EpisodeGame<Req, Input, Scn, State, Role, Obs, Mv, Out, Rew>,
): EpisodeDriver<Req, Input, Role, Obs, Mv, Out, Rew> {
  return {
    play: async (input, makeAgent, answer, signal) => prepare(game, game.schema.parse(input), makeAgent)(async (r) => answer(r), signal),
    start: (id, req, makeAgent) => {
      const play = prepare(game, req, makeAgent);
      return Episode.launch(id, async (ask, signal) => endView(await play(ask, signal)));
    },
  };
}

type Turn = { kind: 'ask'; request: ChatRequest } | { kind: 'end'; view: EpisodeEnd } | { kind: 'crash'; message: string };

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

  /**
   * Starts any game whose session `play` runs with the policy's answers from `ask` (under the
   * episode's signal) and scores at its end; returns the episode with its first view (the policy's
   * first turn, or the end if it never got one).
   */
  static async launch(id: string, play: (ask: AskPolicy, signal: AbortSignal) => Promise<EpisodeEnd>): Promise<StartedEpisode> {
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
