/**
 * OpenEnv's protocol, spoken beside the server's own episode routes so that OpenEnv's client (and
 * anything written for OpenEnv's servers) drives Parley with no glue. Followed from OpenEnv's own
 * server and client at meta-pytorch/OpenEnv commit 685de411e5f77286b0fd94798d42c4467cf8a1bc:
 * src/openenv/core/env_server/http_server.py (the routes and the /ws loop), types.py (ResetRequest,
 * StepRequest, the responses, State, the WS messages and WSErrorCode), serialization.py
 * (`{observation, reward, done}`) and src/openenv/core/env_client.py (what the client sends and reads).
 *
 *   POST /reset  {seed?, episode_id?, …the episode request}   → {observation, reward: null, done}
 *   POST /step   {action: {completion | tool_calls, finish_reason?, metadata?}, episode_id, timeout_s?, request_id?}
 *                                                            → {observation, reward, done}
 *   GET  /state?episode_id=ID                                 → {episode_id, step_count, …}
 *   GET  /schema → {action, observation, state} (JSON Schemas); GET /metadata → {name, description}
 *   WS   /ws     {"type": "reset", "data": {…}} | {"type": "step", "data": ACTION} | {"type": "state"} | {"type": "close"}
 *                → {"type": "observation", "data": {observation, reward, done}} | {"type": "state", "data": STATE}
 *                | {"type": "error", "data": {message, code, error: {code, message}}}
 *
 * One difference, since Parley holds many episodes at once: OpenEnv's HTTP routes make a fresh
 * environment per request, so its HTTP /step names no episode; here `episode_id` (ResetRequest's own
 * field, and StepRequest allows extra fields) names the one /reset started. A WebSocket session plays
 * one episode at a time, as OpenEnv's does.
 */
import { z } from 'zod';
import { BilateralResultSchema } from '../games/bilateral/events';
import { MarketResultSchema } from '../games/market/events';
import { SeedSchema } from '../engine/rng';
import { StepRequestSchema } from './step-request';
import { deeperThan } from './json-depth';
import { endingOf, NOT_ENDED } from './ending';
import { EpisodeIdSchema, type EpisodeTable, type GymView, type Held } from './episode-table';
import { isRecord, parseBody, problemOf, refuse, type EnvCode, type EnvProblem } from './env-problems';

/** OpenEnv's StepRequest `action` for Parley: the policy's answer, as the server's own step route takes it, and OpenEnv's `metadata`. */
export const ActionSchema = z
  .strictObject({ ...StepRequestSchema.shape, metadata: z.record(z.string(), z.unknown()).optional() })
  .refine((s) => s.completion !== undefined || s.tool_calls !== undefined, { message: 'an action needs "completion" or "tool_calls"' });

/** OpenEnv's StepRequest: extra fields are allowed (and ignored) as OpenEnv allows them. */
export const HttpStepSchema = z.looseObject({
  action: z.record(z.string(), z.unknown()),
  episode_id: EpisodeIdSchema.optional(),
  timeout_s: z.number().positive().optional(),
  request_id: z.string().max(255).optional(),
});

const MessageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
const ToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});

/** What `observation` holds: the policy's next prompt, or the episode's end. */
export const ObservationSchema = z.object({
  episode_id: z.string(),
  game: z.enum(['bilateral', 'market']),
  seat: z.string(),
  seed: SeedSchema,
  step_count: z.int().min(0),
  /** Gymnasium's split of `done`: the game's own end, or one from outside it (the turn limit, the market's budget, a cancel). */
  terminated: z.boolean(),
  truncated: z.boolean(),
  /** The policy's prompt for its next move (not at the end). */
  messages: z.array(MessageSchema).optional(),
  /** The move tools (the `tools` interface), on the first observation only: they never change. */
  tools: z.array(ToolSchema).optional(),
  /** The move's JSON Schema (the `json` interface), on the first observation only. */
  response_format: z
    .object({ type: z.literal('json_schema'), json_schema: z.object({ name: z.string(), schema: z.record(z.string(), z.unknown()) }) })
    .optional(),
  /** At the end: the reward's weighted terms and how the game ended. */
  terms: z.record(z.string(), z.number()).optional(),
  outcome: z.union([BilateralResultSchema, MarketResultSchema]).optional(),
});
export type Observation = z.infer<typeof ObservationSchema>;

