/**
 * The environment server for trainers: Node `http`, JSON in and out, on 127.0.0.1 unless told
 * otherwise. Its own routes:
 *
 *   GET  /health               → {ok, status: "healthy", games, episodes: {open, done}, max, idleMs}
 *   POST /episodes             {game?, seat?, opponent?, preset, seed?, interface, …} → {id, game, seat, seed, done, terminated, truncated, messages, tools?}
 *                              (game "bilateral", the default: episode.ts; game "market", the policy selling: market-episode.ts)
 *   POST /episodes/{id}/step   {completion} or {tool_calls} → {done: false, …, messages} … {done: true, terminated, truncated, reward, terms, outcome}
 *   DELETE /episodes/{id}      → {id, closed: true}
 *
 * and OpenEnv's, beside them (openenv.ts): POST /reset, POST /step, GET /state, GET /schema,
 * GET /metadata, and the WebSocket session at /ws. Every front end plays the same episodes
 * (episode-table.ts).
 *
 * Every refusal is a 4xx (5xx only for a full server or a bug) with `{error: {code, message}}`
 * (env-problems.ts); nothing a client sends can crash the server. Requests from web pages (with an
 * `Origin`), WebSocket upgrades included, are refused, and on loopback so is a Host that names
 * another server. Episodes idle longer than `idleMs` are closed and forgotten, finished ones included
 * (a step after the end is a 409 until then, a 404 after).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import type { BilateralAgentFactory } from '../games/bilateral/tournament';
import type { MarketAgentFactory } from '../games/market/tournament';
import { deeperThan } from './json-depth';
import { EpisodeTable, type EnvGame } from './episode-table';
import { ENV_STATUS, envProblem, parseBody, problemOf, refuse, type EnvCode, type OpponentRefusal } from './env-problems';
import { EMPTY_STATE, HttpStepSchema, METADATA, OpenEnvSession, reset, schemaResponse, stateOf, step as openEnvStep, wsError } from './openenv';

export { ENV_PROBLEMS, envProblem, type EnvProblem, type OpponentRefusal } from './env-problems';
export { EPISODE_DEFAULTS, type EnvGame } from './episode-table';

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
/** Request bodies (and WebSocket messages) above this are refused unread (a completion is at most 200,000 characters). */
const MAX_BODY_BYTES = 1 << 20;
/**
 * Bodies that nest arrays and objects deeper than this are refused before any schema reads them: a
 * request is at most six deep (tool calls with their arguments as an object), and what a model
 * wrote, however deep, arrives as a string.
 */
export const MAX_BODY_DEPTH = 64;

/** Addresses that answer this machine alone. */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1']);

