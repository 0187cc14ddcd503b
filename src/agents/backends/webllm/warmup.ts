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
  return body.response_format === undefined ? undefined : { ...body, messages: PROMPT };
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