/** OpenEnv's ResetResponse and StepResponse: `reward` is null at a reset, 0 on each step before the end, the episode's reward at it. */
export const ObservationResponseSchema = z.object({ observation: ObservationSchema, reward: z.number().nullable(), done: z.boolean() });
export type ObservationResponse = z.infer<typeof ObservationResponseSchema>;

/** OpenEnv's State (`episode_id` null and `step_count` 0 before any reset), with the episode's facts. */
export const StateSchema = z.looseObject({
  episode_id: z.string().nullable(),
  step_count: z.int().min(0),
  game: z.enum(['bilateral', 'market']).optional(),
  seat: z.string().optional(),
  seed: SeedSchema.optional(),
  done: z.boolean().optional(),
  terminated: z.boolean().optional(),
  truncated: z.boolean().optional(),
  reward: z.number().optional(),
  outcome: z.union([BilateralResultSchema, MarketResultSchema]).optional(),
});
export type State = z.infer<typeof StateSchema>;

export const EMPTY_STATE: State = { episode_id: null, step_count: 0 };

let schemas: object | null = null;
/** `GET /schema`: OpenEnv's SchemaResponse, from the schemas the server reads and answers with. */
export const schemaResponse = (): object =>
  (schemas ??= {
    action: z.toJSONSchema(ActionSchema, { io: 'input', unrepresentable: 'any' }),
    observation: z.toJSONSchema(ObservationSchema, { unrepresentable: 'any' }),
    state: z.toJSONSchema(StateSchema, { unrepresentable: 'any' }),
  });

/** `GET /metadata`: OpenEnv's EnvironmentMetadata. */
export const METADATA = {
  name: 'parley',
  description:
    'Negotiation episodes for training language models: the policy plays one seat of a one-on-one bargaining game (or the seller of a market) ' +
    'against a scripted strategy or a model, is shown the exact prompts, answers with tool calls or JSON, and is scored at the end.',
} as const;

/** The view as OpenEnv answers it. */
export function observationOf(held: Held, view: GymView, atReset: boolean): ObservationResponse {
  const { done, terminated, truncated } = view;
  const observation: Observation = {
    episode_id: held.id,
    game: held.game,
    seat: held.seat,
    seed: held.seed,
    step_count: held.steps,
    terminated,
    truncated,
  };
  if (view.done) {
    observation.terms = { ...view.terms };
    observation.outcome = view.outcome;
  } else {
    observation.messages = view.messages;
    if (view.tools !== undefined) observation.tools = view.tools as Observation['tools'];
    if (view.response_format !== undefined) observation.response_format = view.response_format as Observation['response_format'];
  }
  return { observation, reward: view.done ? view.reward : atReset ? null : 0, done };
}

export function stateOf(held: Held): State {
  const done = held.episode.state === 'done';
  // An episode that failed by a bug is over with no outcome: cut short.
  const ending = held.end !== null ? endingOf(held.end.outcome) : done ? { terminated: false, truncated: true } : NOT_ENDED;
  const state: State = { episode_id: held.id, step_count: held.steps, game: held.game, seat: held.seat, seed: held.seed, done, ...ending };
  if (held.end !== null) Object.assign(state, { reward: held.end.reward, outcome: held.end.outcome });
  return state;
}

/** Splits a reset's body: OpenEnv's `episode_id`, and the episode request (an empty body is `{}`). */
export function resetRequest(body: unknown): { id: string | undefined; request: Record<string, unknown> } {
  if (body === undefined) return { id: undefined, request: {} };
  if (!isRecord(body)) throw refuse('bad-body', { body: 'not-an-object' });
  const { episode_id, ...request } = body;
  if (episode_id === undefined || episode_id === null) return { id: undefined, request };
  return { id: parseBody(z.object({ episode_id: EpisodeIdSchema }), { episode_id }).episode_id, request };
}

export async function reset(table: EpisodeTable, body: unknown): Promise<ObservationResponse> {
  const { id, request } = resetRequest(body);
  const { held, view } = await table.create(request, id);
  return observationOf(held, view, true);
}

export async function step(table: EpisodeTable, id: string, action: unknown): Promise<ObservationResponse> {
  const view = await table.step(id, action, ActionSchema);
  return observationOf(table.get(id), view, false);
}

