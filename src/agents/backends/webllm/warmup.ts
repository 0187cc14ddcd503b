/**
 * Compiling the move grammars before the first move. WebLLM compiles a `response_format` the
 * first time a loaded model meets it (building Qwen3's token table first, about a second) and
 * keeps it in its compiler's cache for as long as the model stays loaded, so one tiny request
 * per format the run will send pays that once, at load, rather than inside a move's latency.
 */
import type { ChatCompletionRequestNonStreaming } from '@mlc-ai/web-llm';
import type { ChatRequest } from '../types';
import { grammarMsOf, sendToWebLlm, toWebLlmRequest, type WebLlmEngineLike } from './backend';

/** The part of a seat's requests that decides the grammar: what the LLM agent's moveAsk gives. */
export type GrammarAsk = Pick<ChatRequest, 'responseFormat' | 'tools' | 'thinking'>;

export interface WarmedGrammar {
  /** The `response_format` type WebLLM compiled: json_object or structural_tag. */
  type: string;
  /** The warm-up request's whole time: the compile, a one-word prompt and one token. */
  ms: number;
  /** WebLLM's own grammar figure, where it gives one (json_object only; see grammarMsOf). */
  grammarMs?: number;
}

const PROMPT = [{ role: 'user' as const, content: 'Hi' }];

/**
 * The warm-up request for one ask: the `response_format` exactly as a move sends it (WebLLM keys
 * its grammar by it), under a one-word prompt and a one-token answer, so the request costs the
 * compile and next to nothing else. Tools stay out of the prompt: the grammar is made from the
 * format alone. Undefined for an ask without a grammar.
 */
export function warmUpRequest(modelId: string, ask: GrammarAsk): ChatCompletionRequestNonStreaming | undefined {
  const body = toWebLlmRequest({ messages: PROMPT, ...ask, maxTokens: 1 }, modelId);
  // One token past whatever WebLLM writes first (its empty think block): the grammar is made before it.
  return body.response_format === undefined ? undefined : { ...body, messages: PROMPT, max_tokens: 1 };
}

/**
 * Sends one warm-up request per distinct grammar among the asks, in order, and says what each
 * cost. `onGrammar` is told before each is sent (for the load's progress). Rejects as a move
 * would: with the signal's reason once it aborts, or with the BackendError WebLLM's failure maps to.
 */
export async function warmUpGrammars(
  engine: WebLlmEngineLike,
  modelId: string,
  asks: readonly GrammarAsk[],
  signal: AbortSignal,
  opts: { onGrammar?: (index: number, count: number) => void; now?: () => number } = {},
): Promise<WarmedGrammar[]> {
  const now = opts.now ?? (() => performance.now());
  const bodies = new Map<string, ChatCompletionRequestNonStreaming>();
  for (const ask of asks) {
    const body = warmUpRequest(modelId, ask);
    if (body) bodies.set(JSON.stringify(body.response_format), body);
  }
  const warmed: WarmedGrammar[] = [];
  for (const body of bodies.values()) {
    signal.throwIfAborted();
    opts.onGrammar?.(warmed.length, bodies.size);
    const started = now();
    const completion = await sendToWebLlm(engine, body, signal);
    const entry: WarmedGrammar = { type: body.response_format?.type ?? 'text', ms: now() - started };
    const grammarMs = grammarMsOf(completion);
    if (grammarMs !== undefined) entry.grammarMs = grammarMs;
    warmed.push(entry);
  }
  return warmed;
}

/**
 * The move formats one model's seats have asked for, and which of them each loaded engine has
 * compiled: a seat says its format when it is made (ChatBackend.prepare), the pool compiles every
 * known format when the model loads, and one that arrives later before the next move.
 */
export class GrammarSet {
  private readonly asks = new Map<string, GrammarAsk>();
  private readonly warmed = new WeakMap<object, Set<string>>();

  constructor(private readonly modelId: string) {}

  /** Adds a seat's format; one without a grammar (no tools, no schema) is nothing to compile. */
  add(ask: GrammarAsk): void {
    const key = grammarKey(this.modelId, ask);
    if (key !== undefined && !this.asks.has(key)) this.asks.set(key, ask);
  }

  /** The formats `engine` has not compiled yet. */
  pending(engine: object): GrammarAsk[] {
    const done = this.warmed.get(engine);
    return [...this.asks.entries()].filter(([key]) => !done?.has(key)).map(([, ask]) => ask);
  }

  /** Notes that `engine` compiled these formats. */
  compiled(engine: object, asks: readonly GrammarAsk[]): void {
    let done = this.warmed.get(engine);
    if (!done) this.warmed.set(engine, (done = new Set()));
    for (const ask of asks) {
      const key = grammarKey(this.modelId, ask);
      if (key !== undefined) done.add(key);
    }
  }
}

/** The format's identity as WebLLM caches its grammar: the response_format it sends. */
function grammarKey(modelId: string, ask: GrammarAsk): string | undefined {
  const body = warmUpRequest(modelId, ask);
  return body ? JSON.stringify(body.response_format) : undefined;
}
