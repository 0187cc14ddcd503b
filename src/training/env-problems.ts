/**
 * The environment server's refusals, by code, for every front end it serves (its own episode
 * routes, OpenEnv's HTTP routes and OpenEnv's WebSocket session): the body is `{error: {code,
 * message}}` with the message derived here, and the HTTP status is ENV_STATUS's.
 */
import { z } from 'zod';
import { problems, type CodeOf, type DataArgs, type ProblemOf } from '../engine/errors';

export const ENV_PROBLEMS = {
  'unknown-episode': (d: { id: string; idleMs: number }) => `no episode ${d.id} (it never existed, was closed, or expired after ${d.idleMs} ms idle)`,
  /** `game`: the value sent, as JSON text. */
  'unknown-game': (d: { game: string }) => `"game" must be "bilateral" or "market", not ${d.game}`,
  /** A spec the server cannot play; `reason` is the spec parser's or the agent factory's. */
  'bad-opponent': (d: { reason: string }) => `opponent: ${d.reason}`,
  /** A model opponent whose key the server was not given: names the key's variable, never a key. */
  'missing-key': (d: { opponent: string; variable: string }) =>
    `opponent: ${d.opponent} needs a key: start the server with ${d.variable} set (or with --base-url for your own server)`,
  full: (d: { max: number }) => `the server holds ${d.max} episodes; finish or DELETE some, or start it with a larger --max-episodes`,
  'episode-over': (d: { id: string }) => `episode ${d.id} is over; start another`,
  'step-in-progress': (d: { id: string }) => `episode ${d.id} is still answering the previous step`,
  /**
   * A step that names no episode: OpenEnv's `POST /step` without `episode_id` (the server holds many
   * episodes at once), or a WebSocket `step` before any `reset`.
   */
  'no-episode': (d: { via: 'http' | 'ws' }) =>
    d.via === 'http'
      ? 'POST /step needs "episode_id": the id that POST /reset answered as observation.episode_id'
      : 'no episode in this session: send {"type": "reset"} first',
  /** A WebSocket message whose `type` is none of reset, step, state and close. */
  'unknown-message': (d: { type: string }) => `unknown message type ${d.type}; send "reset", "step", "state" or "close"`,
  'bad-url': () => 'the request URL does not parse',
  /** From a web page (an `Origin`), or with a Host that names another server (`host`: the one to name). */
  forbidden: (d: { host?: string }) =>
    d.host === undefined ? 'requests from web pages are refused; the environment server is for trainers' : `the Host header must name this server (${d.host})`,
  /** `allowed`: the route with its method, as the client should send it. */
  method: (d: { allowed: string }) => d.allowed,
  'no-route': (d: { method: string; path: string }) =>
    `no route ${d.method} ${d.path}; routes: GET /health, POST /episodes, POST /episodes/{id}/step, DELETE /episodes/{id}; ` +
    `OpenEnv's POST /reset, POST /step, GET /state, GET /schema, GET /metadata and the WebSocket /ws`,
  /** `bytes`: the declared length, when the request said it; else the body ran past the limit while read. */
  'too-large': (d: { bytes?: number; limit: number }) =>
    d.bytes === undefined ? `the body is over ${d.limit} bytes` : `the body is ${d.bytes} bytes; the limit is ${d.limit}`,
  'bad-json': (d: { error: string }) => `the body is not JSON (${d.error})`,
  'too-deep': (d: { depth: number }) => `the body nests arrays and objects over ${d.depth} deep (a model's own text goes in a string)`,
  /** An empty body, one that is no object, or the schema's first issue: where (`a.b`, or empty for the body itself) and zod's message. */
  'bad-body': (d: { body: 'empty' } | { body: 'not-an-object' } | { body: 'invalid'; where: string; issue: string }) =>
    d.body === 'empty'
      ? 'the body is empty; send a JSON object'
      : d.body === 'not-an-object'
        ? 'the body must be a JSON object'
        : `${d.where === '' ? '' : `${d.where}: `}${d.issue}`,
  /** A bug: the request fails, the server carries on. */
  internal: (d: { error: string }) => d.error,
} as const;

export type EnvProblem = ProblemOf<typeof ENV_PROBLEMS>;
export type EnvCode = EnvProblem['code'];
export const envProblem = problems(ENV_PROBLEMS);

/** The HTTP status of each refusal: 4xx for the client's, 503 for a full server, 500 for a bug. */
export const ENV_STATUS: Record<EnvCode, number> = {
  'unknown-episode': 404,
  'unknown-game': 400,
  'bad-opponent': 400,
  'missing-key': 400,
  full: 503,
  'episode-over': 409,
  'step-in-progress': 409,
  'no-episode': 400,
  'unknown-message': 400,
  'bad-url': 400,
  forbidden: 403,
  method: 405,
  'no-route': 404,
  'too-large': 413,
  'bad-json': 400,
  'too-deep': 400,
  'bad-body': 400,
  internal: 500,
};

/** Why an opponent is refused before its episode is made. */
export type OpponentRefusal = Extract<EnvProblem, { code: 'bad-opponent' | 'missing-key' }>;

/** A refusal on its way to the client. */
export class EnvError extends Error {
  constructor(readonly problem: EnvProblem) {
    super(problem.message);
  }
}

export const refuse = <C extends CodeOf<typeof ENV_PROBLEMS>>(code: C, ...data: DataArgs<typeof ENV_PROBLEMS, C>): EnvError =>
  new EnvError(envProblem(code, ...data) as EnvProblem);

/** The refusal an error stands for: its own problem, or `internal` for a bug. */
export const problemOf = (e: unknown): EnvProblem =>
  e instanceof EnvError ? e.problem : (envProblem('internal', { error: e instanceof Error ? e.message : String(e) }) as EnvProblem);

export const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The body through its schema, or a `bad-body` naming the first problem and where. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (!isRecord(body)) throw refuse('bad-body', { body: 'not-an-object' });
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw refuse('bad-body', { body: 'invalid', where: issue?.path.map(String).join('.') ?? '', issue: issue?.message ?? 'invalid' });
}
