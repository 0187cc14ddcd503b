/**
 * What every remote backend shares: one JSON POST with a timeout per attempt, retries with
 * exponential backoff and full jitter on 429, 5xx, network failures and 200s that carry no usable
 * answer (honouring Retry-After), an abort that stops everything at once, and errors that carry
 * the provider's own message with any key blanked out. A key that comes back inside an answer is
 * blanked out of it before anyone reads it. Sleep, randomness and the wall clock are passed in so
 * tests are exact.
 */
import { ok, type Result } from '../../core/result';
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
  /** The longest Retry-After that is waited out as asked; a longer one is cut to this. */
  maxRetryAfterMs?: number;
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
export async function fetchJson<T = unknown>(
  url: string,
  init: RequestInit,
  opts: HttpOptions,
  read: AnswerReader<T> = asIs as AnswerReader<T>,
): Promise<T> {
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
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, opts.maxRetryAfterMs ?? HTTP_DEFAULTS.maxRetryAfterMs);
  const ceiling = Math.min(opts.maxDelayMs ?? HTTP_DEFAULTS.maxDelayMs, (opts.baseDelayMs ?? HTTP_DEFAULTS.baseDelayMs) * 2 ** attempt);
  return Math.floor((opts.random ?? Math.random)() * ceiling);
}

async function attemptOnce<T>(
  url: string,
  init: RequestInit & { signal: AbortSignal },
  opts: HttpOptions,
  read: AnswerReader<T>,
): Promise<T> {
  const caller = init.signal;
  const timeoutMs = opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([caller, timeout]);
  const secrets = opts.secrets ?? [];
  const fail = (kind: 'http' | 'timeout' | 'bad-response' | 'rate-limited', message: string, extra: BackendErrorOptions = {}) =>
    new BackendError(kind, clip(redactSecrets(message, secrets)), { redact: secrets, ...extra });
  const interrupted = (e: unknown): never => {
    if (caller.aborted) throw caller.reason;
    // Not retried: a call that used up its time would most likely use it up again.
    if (timeout.aborted) throw fail('timeout', `${opts.provider}: no answer within ${timeoutMs} ms`);
    throw new Retryable(fail('http', `${opts.provider}: could not reach ${originOf(url)} (${describe(e)})`, { cause: e }));
  };

  let response: Response;
  let text: string;
  try {
    response = await (opts.fetch ?? fetch)(url, { ...init, signal });
    text = await response.text();
  } catch (e) {
    return interrupted(e);
  }

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
  // A proxy or an overloaded server may answer 200 with nothing, or with an HTML page: as
  // transient as a 5xx, so retried like one.
  const status = response.status;
  if (text.trim() === '') throw new Retryable(fail('bad-response', `${opts.provider} answered ${status} with an empty body`, { status }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new Retryable(
      fail('bad-response', `${opts.provider} answered ${status} with something that is not JSON: ${clip(text, 200)}`, { status }),
    );
  }
  // A key can only be in the parsed answer if it is in the text (the pattern covers JSON escapes):
  // only then is the answer rebuilt with every string blanked.
  const answer = read(redactSecrets(text, secrets) === text ? parsed : redactDeep(parsed, secrets));
  if (answer.ok) return answer.value;
  const error = fail(answer.error.kind, answer.error.message, { status });
  throw answer.error.retry ? new Retryable(error) : error;
}

const isRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/**
 * The wait a provider asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as
 * an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfter(headers: Headers, now: () => number): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

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
  const candidates = [
    at(parsed, 'error', 'message'),
    at(parsed, 'error'),
    at(parsed, 'message'),
    at(parsed, 'detail', 0, 'msg'),
    at(parsed, 'detail'),
  ];
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
      if (next) next.grant(); // the slot passes straight on, so #active stays the same
      else this.#active--;
    };
  }
}

/** Joins a base URL and a path with exactly one slash; throws on a URL that is not http(s). */
export function endpoint(baseUrl: string, path: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new Error(`"${baseUrl}" is not a URL; give one such as https://api.openai.com/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${baseUrl}" is not an http(s) URL`);
  return `${url.href.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
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
  const { timeoutMs, maxRetries, baseDelayMs, maxDelayMs, maxRetryAfterMs, sleep, random, now, fetch } = opts;
  return {
    provider,
    timeoutMs,
    maxRetries,
    baseDelayMs,
    maxDelayMs,
    maxRetryAfterMs,
    sleep,
    random,
    now,
    fetch,
    secrets: opts.apiKey ? [opts.apiKey] : [],
    limiter: opts.limiter ?? new Limiter(opts.concurrency ?? DEFAULT_CONCURRENCY),
  };
}
