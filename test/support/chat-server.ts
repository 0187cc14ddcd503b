/**
 * A local chat server for tests: OpenAI-compatible (`POST …/chat/completions`), Anthropic
 * (`POST /v1/messages`) and Gemini (`POST /v1beta/models/{model}:generateContent`) on
 * 127.0.0.1, with CORS so a browser page may call it too. Each request is answered from a
 * script (a list in order, or a function of the request), rendered in the dialect of the route
 * it came to (see chat-dialects.ts), and recorded with its headers and body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { render } from './chat-dialects';

export { promptOf } from './chat-dialects';

export type Route = 'openai' | 'anthropic' | 'gemini';

/** A tool call as the script writes it; arguments as an object or as JSON text. */
export interface ScriptedToolCall {
  name: string;
  arguments: unknown;
}

/** One scripted answer. `delayMs` holds it back first (the client may give up meanwhile). */
export type Answer =
  | {
      kind: 'reply';
      content: string;
      /** Sent apart from the content: `reasoning_content`, a thinking block, a thought part. */
      thinking?: string;
      toolCalls?: ScriptedToolCall[];
      tokensIn?: number;
      tokensOut?: number;
      /** The model named in the answer (default: the one asked for). */
      model?: string;
      /** The answer stopped at the token limit: `finish_reason: "length"`, `stop_reason: "max_tokens"`, `finishReason: "MAX_TOKENS"`. */
      cutOff?: boolean;
      delayMs?: number;
    }
  | {
      kind: 'error';
      status: number;
      /** Put in the provider's own error shape. */
      message: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  /** Any status and body as they are, e.g. a 200 that is not JSON. */
  | { kind: 'raw'; status: number; body: string; contentType?: string; delayMs?: number }
  /** A redirect (with CORS headers, so a browser may see it) to `location`. */
  | { kind: 'redirect'; status: number; location: string; delayMs?: number }
  /**
   * A 200 (or `status`) whose body is `chunk` over and over, `bytes` of it in all (without end when left out),
   * sent as fast as the client reads; the request records how much went out.
   */
  | { kind: 'stream'; chunk: string; bytes?: number; status?: number; delayMs?: number };

export interface RecordedRequest {
  /** Arrival order among the scripted (POST) requests, from 0. */
  index: number;
  route: Route;
  method: string;
  path: string;
  /** Header names lower-cased, as Node gives them. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the text when it does not parse. */
  body: unknown;
  /** The model asked for, from the body or the path. */
  model: string;
  /** What it was answered, once the script has said. */
  answer?: Answer;
  /** Bytes of a `stream` answer written so far, and whether the client went away before its end. */
  streamed?: { bytes: number; dropped: boolean };
}

export type Script = readonly Answer[] | ((request: RecordedRequest) => Answer | Promise<Answer>);

export interface ChatServer {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The scripted requests, in arrival order. */
  requests: RecordedRequest[];
  /** CORS preflights, by their headers. */
  preflights: Record<string, string>[];
  /** Requests being answered now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

// ---- answers ------------------------------------------------------------------------------

type ReplyExtra = Partial<Omit<Extract<Answer, { kind: 'reply' }>, 'kind' | 'content'>>;

export const reply = (content: string, extra: ReplyExtra = {}): Answer => ({ kind: 'reply', content, ...extra });
/** A move as a model would write it under constrained decoding. */
export const move = (m: object, extra: ReplyExtra = {}): Answer => reply(JSON.stringify(m), extra);
export const toolCall = (name: string, args: unknown, extra: ReplyExtra = {}): Answer => reply('', { toolCalls: [{ name, arguments: args }], ...extra });
/** Thinking inline, as Qwen3 writes it, then the move. */
export const thinkThen = (thinking: string, m: object, extra: ReplyExtra = {}): Answer => reply(`<think>${thinking}</think>\n${JSON.stringify(m)}`, extra);
export const malformed = (text: string): Answer => reply(text);
export const failure = (status: number, message: string, headers: Record<string, string> = {}): Answer => ({
  kind: 'error',
  status,
  message,
  headers,
});
export const rateLimited = (retryAfter: string | number, message = 'Rate limit reached, slow down'): Answer =>
  failure(429, message, { 'Retry-After': String(retryAfter) });
export const serverError = (message = 'The server had an error while processing your request', status = 500): Answer => failure(status, message);
export const slow = (delayMs: number, answer: Answer): Answer => ({ ...answer, delayMs });
export const redirect = (location: string, status = 307): Answer => ({ kind: 'redirect', status, location });
/** A 200 that never ends (or ends after `bytes`): `chunk` again and again. */
export const endless = (chunk = 'x'.repeat(64 * 1024), extra: { bytes?: number; status?: number } = {}): Answer => ({ kind: 'stream', chunk, ...extra });

// ---- the server ---------------------------------------------------------------------------

const GEMINI_PATH = /^\/v1beta\/models\/([^/:]+):generateContent$/;

function routeOf(path: string): { route: Route; model?: string } | undefined {
  if (path.endsWith('/chat/completions')) return { route: 'openai' };
  if (path === '/v1/messages') return { route: 'anthropic' };
  const gemini = GEMINI_PATH.exec(path);
  if (gemini) return { route: 'gemini', model: decodeURIComponent(gemini[1] as string) };
  return undefined;
}

function corsHeaders(req: IncomingMessage): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? '*',
    'Access-Control-Expose-Headers': 'Retry-After, retry-after-ms',
    'Access-Control-Max-Age': '600',
  };
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function start(script: Script): Promise<ChatServer> {
  const requests: RecordedRequest[] = [];
  const preflights: Record<string, string>[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let next = 0;

  const answerFor = async (request: RecordedRequest): Promise<Answer> => {
    if (typeof script === 'function') return script(request);
    const answer = script[next++];
    return answer ?? serverError(`chat-server: no answer scripted for request ${request.index + 1}`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const cors = corsHeaders(req);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'OPTIONS') {
      preflights.push(headersOf(req));
      res.writeHead(204, cors).end();
      return;
    }
    const found = routeOf(path);
    if (req.method !== 'POST' || !found) {
      res.writeHead(404, { ...cors, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `chat-server: no route for ${req.method} ${path}` } }));
      return;
    }
    const body = await readBody(req);
    const asked = (body as { model?: unknown } | null)?.model;
    const model = found.model ?? (typeof asked === 'string' ? asked : '');
    const request: RecordedRequest = {
      index: requests.length,
      route: found.route,
      method: req.method,
      path,
      headers: headersOf(req),
      body,
      model,
    };
    requests.push(request);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let closed = false;
    res.on('close', () => {
      closed = true;
      inFlight--;
    });

    const answer = await answerFor(request);
    request.answer = answer;
    if (answer.delayMs !== undefined && answer.delayMs > 0) await pause(answer.delayMs, res);
    if (closed) return;
    if (answer.kind === 'redirect') {
      res.writeHead(answer.status, { ...cors, Location: answer.location, 'Content-Type': 'text/plain' });
      res.end(`Redirecting to ${answer.location}`);
      return;
    }
    if (answer.kind === 'stream') {
      request.streamed = { bytes: 0, dropped: false };
      await stream(res, answer, request.streamed, cors, () => closed);
      return;
    }
    const [status, headers, text] = render(found.route, answer, model || 'test-model');
    res.writeHead(status, { ...cors, ...headers });
    res.end(text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `chat-server: ${e instanceof Error ? e.message : String(e)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    preflights,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

/** Writes a stream answer as fast as the client reads it, until its end or until the client goes away. */
async function stream(
  res: ServerResponse,
  answer: Extract<Answer, { kind: 'stream' }>,
  sent: { bytes: number; dropped: boolean },
  cors: Record<string, string>,
  closed: () => boolean,
): Promise<void> {
  res.writeHead(answer.status ?? 200, { ...cors, 'Content-Type': 'application/json' });
  const chunk = Buffer.from(answer.chunk, 'utf8');
  const total = answer.bytes ?? Infinity;
  while (sent.bytes < total) {
    if (closed()) {
      sent.dropped = true;
      return;
    }
    const piece = total - sent.bytes >= chunk.length ? chunk : chunk.subarray(0, total - sent.bytes);
    sent.bytes += piece.length;
    if (!res.write(piece))
      await new Promise<void>((resolve) => {
        const go = () => {
          res.off('drain', go);
          res.off('close', go);
          resolve();
        };
        res.on('drain', go);
        res.on('close', go);
      });
  }
  res.end();
}

/** Waits, or stops waiting as soon as the client goes away. */
function pause(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
    res.on('close', done);
  });
}
