/**
 * What every remote backend shares: one JSON POST with a timeout per attempt, retries with
 * exponential backoff and full jitter on 429, 5xx, network failures and 200s that carry no usable
 * answer (honouring Retry-After, within the attempt's time), an abort that stops everything at
 * once, and errors that carry the provider's own message with any key blanked out. A key that
 * comes back inside an answer is blanked out of it before anyone reads it. No redirect is
 * followed, so a key goes to the address it was given for and nowhere else; an answer is read up
 * to MAX_ANSWER_BYTES, no further. Sleep, randomness and the wall clock are passed in so tests
 * are exact.
 */
import { ok, type Result } from '../../engine/result';
import { checkBaseUrl } from '../remote-input';
import { BackendError, redactDeep, redactSecrets, type BackendErrorOptions } from './types';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface HttpOptions {
  /** Names the provider in error messages: 'openai', 'anthropic', … */
  provider: string;
  /** Time allowed for one attempt, answer body included (default 60 s). */
  timeoutMs?: number;
  /** Further attempts after the first, on 429, 5xx and network errors (default 3). */
  maxRetries?: number;
  /** Backoff before retry n (from 0) is uniform on [0, min(maxDelayMs, baseDelayMs · 2ⁿ)]. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * The longest Retry-After that is waited out as asked; a longer one is cut to this, or to
   * `timeoutMs` where that is shorter.
   */
  maxRetryAfterMs?: number;
  /** Bytes of an answer read at most (default MAX_ANSWER_BYTES); past them the request is abandoned. */
  maxAnswerBytes?: number;
  /** Blanked out of every error message, should the provider echo one back. */
  secrets?: readonly string[];
  /** Holds one slot per attempt in flight. */
  limiter?: Limiter;
  sleep?: Sleep;
  /** Uniform on [0, 1), for the jitter. */
  random?: () => number;
  /** Wall-clock milliseconds, to read a Retry-After given as an HTTP date. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** Requests in flight at once to one provider, unless told otherwise. */
export const DEFAULT_CONCURRENCY = 4;

export const HTTP_DEFAULTS = {
  timeoutMs: 60_000,
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
} as const;

/**
 * Bytes of a successful answer read at most: ten times what the largest answer Parley asks for
 * could take (32,768 tokens of thinking and move, JSON-escaped), so that no honest answer comes
 * near it. Past it the request is abandoned and the seat's answer is invalid.
 */
export const MAX_ANSWER_BYTES = 4 * 2 ** 20;
/** Bytes of an error answer read: its message is shown clipped to a few hundred characters anyway. */
const MAX_ERROR_BYTES = 64 * 2 ** 10;

const MAX_MESSAGE = 500;
const NEVER_ABORTED = new AbortController().signal;

/** A failure worth another attempt; anything else is thrown at once. */
class Retryable {
  constructor(readonly error: BackendError) {}
}

/**
 * Why a 200's JSON is no answer, as a client's reader says: `retry` when another attempt may well
 * bring one (an empty or truncated answer, an upstream failure reported in a 200), not when the
 * same request would get the same refusal (a prompt the provider blocks).
 */
export interface AnswerFault {
  kind: 'bad-response' | 'http';
  message: string;
  retry: boolean;
}

/** Reads a provider's parsed JSON into what the client returns, or says why it cannot. */
export type AnswerReader<T> = (answer: unknown) => Result<T, AnswerFault>;

const asIs: AnswerReader<unknown> = (answer) => ok(answer);

/**
 * POSTs (or whatever `init` says) and returns the answer read by `read` (by default the parsed
 * JSON as it is). Rejects with the caller's abort reason once `init.signal` is aborted (never
 * retrying), else with a BackendError that says how many attempts were made.
 */
export async function fetchJson<T = unknown>(url: string, init: RequestInit, opts: HttpOptions, read: AnswerReader<T> = asIs as AnswerReader<T>): Promise<T> {
  const signal = init.signal ?? NEVER_ABORTED;
  const maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? HTTP_DEFAULTS.maxRetries));
  const sleep = opts.sleep ?? realSleep;
  for (let attempt = 0; ; attempt++) {
    signal.throwIfAborted();
    let failure: BackendError;
    const release = opts.limiter ? await opts.limiter.acquire(signal) : undefined;
    try {
      return await attemptOnce(url, { ...init, signal }, opts, read);
    } catch (e) {
      if (!(e instanceof Retryable)) throw e;
      failure = e.error;
    } finally {
      release?.();
    }
    if (attempt >= maxRetries) throw attempt === 0 ? failure : gaveUp(failure, attempt + 1);
    await sleep(retryDelay(attempt, failure, opts), signal);
  }
}

/** The last failure, saying that it was the last of several attempts. */
function gaveUp(failure: BackendError, attempts: number): BackendError {
  const { status, retryAfterMs } = failure;
  return new BackendError(failure.kind, `${failure.message} (gave up after ${attempts} attempts)`, {
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(failure.cause === undefined ? {} : { cause: failure.cause }),
  });
}

