/**
 * The one seam between the LLM agent and whatever answers it: WebLLM in a worker, an
 * OpenAI-compatible or Anthropic HTTP client, or the scripted fake the tests use. The agent
 * knows only this interface.
 */
import { redactUrls } from '../remote-input';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A tool the model may call; `parameters` is a JSON Schema object for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: object;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Constrained decoding: the answer must be JSON matching `schema`. */
  responseFormat?: { type: 'json_schema'; name: string; schema: object };
  /** The move tools; the model answers with a call to one of them (the `tools` interface). */
  tools?: ToolSpec[];
  /**
   * Let a reasoning model think before it answers: true turns thinking on, false turns it off
   * where the provider can be told (Qwen3 `enable_thinking: false`, Gemini's budget 0), and
   * undefined says nothing about it.
   */
  thinking?: boolean;
  /** The most tokens the answer may take, thinking included; past it the answer is cut off. */
  maxTokens?: number;
  temperature?: number;
  /** Sampling seed (a non-negative 31-bit integer), for providers that take one: the same request and seed draw the same answer. */
  seed?: number;
}

/** Output tokens that one move needs: a message of up to 600 characters and its action, as JSON or a tool call. */
export const MOVE_TOKENS = 512;
/** The token limit of a model that thinks first: its thinking, then the move. */
export const THINKING_MAX_TOKENS = 2048;
/** The context window assumed of a backend that does not say (WebLLM's Qwen3 builds hold 4,096 tokens). */
export const DEFAULT_CONTEXT_WINDOW = 4096;

/**
 * The most tokens one call is counted for, either way: far above any model's context (1 million
 * tokens at most), so a provider's larger figure is nonsense, and it is counted as this.
 */
export const MAX_CALL_TOKENS = 10_000_000;
/** The longest latency one call is counted for (a day); a longer or unreadable figure is cut to it. */
export const MAX_CALL_LATENCY_MS = 86_400_000;

/** A token count as a call record keeps it: a whole number in [0, MAX_CALL_TOKENS]; anything not a finite number is 0. */
export const tokenCount = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.min(MAX_CALL_TOKENS, Math.round(x)) : 0);

/** Milliseconds as a call record keeps them: finite, in [0, MAX_CALL_LATENCY_MS]; anything not a number is 0. */
export const latencyOf = (x: unknown): number => (typeof x === 'number' && !Number.isNaN(x) ? Math.min(MAX_CALL_LATENCY_MS, Math.max(0, x)) : 0);

export interface ChatResponse {
  /** The answer as text, thinking included if the backend returns it inline (`<think>…</think>`). */
  text: string;
  /** Tool calls in the order the model made them; `arguments` is JSON text. */
  toolCalls?: { name: string; arguments: string }[];
  tokensIn: number;
  tokensOut: number;
  /** The model that answered, where the provider says (it may differ from the one asked for). */
  model?: string;
  /**
   * Milliseconds the model took to answer, where the backend times it itself: WebLLM leaves out
   * the wait for the model to download and load, and for the GPU to be free. Otherwise the
   * agent times the whole call.
   */
  latencyMs?: number;
  /**
   * Milliseconds of the call spent compiling the answer's grammar before the model could write,
   * where the backend says (WebLLM's `usage.extra.grammar_init_s`, for a `json_object` format):
   * the engine's cost, not the model's, so the agent records it apart from the latency.
   */
  grammarMs?: number;
  /**
   * The answer stopped at `maxTokens`, unfinished: OpenAI's and WebLLM's `finish_reason: "length"`,
   * Anthropic's `stop_reason: "max_tokens"`, Gemini's `finishReason: "MAX_TOKENS"`.
   */
  truncated?: boolean;
  /**
   * The provider declined to answer, for safety or by a content filter: its own words where it
   * gave any, else the stop reason. OpenAI's `message.refusal`, `finish_reason: "content_filter"`
   * (any OpenAI-compatible server), Anthropic's `stop_reason: "refusal"`, Gemini's `SAFETY`,
   * `PROHIBITED_CONTENT` and like finish reasons, and a prompt Gemini blocks. Whatever text came
   * with it is no move; the seat plays it as an invalid answer, `refused`.
   */
  refusal?: string;
}

export interface BackendCapabilities {
  /** Honours `responseFormat` by constrained decoding. */
  jsonSchema: boolean;
  /** Takes the move `tools` (natively, or as WebLLM does: written into the prompt, the call forced by its grammar). */
  tools: boolean;
  /** Can think before answering, and can be told not to. */
  thinking: boolean;
}

