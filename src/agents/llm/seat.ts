/**
 * A seat played by a language model, for any game: observation → prompt → one backend call →
 * decoded move. It knows only the ChatBackend interface and what the game gives it (ModelSeatGame).
 * A refused answer comes back as an invalid reply with the raw output (the runner then retries
 * with the reason); a failing backend or an abort throws, which the runner turns into an error or
 * a cancelled ending.
 */
import { deriveSeed } from '../../engine/rng';
import type { Agent, CallRecord, Retry } from '../../engine/session';
import {
  BackendError,
  DEFAULT_CONTEXT_WINDOW,
  type BackendCapabilities,
  latencyOf,
  MOVE_TOKENS,
  THINKING_MAX_TOKENS,
  tokenCount,
  type ChatBackend,
  type ChatMessage,
  type ChatRequest,
  type ToolSpec,
} from '../backends/types';
import type { Problem } from '../../engine/errors';
import { renderRaw, type Decoding } from './answer';
import { clip } from './json-text';
import { answerProblem } from './problems';
import { TextBudget } from './record';
import type { MoveInterface } from './settings';

export interface LlmAgentOptions {
  /**
   * How moves are asked for (default 'tools'); a backend without tools cannot play 'tools'. On a
   * backend without schema decoding (Anthropic's models before Claude 4.5), 'json' asks for the
   * JSON by the prompt alone.
   */
  interface?: MoveInterface;
  /** Let the model think first (off unless asked); the thinking is kept on the event. */
  thinking?: boolean;
  temperature?: number;
  /** Tokens per answer, thinking included (default MOVE_TOKENS, or THINKING_MAX_TOKENS when thinking). */
  maxTokens?: number;
  /** The seat's seed: each request's seed is derived from it, the turn and the attempt. */
  seed?: number;
  /** Milliseconds, for the latency on the record (default performance.now). */
  now?: () => number;
}

/** A refused answer's reason is kept short: it goes on the event and back to the model. */
const MAX_REASON_LENGTH = 500;
/** Of a provider's refusal, this much of its words is kept in the reason. */
const MAX_REFUSAL_WORDS = 300;
const reasonOf = (problem: Problem): string => clip(problem.message, MAX_REASON_LENGTH);

/** What the chat template adds around the two messages (Qwen3's ChatML markers and empty think block), with room to spare. */
const TEMPLATE_TOKENS = 32;
/**
 * Tokens the move tools take once a chat template writes them into the prompt: Qwen3's template
 * makes 599 of them for the bilateral game's four, with its "# Tools" preamble (the context-budget
 * test counts them with Qwen3's tokenizer and keeps this above), with room for another server's
 * wording. The strict schemas (null for an absent field, price bounds) took it from 517.
 */
export const MOVE_TOOLS_TOKENS = 640;

/** Tokens the prompt may take: what the window leaves after the answer, the chat template and the tools. */
export const promptTokenBudget = (contextWindow: number, maxTokens: number, tools: boolean): number =>
  contextWindow - maxTokens - TEMPLATE_TOKENS - (tools ? MOVE_TOOLS_TOKENS : 0);

/** A request's sampling seed: 31 bits, which every provider that takes a seed accepts. */
export const requestSeed = (seatSeed: number, turn: number, attempt: number): number => deriveSeed(seatSeed, 'llm', turn, attempt) & 0x7fffffff;

/** What a game gives a model seat: how to ask for its moves and how to read an answer. */
export interface ModelSeatGame<Obs extends { turn: number }, Mv> {
  tools(): ToolSpec[];
  jsonSchema(): Record<string, unknown>;
  schemaName: string;
  prompt(obs: Obs, opts: { style: MoveInterface; retry?: Retry; maxTokens: number }): ChatMessage[];
  decode(text: unknown, toolCalls: unknown): Decoding<Mv>;
  /** Why the seat cannot answer this observation at all (asked before any call), or null. */
  refuse?(obs: Obs): Problem | null;
}

/** What shapes a seat's answers, the same in every request it sends: thinking, and the move tools or the move's JSON Schema. */
export type MoveAsk = Pick<ChatRequest, 'thinking' | 'tools' | 'responseFormat'>;

/**
 * The move tools (the tools interface) or the move's JSON Schema (json, where the backend
 * decodes by schema), and thinking, as a seat asks for every move. A WebLLM warm-up sends the
 * same, so that the grammar it compiles is the one the moves use (webllm/warmup.ts).
 */
export function moveAsk(
  capabilities: BackendCapabilities,
  game: Pick<ModelSeatGame<never, unknown>, 'tools' | 'jsonSchema' | 'schemaName'>,
  opts: Pick<LlmAgentOptions, 'interface' | 'thinking'> = {},
): MoveAsk {
  const ask: MoveAsk = { thinking: opts.thinking ?? false };
  if ((opts.interface ?? 'tools') === 'tools') ask.tools = game.tools();
  else if (capabilities.jsonSchema) ask.responseFormat = { type: 'json_schema', name: game.schemaName, schema: game.jsonSchema() };
  return ask;
}

/**
 * A seat played by a model over any backend, for any game: one call a move, recorded on its event.
 * Each seat is made for one negotiation, and keeps its model text within that negotiation's budget
 * (record.ts); every figure a backend reports is checked before it enters the record.
 */