/** OpenEnv's WSErrorCode for each refusal. */
export const WS_ERROR_CODE: Record<EnvCode, 'INVALID_JSON' | 'UNKNOWN_TYPE' | 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'CAPACITY_REACHED'> = {
  'bad-json': 'INVALID_JSON',
  'unknown-message': 'UNKNOWN_TYPE',
  'bad-body': 'VALIDATION_ERROR',
  'too-deep': 'VALIDATION_ERROR',
  'too-large': 'VALIDATION_ERROR',
  'unknown-game': 'VALIDATION_ERROR',
  'bad-opponent': 'VALIDATION_ERROR',
  'missing-key': 'VALIDATION_ERROR',
  'bad-url': 'VALIDATION_ERROR',
  full: 'CAPACITY_REACHED',
  'unknown-episode': 'EXECUTION_ERROR',
  'episode-over': 'EXECUTION_ERROR',
  'step-in-progress': 'EXECUTION_ERROR',
  'no-episode': 'EXECUTION_ERROR',
  forbidden: 'EXECUTION_ERROR',
  method: 'EXECUTION_ERROR',
  'no-route': 'EXECUTION_ERROR',
  internal: 'EXECUTION_ERROR',
};

/** A message of OpenEnv's WebSocket protocol, as its client sends them (OpenEnv refuses extra fields). */
const WsMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('reset'), data: z.record(z.string(), z.unknown()).default({}) }),
  z.strictObject({ type: z.literal('step'), data: z.record(z.string(), z.unknown()) }),
  z.strictObject({ type: z.literal('state') }),
  z.strictObject({ type: z.literal('close') }),
]);
const WS_TYPES: ReadonlySet<unknown> = new Set(WsMessageSchema.options.map((o) => o.shape.type.value));

export type WsReply =
  | { type: 'observation'; data: ObservationResponse }
  | { type: 'state'; data: State }
  | { type: 'error'; data: { message: string; code: (typeof WS_ERROR_CODE)[EnvCode]; error: { code: EnvCode; message: string } } };

export const wsError = (problem: EnvProblem): WsReply => ({
  type: 'error',
  data: { message: problem.message, code: WS_ERROR_CODE[problem.code], error: { code: problem.code, message: problem.message } },
});

/**
 * One WebSocket session: at most one episode at a time (a reset closes the one before), its
 * messages answered in the order they came. `null` for `close`: the caller closes the socket.
 */
export class OpenEnvSession {
  private current: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly table: EpisodeTable,
    private readonly maxDepth: number,
  ) {}

  /** Answers one text message, after every message before it. */
  handle(text: string): Promise<WsReply | null> {
    const answer = this.queue.then(() => this.answer(text));
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  /** The socket is gone: its episode goes too. */
  dispose(): void {
    if (this.current !== null) this.table.close(this.current);
    this.current = null;
  }

  private async answer(text: string): Promise<WsReply | null> {
    try {
      let message: unknown;
      try {
        message = JSON.parse(text) as unknown;
      } catch (e) {
        throw refuse('bad-json', { error: (e as Error).message.slice(0, 200) });
      }
      if (deeperThan(message, this.maxDepth)) throw refuse('too-deep', { depth: this.maxDepth });
      const type = isRecord(message) ? message.type : undefined;
      if (!WS_TYPES.has(type)) throw refuse('unknown-message', { type: String(JSON.stringify(type ?? null)).slice(0, 60) });
      const msg = parseBody(WsMessageSchema, message);
      switch (msg.type) {
        case 'reset': {
          const data = await reset(this.table, msg.data);
          const before = this.current;
          this.current = data.observation.episode_id;
          if (before !== null && before !== this.current) this.table.close(before);
          return { type: 'observation', data };
        }
        case 'step':
          if (this.current === null) throw refuse('no-episode', { via: 'ws' });
          return { type: 'observation', data: await step(this.table, this.current, msg.data) };
        case 'state':
          return { type: 'state', data: this.current === null ? EMPTY_STATE : stateOf(this.table.get(this.current)) };
        case 'close':
          this.dispose();
          return null;
      }
    } catch (e) {
      return wsError(problemOf(e));
    }
  }
}