/** How long to wait before retry `attempt` (from 0): what the provider asked, else backoff with full jitter. */
export function retryDelay(attempt: number, failure: BackendError, opts: HttpOptions): number {
  if (failure.retryAfterMs !== undefined)
    return Math.min(failure.retryAfterMs, opts.maxRetryAfterMs ?? HTTP_DEFAULTS.maxRetryAfterMs, opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs);
  const ceiling = Math.min(opts.maxDelayMs ?? HTTP_DEFAULTS.maxDelayMs, (opts.baseDelayMs ?? HTTP_DEFAULTS.baseDelayMs) * 2 ** attempt);
  return Math.floor((opts.random ?? Math.random)() * ceiling);
}

async function attemptOnce<T>(url: string, init: RequestInit & { signal: AbortSignal }, opts: HttpOptions, read: AnswerReader<T>): Promise<T> {
  const caller = init.signal;
  const timeoutMs = opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  // Aborted once the answer has been read as far as it will be, so the connection is dropped.
  const done = new AbortController();
  const signal = AbortSignal.any([caller, timeout, done.signal]);
  const secrets = opts.secrets ?? [];
  const fail = (kind: 'http' | 'timeout' | 'bad-response' | 'rate-limited' | 'too-large', message: string, extra: BackendErrorOptions = {}) =>
    new BackendError(kind, clip(redactSecrets(message, secrets)), { redact: secrets, ...extra });
  const interrupted = (e: unknown): never => {
    if (caller.aborted) throw caller.reason;
    // Not retried: a call that used up its time would most likely use it up again.
    if (timeout.aborted) throw fail('timeout', `${opts.provider}: no answer within ${timeoutMs} ms`);
    throw new Retryable(fail('http', `${opts.provider}: could not reach ${originOf(url)} (${describe(e)})`, { cause: e }));
  };

  let response: Response;
  let body: { text: string; overflow: boolean };
  try {
    // A browser drops only Authorization on a redirect to another host, not x-api-key or
    // x-goog-api-key, so no redirect is followed at all: the key stays with the address it was given for.
    response = await (opts.fetch ?? fetch)(url, { ...init, redirect: 'manual', signal });
    if (isRedirect(response)) throw fail('http', redirectMessage(opts.provider, url, response), response.status > 0 ? { status: response.status } : {});
    body = await readCapped(response, response.ok ? (opts.maxAnswerBytes ?? MAX_ANSWER_BYTES) : MAX_ERROR_BYTES);
  } catch (e) {
    if (e instanceof BackendError) throw e;
    return interrupted(e);
  } finally {
    done.abort();
  }
  const text = body.text;

  if (!response.ok) {
    const status = response.status;
    const retryAfterMs = retryAfter(response.headers, opts.now ?? Date.now);
    const detail = providerMessage(text) ?? (response.statusText || 'no message');
    const error = fail(status === 429 ? 'rate-limited' : 'http', `${opts.provider} ${status}: ${detail}`, {
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
    throw isRetryable(status) ? new Retryable(error) : error;
  }
  const status = response.status;
  // Not retried here: the seat plays it as an invalid answer, and the runner's retries bound it.
  if (body.overflow)
    throw fail('too-large', `${opts.provider}: the answer was longer than ${bytes(opts.maxAnswerBytes ?? MAX_ANSWER_BYTES)}, and was not read further`, {
      status,
    });
  // A proxy or an overloaded server may answer 200 with nothing, or with an HTML page: as
  // transient as a 5xx, so retried like one.
  if (text.trim() === '') throw new Retryable(fail('bad-response', `${opts.provider} answered ${status} with an empty body`, { status }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new Retryable(fail('bad-response', `${opts.provider} answered ${status} with something that is not JSON: ${clip(text, 200)}`, { status }));
  }
  // A key can only be in the parsed answer if it is in the text (the pattern covers JSON escapes):
  // only then is the answer rebuilt with every string blanked.
  const answer = read(redactSecrets(text, secrets) === text ? parsed : redactDeep(parsed, secrets));
  if (answer.ok) return answer.value;
  const error = fail(answer.error.kind, answer.error.message, { status });
  throw answer.error.retry ? new Retryable(error) : error;
}

/** A redirect: in a browser an opaque one (status 0, no address shown), elsewhere a 3xx with its Location. */
const isRedirect = (response: Response): boolean =>
  response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400 && response.headers.has('location'));

/** Why a redirect was refused, naming where it pointed (its origin only: a query could hold a key) where that can be seen. */
function redirectMessage(provider: string, url: string, response: Response): string {
  const location = response.headers.get('location');
  let target = 'an address the browser does not show';
  if (location !== null)
    try {
      target = new URL(location, url).origin;
    } catch {
      target = 'an address that is not a URL';
    }
  const status = response.status > 0 ? ` ${response.status}` : '';
  return `${provider}: ${originOf(url)} answered with a redirect${status} to ${target}; Parley follows no redirect, so that a key goes only to the address it was given for: set the base URL to the address that answers`;
}

/**
 * The body as text, read up to `max` bytes: past them reading stops (the caller then drops the
 * connection) and `overflow` says so. An answer without a body is ''.
 */
async function readCapped(response: Response, max: number): Promise<{ text: string; overflow: boolean }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { text: '', overflow: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      void reader.cancel().catch(() => {});
      return { text: decode(chunks), overflow: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: decode(chunks), overflow: false };
}

function decode(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

const bytes = (n: number): string => (n % 2 ** 20 === 0 ? `${n / 2 ** 20} MB` : `${n.toLocaleString('en-US')} bytes`);

const isRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/**
 * The wait a provider asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as
 * an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfter(headers: Headers, now: () => number): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return waitOf(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return waitOf(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : waitOf(date - now());
}

/** A week: longer waits are read as this (each is then cut to the attempt's time anyway). */
const MAX_WAIT_MS = 7 * 24 * 3600_000;
const waitOf = (ms: number): number => (Number.isFinite(ms) ? Math.min(MAX_WAIT_MS, Math.max(0, Math.ceil(ms))) : MAX_WAIT_MS);

/**
 * The provider's own words from an error body: `error.message` (OpenAI, Anthropic, Gemini),
 * `error` as text (Ollama), `message` or `detail` (vLLM and other servers), else the text itself.
 */
export function providerMessage(body: string): string | undefined {
  const text = body.trim();
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return /^\s*</.test(text) ? undefined : clip(text, 300); // an HTML error page says nothing useful
  }
  const candidates = [at(parsed, 'error', 'message'), at(parsed, 'error'), at(parsed, 'message'), at(parsed, 'detail', 0, 'msg'), at(parsed, 'detail')];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return found === undefined ? clip(text, 300) : clip(found.trim(), 300);
}

/** The value at a path of keys and indices, or undefined. */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let x = value;
  for (const key of path) {
    if (typeof x !== 'object' || x === null) return undefined;
    x = (x as Record<string | number, unknown>)[key];
  }
  return x;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${e.message}${cause}`;
}

function clip(text: string, max = MAX_MESSAGE): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A counting semaphore: at most `max` holders at once, the rest wait in order. A waiter whose
 * signal is aborted leaves the queue and rejects with the signal's reason.
 */
export class Limiter {
  readonly max: number;
  #active = 0;
  #queue: { grant: () => void }[] = [];

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a concurrency limit must be a whole number ≥ 1, not ${max}`);
    this.max = max;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  /** Resolves with a release function (calling it twice is harmless) once a slot is free. */
  acquire(signal: AbortSignal = NEVER_ABORTED): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (this.#active < this.max) {
        this.#active++;
        return resolve(this.#releaser());
      }
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        this.#queue = this.#queue.filter((w) => w !== waiter);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Runs `task` holding one slot. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.#queue.shift();
      if (next)
        next.grant(); // the slot passes straight on, so #active stays the same
      else this.#active--;
    };
  }
}