const EPISODE_PATH = /^\/episodes\/([A-Za-z0-9][A-Za-z0-9_.:-]{0,254})(\/step)?$/;
/** OpenEnv's routes answer a body its schema refuses with 422, as FastAPI does, and say why in `detail` too. */
const OPENENV_PATHS: ReadonlySet<string> = new Set(['/reset', '/step', '/state', '/schema', '/metadata']);
const UNPROCESSABLE: ReadonlySet<EnvCode> = new Set(['bad-json', 'bad-body', 'too-deep', 'no-episode']);

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
  const table = new EpisodeTable({
    makeAgent: opts.makeAgent,
    ...(opts.makeMarketAgent && { makeMarketAgent: opts.makeMarketAgent }),
    ...(opts.checkOpponent && { checkOpponent: opts.checkOpponent }),
    idleMs,
    maxEpisodes,
    now: opts.now ?? (() => Date.now()),
  });
  let loopbackHosts: Set<string> | null = null;

  /** Why a request may not be served at all: a web page's, or one naming another server. */
  const gate = (req: IncomingMessage): void => {
    // A web page the user happens to open could otherwise drive episodes (and a paid model opponent)
    // through the browser: pages send an Origin (WebSocket upgrades too), trainers do not; a page that
    // rebinds its own name to 127.0.0.1 still sends its own name as the Host.
    if (req.headers.origin !== undefined) throw refuse('forbidden', {});
    if (loopbackHosts !== null && !loopbackHosts.has((req.headers.host ?? '').toLowerCase()))
      throw refuse('forbidden', { host: [...loopbackHosts][0] as string });
  };

  const pathOf = (req: IncomingMessage): URL => {
    try {
      return new URL(req.url ?? '/', 'http://localhost');
    } catch {
      throw refuse('bad-url');
    }
  };

  const route = async (req: IncomingMessage, url: URL): Promise<[number, unknown]> => {
    const path = url.pathname;
    const method = req.method ?? 'GET';
    gate(req);
    const only = (allowed: string) => {
      if (`${method} ${path}` !== allowed) throw refuse('method', { allowed });
    };
    switch (path) {
      case '/health':
        only('GET /health');
        return [200, { ok: true, status: 'healthy', games: ['bilateral', 'market'], episodes: table.counts(), max: maxEpisodes, idleMs }];
      case '/episodes': {
        only('POST /episodes');
        const { held, view } = await table.create(await readJson(req));
        return [201, { id: held.id, game: held.game, seat: held.seat, seed: held.seed, ...view }];
      }
      case '/reset':
        only('POST /reset');
        return [200, await reset(table, await readJson(req, { emptyIs: undefined }))];
      case '/step': {
        only('POST /step');
        const body = parseBody(HttpStepSchema, await readJson(req));
        if (body.episode_id === undefined) throw refuse('no-episode', { via: 'http' });
        return [200, await openEnvStep(table, body.episode_id, body.action)];
      }
      case '/state': {
        only('GET /state');
        const id = url.searchParams.get('episode_id');
        return [200, id === null ? EMPTY_STATE : stateOf(table.get(id))];
      }
      case '/schema':
        only('GET /schema');
        return [200, schemaResponse()];
      case '/metadata':
        only('GET /metadata');
        return [200, METADATA];
      case '/ws':
        throw refuse('method', { allowed: 'GET /ws as a WebSocket upgrade (Upgrade: websocket)' });
    }
    const m = EPISODE_PATH.exec(path);
    if (m) {
      const id = m[1] as string;
      if (m[2]) {
        only(`POST /episodes/${id}/step`);
        return [200, await table.step(id, await readJson(req))];
      }
      if (method !== 'DELETE') throw refuse('method', { allowed: `DELETE /episodes/${id} (steps go to POST /episodes/${id}/step)` });
      if (!table.close(id)) table.get(id);
      return [200, { id, closed: true }];
    }
    throw refuse('no-route', { method, path });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let url: URL | null = null;
    new Promise<[number, unknown]>((resolve) => {
      url = pathOf(req);
      resolve(route(req, url));
    }).then(
      ([status, body]) => send(res, status, body),
      (e: unknown) => {
        // A bug: this request fails, the server carries on (an episode that failed is over).
        const { code, message } = problemOf(e);
        const openEnv = url !== null && OPENENV_PATHS.has(url.pathname);
        const status = openEnv && UNPROCESSABLE.has(code) ? 422 : ENV_STATUS[code];
        send(res, status, openEnv ? { detail: message, error: { code, message } } : { error: { code, message } });
      },
    );
  };

  // OpenEnv's WebSocket sessions: one episode at a time each, messages up to the body limit.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  const serveSession = (socket: WebSocket): void => {
    const session = new OpenEnvSession(table, MAX_BODY_DEPTH);
    socket.on('message', (data, isBinary) => {
      const text = isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');
      const answer = text === null ? Promise.resolve(wsError(envProblem('bad-json', { error: 'a binary message; send JSON text' }))) : session.handle(text);
      void answer.then((reply) => {
        if (reply === null) socket.close(1000, 'closed');
        else if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(reply));
      });
    });
    socket.on('close', () => session.dispose());
    // A message over the limit or a broken frame: ws closes the socket (1009, 1002); nothing to add.
    socket.on('error', () => session.dispose());
  };
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    try {
      const url = pathOf(req);
      gate(req);
      if (url.pathname !== '/ws') throw refuse('no-route', { method: `${req.method ?? 'GET'} (WebSocket)`, path: url.pathname });
    } catch (e) {
      const { code, message } = problemOf(e);
      const text = JSON.stringify({ error: { code, message } });
      socket.end(
        `HTTP/1.1 ${ENV_STATUS[code]} Refused\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, serveSession);
  };

  const server: Server = createServer(handle);
  server.on('upgrade', upgrade);
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
  const sweeper = sweepMs > 0 ? setInterval(() => table.expireIdle(), sweepMs) : null;
  sweeper?.unref();

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    get size() {
      return table.size;
    },
    expireIdle: () => table.expireIdle(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (sweeper) clearInterval(sweeper);
        for (const client of wss.clients) client.terminate();
        wss.close();
        table.closeAll();
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

/** The body as JSON, refused when too large, malformed or too deep; an empty one is refused, or is `emptyIs` where given (OpenEnv's reset takes none). */
async function readJson(req: IncomingMessage, empty?: { emptyIs: unknown }): Promise<unknown> {
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
  if (text.trim() === '') {
    if (empty) return empty.emptyIs;
    throw refuse('bad-body', { body: 'empty' });
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (e) {
    throw refuse('bad-json', { error: (e as Error).message.slice(0, 200) });
  }
  if (deeperThan(body, MAX_BODY_DEPTH)) throw refuse('too-deep', { depth: MAX_BODY_DEPTH });
  return body;
}
