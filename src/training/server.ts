/**
 * The environment server for trainers: Node `http`, JSON in and out, on 127.0.0.1 unless told
 * otherwise.
 *
 *   GET  /health               → {ok, games, episodes: {open, done}, max}
 *   POST /episodes             {game, seat, opponent, preset, seed, interface, …} → {id, messages, tools?, done: false}
 *                              (game "bilateral": episode.ts; game "market", the policy selling: market-episode.ts;
 *                              both driven by episode-core.ts)
 *   POST /episodes/{id}/step   {completion} or {tool_calls} → {messages, done: false} … {done: true, reward, terms, outcome}
 *   DELETE /episodes/{id}      → {id, closed: true}
 *
 * Every refusal is a 4xx (5xx only for a full server or a bug) with `{error: {code, message}}`;
 * nothing a client sends can crash the server. Requests from web pages (with an `Origin`) are
 * refused, and on loopback so is a Host that names another server. Episodes idle longer than `idleMs` are closed and
 * forgotten, finished ones included (a step after the end is a 409 until then, a 404 after).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { BilateralAgentFactory } from '../games/bilateral/tournament';
import { problems, type CodeOf, type DataArgs, type ProblemOf } from '../engine/errors';
import { OpponentError, type Episode, type EpisodeView, type StartedEpisode } from './episode-core';
import { StepRequestSchema, stepAnswer } from './step-request';
import { EpisodeRequestSchema, startEpisode } from './episode';
import type { MarketAgentFactory } from '../games/market/tournament';
import { makeMarketAgent } from '../games/market/specs';
import { MarketEpisodeRequestSchema, startMarketEpisode } from './market-episode';
import { deeperThan } from './json-depth';

export interface EnvServerOptions {
  /** Builds each episode's opponent from its spec (the registry's factory, with the CLI's remote settings). */
  makeAgent: BilateralAgentFactory;
  /** Builds a market episode's buyers from their spec (default: scripted strategies, and models at their providers without keys). */
  makeMarketAgent?: MarketAgentFactory;
  /** Default 127.0.0.1: the server answers on loopback alone unless told otherwise. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** An episode untouched this long is closed and forgotten (default 10 minutes). */
  idleMs?: number;
  /** Episodes held at once, finished ones included (default 4096). */
  maxEpisodes?: number;
  /** Milliseconds, for idleness (default Date.now); tests pass their own and call `expireIdle`. */
  now?: () => number;
  /** Checks for idle episodes this often (default: a tenth of idleMs, between 1 s and 60 s); 0 never (tests). */
  sweepMs?: number;
  /**
   * Checks an episode's opponent (the bilateral opponent, the market's buyers) before the episode is
   * made, so nothing is asked of a provider that cannot answer: why to refuse it, or null.
   */
  checkOpponent?: (spec: string, game: EnvGame) => OpponentRefusal | null;
}

export type EnvGame = 'bilateral' | 'market';

/** The server's limits, checked by `startEnvServer` and read by serve-env's flags and their help. */
export const EnvServerLimitsSchema = z.object({
  /** 0: any free port. */
  port: z.int().min(0).max(65535),
  idleMs: z
    .int()
    .min(1000)
    .max(24 * 3_600_000),
  maxEpisodes: z.int().min(1).max(1_000_000),
});

/**
 * Every refusal the server answers, by code: the body is `{error: {code, message}}` with the
 * message derived here, and the status is ENV_STATUS's.
 */
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
  'bad-url': () => 'the request URL does not parse',
  /** From a web page (an `Origin`), or with a Host that names another server (`host`: the one to name). */
  forbidden: (d: { host?: string }) =>
    d.host === undefined ? 'requests from web pages are refused; the environment server is for trainers' : `the Host header must name this server (${d.host})`,
  /** `allowed`: the route with its method, as the client should send it. */
  method: (d: { allowed: string }) => d.allowed,
  'no-route': (d: { method: string; path: string }) =>
    `no route ${d.method} ${d.path}; routes: GET /health, POST /episodes, POST /episodes/{id}/step, DELETE /episodes/{id}`,
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
export const envProblem = problems(ENV_PROBLEMS);