/** Joins a base URL and a path with exactly one slash; throws on a base URL that checkBaseUrl refuses (not http(s), or holding a password), in words that do not repeat it. */
export function endpoint(baseUrl: string, path: string): string {
  const checked = checkBaseUrl(baseUrl);
  if (!checked.ok) throw new Error(checked.error.message);
  return `${new URL(checked.value).href.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The transport settings every HTTP backend takes beside its own. */
export interface TransportOptions extends Omit<HttpOptions, 'provider' | 'secrets' | 'limiter'> {
  /** The user's key: sent to this backend's host alone, and blanked out of every error. */
  apiKey?: string;
  /** Requests in flight at once (default 4); ignored when a shared `limiter` is given. */
  concurrency?: number;
  /** One limiter shared by every backend that talks to the same provider. */
  limiter?: Limiter;
}

/** A backend's HttpOptions: the transport settings alone, its key to redact, and its limiter. */
export function httpOptionsFor(provider: string, opts: TransportOptions): HttpOptions {
  const { timeoutMs, maxRetries, baseDelayMs, maxDelayMs, maxRetryAfterMs, maxAnswerBytes, sleep, random, now, fetch } = opts;
  return {
    provider,
    timeoutMs,
    maxRetries,
    baseDelayMs,
    maxDelayMs,
    maxRetryAfterMs,
    maxAnswerBytes,
    sleep,
    random,
    now,
    fetch,
    secrets: opts.apiKey ? [opts.apiKey] : [],
    limiter: opts.limiter ?? new Limiter(opts.concurrency ?? DEFAULT_CONCURRENCY),
  };
}
