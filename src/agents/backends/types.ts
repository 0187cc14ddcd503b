/**
 * The one seam between the LLM agent and whatever answers it: WebLLM in a worker, an
 * OpenAI-compatible or Anthropic HTTP client, or the scripted fake the tests use. The agent
 * knows only this interface.
 */

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
  tools?: ToolSpec[];
  /** Let a reasoning model think before it answers (Qwen3 `enable_thinking`); off when false. */
  thinking?: boolean;
  maxTokens?: number;
  temperature?: number;
}

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
}

export interface BackendCapabilities {
  /** Honours `responseFormat` by constrained decoding. */
  jsonSchema: boolean;
  tools: boolean;
  /** Can think before answering, and can be told not to. */
  thinking: boolean;
}

export interface ChatBackend {
  /** Which kind of backend: 'webllm', 'openai', 'anthropic', 'scripted', … */
  readonly name: string;
  readonly model: string;
  readonly capabilities: BackendCapabilities;
  /** Rejects with a BackendError, or with the signal's reason once it is aborted. */
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse>;
}

export const BACKEND_ERROR_KINDS = ['http', 'timeout', 'aborted', 'gpu-lost', 'bad-response', 'rate-limited'] as const;
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

/** Everything a backend throws, but an abort by the caller's own signal. */
export class BackendError extends Error {
  override readonly name = 'BackendError';
  readonly kind: BackendErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(kind: BackendErrorKind, message: string, opts: BackendErrorOptions = {}) {
    super(redactSecrets(message, opts.redact ?? []), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

/** Replaces every occurrence of each secret (of a length worth hiding) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