export interface ChatBackend {
  /** Which kind of backend: 'webllm', 'openai', 'anthropic', 'scripted', … */
  readonly name: string;
  readonly model: string;
  readonly capabilities: BackendCapabilities;
  /** Tokens of context, prompt and answer together; DEFAULT_CONTEXT_WINDOW where left out. */
  readonly contextWindow?: number;
  /** Rejects with a BackendError, or with the signal's reason once it is aborted. */
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse>;
  /**
   * Told, when a seat is made, what every move of it will ask (its tools or schema, and
   * thinking), so that a backend that compiles a grammar per format (WebLLM) can compile it while
   * the model loads rather than inside the first move. Optional; it never fails.
   */
  prepare?(ask: Pick<ChatRequest, 'thinking' | 'tools' | 'responseFormat'>): void;
}

/**
 * `too-large`: the answer was longer than a backend reads (MAX_ANSWER_BYTES); the request was
 * abandoned, and the seat plays it as an invalid answer rather than an error.
 */
export const BACKEND_ERROR_KINDS = ['http', 'timeout', 'aborted', 'gpu-lost', 'bad-response', 'rate-limited', 'too-large'] as const;
export type BackendErrorKind = (typeof BACKEND_ERROR_KINDS)[number];

export interface BackendErrorOptions {
  /** HTTP status, where there was one. */
  status?: number;
  /** How long the provider asked us to wait (Retry-After), for 'rate-limited'. */
  retryAfterMs?: number;
  /** Secrets (API keys) to blank out of the message, should a provider echo one back. */
  redact?: readonly string[];
  cause?: unknown;
}

/**
 * Everything a backend throws, but an abort by the caller's own signal. Its message has the
 * secrets it is told of blanked out, and every URL in it stripped of a user name, a password and
 * query values.
 */
export class BackendError extends Error {
  override readonly name = 'BackendError';
  readonly kind: BackendErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(kind: BackendErrorKind, message: string, opts: BackendErrorOptions = {}) {
    super(redactUrls(redactSecrets(message, opts.redact ?? [])), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

const REDACTED = '[redacted]';
/** Shorter secrets are blanked only where they appear exactly; longer ones however they are written. */
const MIN_SECRET = 4;
const MIN_ENCODED_SECRET = 8;

/**
 * Replaces every occurrence of each secret with `[redacted]`, however a server or a model wrote it
 * back: in any mix of upper and lower case, URL-encoded (`%73k-…`), JSON-escaped (`\u0073k-…`),
 * as hex, or as base64 (standard or URL-safe, upper- or lower-cased first, at any offset inside a
 * longer encoded text).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    out = secret.length < MIN_ENCODED_SECRET ? out.split(secret).join(REDACTED) : out.replace(secretPattern(secret), REDACTED);
  }
  return out;
}

/** Every string in a parsed JSON value (keys included) with the secrets blanked out; the value is not changed. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.some((s) => s.length >= MIN_SECRET)) return value;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return redactSecrets(x, secrets);
    if (Array.isArray(x)) return x.map(walk);
    if (typeof x === 'object' && x !== null) return Object.fromEntries(Object.entries(x).map(([k, v]) => [redactSecrets(k, secrets), walk(v)]));
    return x;
  };
  return walk(value) as T;
}

const patterns = new Map<string, RegExp>();

/** One case-insensitive pattern for a secret in every form `redactSecrets` names; built once per secret. */
function secretPattern(secret: string): RegExp {
  let pattern = patterns.get(secret);
  if (pattern) return pattern;
  const forms = [charByChar(secret), hex(secret), ...new Set([secret, secret.toUpperCase(), secret.toLowerCase()].flatMap(base64Cores))];
  pattern = new RegExp(forms.filter((f) => f !== '').join('|'), 'gi');
  if (patterns.size > 64) patterns.clear();
  patterns.set(secret, pattern);
  return pattern;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Each character as itself, `%XX` or `\uXXXX` (case is left to the `i` flag). */
function charByChar(secret: string): string {
  return [...secret]
    .map((ch) => {
      const code = ch.codePointAt(0) as number;
      if (code > 0x7f) return escapeRegExp(ch);
      const h = code.toString(16).padStart(2, '0');
      const slash = ch === '/' ? '|\\\\/' : '';
      return `(?:${escapeRegExp(ch)}|%${h}|\\\\u00${h}${slash})`;
    })
    .join('');
}

const hex = (secret: string): string => (/^[\x20-\x7e]*$/.test(secret) ? [...secret].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('') : '');

/**
 * The part of base64 that is the same wherever the secret sits in a longer text: for each of the
 * three alignments, the characters that depend on the secret's bytes alone, standard and URL-safe.
 */
function base64Cores(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = base64(padded);
    // Skip the characters that mix in the bytes before the secret, and those that mix in what follows it.
    const start = offset === 0 ? 0 : offset === 1 ? 2 : 3;
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length < 8) continue;
    // The last character and padding (which also hold bits of the secret) go with it.
    const tail = '(?:[A-Za-z0-9+/_-]={0,2})?';
    cores.push(escapeRegExp(core) + tail, escapeRegExp(core.replace(/\+/g, '-').replace(/\//g, '_')) + tail);
  }
  return cores;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
