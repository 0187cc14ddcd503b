/**
 * A language model in a market seat (the seller, or the buyer pool) over any ChatBackend, asked as
 * the bilateral seats are (src/agents/llm/agent.ts): tools or JSON, temperature, token limit,
 * thinking, a seed per request, and every call recorded on its event. A refused answer comes back
 * as an invalid reply (the runner retries with the reason); a failing backend throws.
 */
import type { MarketAgent } from '../../../core/market/tournament';
import type { CallRecord } from '../../../core/session';
import { BackendError, DEFAULT_CONTEXT_WINDOW, MOVE_TOKENS, THINKING_MAX_TOKENS, type ChatBackend, type ChatRequest } from '../../backends/types';
import { promptTokenBudget, requestSeed, type LlmAgentOptions } from '../../llm/agent';
import { MAX_RAW_LENGTH, renderRaw } from '../../llm/decoder';
import { clip } from '../../llm/json-text';
import { promptText } from '../../llm/prompt';
import type { MarketRole } from '../../../core/market/moves';
import { buildMarketPrompt } from './prompt';
import { decodeMarketMove, MARKET_SCHEMA_NAMES, marketJsonSchema, marketTools } from './schema';

const count = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0);

/** A model seat for `role`; the options are the bilateral seat's. */
export function marketLlmAgent(backend: ChatBackend, role: MarketRole, opts: LlmAgentOptions = {}): MarketAgent {
  const moveInterface = opts.interface ?? 'tools';
  if (moveInterface === 'tools' && !backend.capabilities.tools)
    throw new Error(`${backend.name} takes no tools, so ${backend.model} cannot play the tools interface; choose the json interface`);
  const now = opts.now ?? (() => performance.now());
  const thinking = opts.thinking ?? false;
  const maxTokens = opts.maxTokens ?? (thinking ? THINKING_MAX_TOKENS : MOVE_TOKENS);
  const tools = moveInterface === 'tools' ? marketTools(role) : undefined;
  const schema = tools === undefined && backend.capabilities.jsonSchema ? marketJsonSchema(role) : undefined;
  const promptTokens = promptTokenBudget(backend.contextWindow ?? DEFAULT_CONTEXT_WINDOW, maxTokens, tools !== undefined);
  return {
    async act(obs, signal, retry) {
      if (obs.role !== role) return { kind: 'invalid', reason: `a ${role} seat was asked to play the ${obs.role}`, raw: '' };
      const messages = buildMarketPrompt(obs, { style: moveInterface, ...(retry !== undefined && { retry }), maxTokens: promptTokens });
      const request: ChatRequest = { messages, thinking, maxTokens };
      if (tools !== undefined) request.tools = tools;
      else if (schema !== undefined) request.responseFormat = { type: 'json_schema', name: MARKET_SCHEMA_NAMES[role], schema };
      if (opts.temperature !== undefined) request.temperature = opts.temperature;
      if (opts.seed !== undefined) request.seed = requestSeed(opts.seed, obs.turn, retry?.attempt ?? 0);

      signal.throwIfAborted();
      const started = now();
      const response: unknown = await backend.complete(request, signal);
      const elapsed = now() - started;
      signal.throwIfAborted();
      if (typeof response !== 'object' || response === null) throw new BackendError('bad-response', `${backend.name} returned no response`);
      const { text, toolCalls, tokensIn, tokensOut, model, latencyMs, truncated } = response as Record<string, unknown>;
      const latency = typeof latencyMs === 'number' && Number.isFinite(latencyMs) ? latencyMs : elapsed;
      const decoded = decodeMarketMove(role, text, toolCalls);
      const call: CallRecord = {
        backend: clip(backend.name, 100),
        model: clip(typeof model === 'string' && model !== '' ? model : backend.model, 300),
        latencyMs: Number.isFinite(latency) && latency > 0 ? latency : 0,
        tokensIn: count(tokensIn),
        tokensOut: count(tokensOut),
        prompt: clip(promptText(messages), MAX_RAW_LENGTH),
        raw: renderRaw(text, toolCalls),
      };
      if (decoded.thinking !== undefined) call.thinking = decoded.thinking;
      if (truncated === true) {
        const shorter = thinking ? 'think less and answer briefly' : 'answer briefly';
        return { kind: 'invalid', reason: `cut off at ${maxTokens} tokens; ${shorter}`, raw: call.raw ?? '', call };
      }
      return decoded.ok ? { kind: 'move', move: decoded.move, call } : { kind: 'invalid', reason: decoded.reason, raw: call.raw ?? decoded.raw, call };
    },
  };
}