/** The HTTP status of each refusal: 4xx for the client's, 503 for a full server, 500 for a bug. */
const ENV_STATUS: Record<EnvProblem['code'], number> = {
  'unknown-episode': 404,
  'unknown-game': 400,
  'bad-opponent': 400,
  'missing-key': 400,
  full: 503,
  'episode-over': 409,
  'step-in-progress': 409,
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

export interface EnvServer {
  /** e.g. http://127.0.0.1:8765 */
  url: string;
  host: string;
  port: number;
  /** Episodes held now. */
  readonly size: number;
  /** Closes every episode idle past idleMs; returns how many. */
  expireIdle(): number;
  close(): Promise<void>;
}

export const DEFAULT_IDLE_MS = 10 * 60_000;
export const DEFAULT_MAX_EPISODES = 4096;
/** Request bodies above this are refused unread (a completion is at most 200,000 characters). */
const MAX_BODY_BYTES = 1 << 20;
/**
 * Bodies that nest arrays and objects deeper than this are refused before any schema reads them: a
 * request is at most six deep (tool calls with their arguments as an object), and what a model
 * wrote, however deep, arrives as a string.
 */
export const MAX_BODY_DEPTH = 64;

/** A refusal on its way to the client. */
class HttpError extends Error {
  constructor(readonly problem: EnvProblem) {
    super(problem.message);
  }
}
const refuse = <C extends CodeOf<typeof ENV_PROBLEMS>>(code: C, ...data: DataArgs<typeof ENV_PROBLEMS, C>): HttpError =>
  new HttpError(envProblem(code, ...data) as EnvProblem);

interface Held {
  episode: Episode;
  lastActive: number;
}

/** Addresses that answer this machine alone. */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1']);

const EPISODE_PATH = /^\/episodes\/([A-Za-z0-9-]{1,100})(\/step)?$/;

export async function startEnvServer(opts: EnvServerOptions): Promise<EnvServer> {
  const host = opts.host ?? '127.0.0.1';
  const {
    port: portAsked,
    idleMs,
    maxEpisodes,
  } = EnvServerLimitsSchema.parse({
    port: opts.port ?? 0,
    idleMs: opts.idleMs ?? DEFAULT_IDLE_MS,
    maxEpisodes: opts.maxEpisodes ?? DEFAULT_MAX_EPISODES,
  });
  const now = opts.now ?? (() => Date.now());
  const episodes = new Map<string, Held>();
  let loopbackHosts: Set<string> | null = null;
  let starting = 0;

  const expireIdle = (): number => {
    const cutoff = now() - idleMs;
    let closed = 0;
    for (const [id, held] of episodes)
      if (held.lastActive <= cutoff && held.episode.state !== 'busy') {
        held.episode.cancel();
        episodes.delete(id);
        closed++;
      }
    return closed;
  };

  const held = (id: string): Held => {
    const found = episodes.get(id);
    if (!found) throw refuse('unknown-episode', { id, idleMs });
    return found;
  };

  const create = async (body: unknown): Promise<object> => {
    const game = isRecord(body) ? body.game : undefined;
    // A body without a game, or no object at all, is the bilateral schema's to refuse.
    if (game !== undefined && game !== 'bilateral' && game !== 'market') throw refuse('unknown-game', { game: String(JSON.stringify(game)).slice(0, 60) });
    const check = (spec: string, game: EnvGame): void => {
      const refused = opts.checkOpponent?.(spec, game);
      if (refused) throw new HttpError(refused);
    };
    let launch: (id: string) => Promise<StartedEpisode>;
    if (game === 'market') {
      const req = parseBody(MarketEpisodeRequestSchema, body);
      check(req.opponent, 'market');
      launch = (id) => startMarketEpisode(id, req, opts.makeMarketAgent ?? makeMarketAgent);
    } else {
      const req = parseBody(EpisodeRequestSchema, body);
      check(req.opponent, 'bilateral');
      launch = (id) => startEpisode(id, req, opts.makeAgent);
    }
    // Episodes still starting (a model opponent may be answering its opening move) count too.
    if (episodes.size + starting >= maxEpisodes) expireIdle();
    if (episodes.size + starting >= maxEpisodes) throw refuse('full', { max: maxEpisodes });
    const id = randomUUID();
    let started: StartedEpisode;
    starting++;
    try {
      started = await launch(id);
    } catch (e) {
      if (e instanceof OpponentError) throw refuse('bad-opponent', { reason: e.message });
      throw e;
    } finally {
      starting--;
    }
    episodes.set(id, { episode: started.episode, lastActive: now() });
    return { id, ...started.view };
  };

  const step = async (id: string, body: unknown): Promise<EpisodeView> => {
    const h = held(id);
    if (h.episode.state === 'done') throw refuse('episode-over', { id });
    if (h.episode.state === 'busy') throw refuse('step-in-progress', { id });
    const answer = stepAnswer(parseBody(StepRequestSchema, body));
    h.lastActive = now();
    try {
      // The tools and the answer's schema never change within an episode: the first answer carries them.
      const view = await h.episode.step(answer);
      if (view.done) return view;
      return { done: false, messages: view.messages };
    } finally {
      h.lastActive = now();
    }
  };

  const route = async (req: IncomingMessage): Promise<[number, unknown]> => {
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      throw refuse('bad-url');
    }
    const method = req.method ?? 'GET';
    // A web page the user happens to open could otherwise drive episodes (and a paid model opponent)
    // through the browser: pages send an Origin, trainers do not; a page that rebinds its own name to
    // 127.0.0.1 still sends its own name as the Host.
    if (req.headers.origin !== undefined) throw refuse('forbidden', {});
    if (loopbackHosts !== null && !loopbackHosts.has((req.headers.host ?? '').toLowerCase()))
      throw refuse('forbidden', { host: [...loopbackHosts][0] as string });
    if (path === '/health') {
      if (method !== 'GET') throw refuse('method', { allowed: 'GET /health' });
      let done = 0;
      for (const h of episodes.values()) if (h.episode.state === 'done') done++;
      return [200, { ok: true, games: ['bilateral', 'market'], episodes: { open: episodes.size - done, done }, max: maxEpisodes, idleMs }];
    }
    if (path === '/episodes') {
      if (method !== 'POST') throw refuse('method', { allowed: 'POST /episodes' });
      return [201, await create(await readJson(req))];
    }
    const m = EPISODE_PATH.exec(path);
    if (m) {
      const id = m[1] as string;
      if (m[2]) {
        if (method !== 'POST') throw refuse('method', { allowed: `POST /episodes/${id}/step` });
        return [200, await step(id, await readJson(req))];
      }
      if (method !== 'DELETE') throw refuse('method', { allowed: `DELETE /episodes/${id} (steps go to POST /episodes/${id}/step)` });
      held(id).episode.cancel();
      episodes.delete(id);
      return [200, { id, closed: true }];
    }
    throw refuse('no-route', { method, path });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    route(req).then(
      ([status, body]) => send(res, status, body),
      (e: unknown) => {
        // A bug: this request fails, the server carries on (an episode that failed is over).
        const { code, message } = e instanceof HttpError ? e.problem : envProblem('internal', { error: e instanceof Error ? e.message : String(e) });
        send(res, ENV_STATUS[code], { error: { code, message } });
      },
    );
  };

  const server: Server = createServer(handle);
  // Trainers keep connections open across steps; many at once.
  server.keepAliveTimeout = 30_000;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(portAsked, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // On loopback, the names a local client may use for this server; elsewhere the Host is not checked.
  loopbackHosts = LOOPBACK.has(host) ? new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) : null;
  const sweepMs = opts.sweepMs ?? Math.min(60_000, Math.max(1000, Math.floor(idleMs / 10)));
  const sweeper = sweepMs > 0 ? setInterval(expireIdle, sweepMs) : null;
  sweeper?.unref();

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    get size() {
      return episodes.size;
    },
    expireIdle,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (sweeper) clearInterval(sweeper);
        for (const h of episodes.values()) h.episode.cancel();
        episodes.clear();
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

async function readJson(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    req.resume();
    throw refuse('too-large', { bytes: declared, limit: MAX_BODY_BYTES });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw refuse('too-large', { limit: MAX_BODY_BYTES });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw refuse('bad-body', { body: 'empty' });
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (e) {
    throw refuse('bad-json', { error: (e as Error).message.slice(0, 200) });
  }
  if (deeperThan(body, MAX_BODY_DEPTH)) throw refuse('too-deep', { depth: MAX_BODY_DEPTH });
  return body;
}

/** The body through its schema, or a 400 naming the first problem and where. */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (!isRecord(body)) throw refuse('bad-body', { body: 'not-an-object' });
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw refuse('bad-body', { body: 'invalid', where: issue?.path.map(String).join('.') ?? '', issue: issue?.message ?? 'invalid' });
}