export function modelSeat<Obs extends { turn: number }, Mv>(backend: ChatBackend, game: ModelSeatGame<Obs, Mv>, opts: LlmAgentOptions = {}): Agent<Obs, Mv> {
  const moveInterface = opts.interface ?? 'tools';
  if (moveInterface === 'tools' && !backend.capabilities.tools)
    throw new Error(`${backend.name} takes no tools, so ${backend.model} cannot play the tools interface; choose the json interface`);
  const now = opts.now ?? (() => performance.now());
  const thinking = opts.thinking ?? false;
  const maxTokens = opts.maxTokens ?? (thinking ? THINKING_MAX_TOKENS : MOVE_TOKENS);
  // The tools or the move's JSON Schema, made once per agent rather than once per move.
  const ask = moveAsk(backend.capabilities, game, opts);
  backend.prepare?.(ask);
  const promptTokens = promptTokenBudget(backend.contextWindow ?? DEFAULT_CONTEXT_WINDOW, maxTokens, ask.tools !== undefined);
  const budget = new TextBudget();
  return {
    async act(obs, signal, retry) {
      const refused = game.refuse?.(obs) ?? null;
      if (refused !== null) return { kind: 'invalid', reason: refused.message, raw: '' };
      const messages = game.prompt(obs, { style: moveInterface, ...(retry !== undefined && { retry }), maxTokens: promptTokens });
      const request: ChatRequest = { messages, ...ask, maxTokens };
      if (opts.temperature !== undefined) request.temperature = opts.temperature;
      if (opts.seed !== undefined) request.seed = requestSeed(opts.seed, obs.turn, retry?.attempt ?? 0);

      signal.throwIfAborted();
      const started = now();
      let response: unknown;
      try {
        response = await backend.complete(request, signal);
      } catch (e) {
        // An answer too long to read, or a WebLLM move past its time limit (the model on this
        // device stalled; the engine was freed), is the model's failure to answer, played as an
        // invalid one. A remote timeout is the network's, an error.
        const noAnswer = e instanceof BackendError && (e.kind === 'too-large' || (e.kind === 'timeout' && backend.name === 'webllm'));
        if (!noAnswer || signal.aborted) throw e;
        const call = withPrompt(callRecord(now() - started, {}), messages);
        return { kind: 'invalid', reason: reasonOf(answerProblem('no-answer', { error: e.message })), raw: '', call };
      }
      const elapsed = now() - started;
      signal.throwIfAborted(); // an answer that arrives after a cancel is not played
      if (typeof response !== 'object' || response === null) throw new BackendError('bad-response', `${backend.name} returned no response`);
      const answer = response as Record<string, unknown>;
      const { text, toolCalls, truncated, refusal } = answer;

      const decoded = game.decode(text, toolCalls);
      // Kept in this order while the budget lasts: the answer, its thinking, then the prompt (which can be rebuilt).
      const raw = budget.keep(renderRaw(text, toolCalls));
      const call = callRecord(elapsed, answer);
      if (decoded.thinking !== undefined) call.thinking = budget.keep(decoded.thinking);
      withPrompt(call, messages);
      // A refusal is no move, whatever text came with it; nor is an answer stopped at the limit,
      // whatever part of it reads as one.
      if (typeof refusal === 'string')
        return {
          kind: 'invalid',
          reason: reasonOf(answerProblem('refused', { provider: backend.name, words: clip(refusal.trim() || 'no reason given', MAX_REFUSAL_WORDS) })),
          raw,
          call,
        };
      // An invalid answer's raw text is kept once, on its event, and not again on its call.
      if (truncated === true) return { kind: 'invalid', reason: reasonOf(answerProblem('cut-off', { tokens: maxTokens, thinking })), raw, call };
      if (!decoded.ok) return { kind: 'invalid', reason: reasonOf(decoded.error), raw, call };
      // The raw answer as the call recorded it (tool calls included), whatever the decoder kept.
      call.raw = raw;
      return { kind: 'move', move: decoded.value, call };
    },
  };

  /**
   * A call's record: names clipped, every figure checked. The latency is the backend's own where
   * it times itself, less the time it says went to compiling the grammar, which is kept apart
   * (`grammarMs`, where it reached a millisecond: below that a cached grammar was only reset).
   * WebLLM compiles while the prompt's prefill runs, so on a move that compiled, what is left is
   * at most the model's own time.
   */
  function callRecord(elapsed: number, answer: Record<string, unknown>): CallRecord {
    const { tokensIn, tokensOut, model, latencyMs } = answer;
    const total = latencyOf(typeof latencyMs === 'number' && Number.isFinite(latencyMs) ? latencyMs : elapsed);
    const { grammarMs } = answer;
    const grammar = typeof grammarMs === 'number' && Number.isFinite(grammarMs) ? Math.min(total, latencyOf(grammarMs)) : 0;
    const call: CallRecord = {
      backend: clip(backend.name, 100),
      model: clip(typeof model === 'string' && model !== '' ? model : backend.model, 300),
      latencyMs: total - grammar,
      tokensIn: tokenCount(tokensIn),
      tokensOut: tokenCount(tokensOut),
    };
    if (grammar >= 1) call.grammarMs = grammar;
    return call;
  }

  /** The prompt on the call, if it fits whole in what the budget leaves. */
  function withPrompt(call: CallRecord, messages: ChatMessage[]): CallRecord {
    const prompt = budget.keepWhole(promptText(messages));
    if (prompt !== undefined) call.prompt = prompt;
    return call;
  }
}

/** A prompt as one text, for the record. */
export const promptText = (messages: readonly ChatMessage[]): string => messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
