/**
 * The LLM agent: observation → prompt → one backend call → decoded move. It knows only the
 * ChatBackend interface. A refused answer comes back as an invalid reply with the raw output
 * (the runner then retries with the reason); a failing backend or an abort throws, which the
 * runner turns into an error or a cancelled ending.
 */
import type { BilateralAgent } from '../../core/bilateral/tournament';
import type { CallRecord } from '../../core/session';
import { BackendError, type BackendCapabilities, type ChatBackend, type ChatRequest } from '../backends/types';
import { decodeMove, MAX_RAW_LENGTH, renderRaw } from './decoder';
import { clip } from './json-text';
import { buildPrompt, promptText } from './prompt';
import { MOVE_SCHEMA_NAME, moveJsonSchema, moveTools } from './schema';

/** How moves are asked for: a JSON Schema, tools, or only the prompt's instructions. */
export type LlmMode = 'auto' | 'json' | 'tools' | 'text';

export interface LlmAgentOptions {
  /** Let the model think first (off unless asked); the thinking is kept on the event. */
  thinking?: boolean;
  temperature?: number;
  maxTokens?: number;
  /** 'auto': a JSON Schema where the backend can decode by one, else tools, else plain text. */
  mode?: LlmMode;
  /** Milliseconds, for the latency on the record (default performance.now). */
  now?: () => number;
}

/** The mode a backend is actually used in; asking for one it cannot do is a configuration error. */
export function resolveMode(mode: LlmMode, capabilities: BackendCapabilities): Exclude<LlmMode, 'auto'> {
  if (mode === 'auto') return capabilities.jsonSchema ? 'json' : capabilities.tools ? 'tools' : 'text';
  if (mode === 'json' && !capabilities.jsonSchema) throw new Error('this backend cannot decode by a JSON Schema');
  if (mode === 'tools' && !capabilities.tools) throw new Error('this backend does not take tools');
  return mode;
}

const count = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0);

export function llmAgent(backend: ChatBackend, opts: LlmAgentOptions = {}): BilateralAgent {
  const mode = resolveMode(opts.mode ?? 'auto', backend.capabilities);
  const now = opts.now ?? (() => performance.now());
  const thinking = opts.thinking ?? false;
  return {
    async act(obs, signal, retry) {
      const messages = buildPrompt(obs, { style: mode === 'tools' ? 'tools' : 'json', retry });
      const request: ChatRequest = { messages, thinking };
      if (mode === 'json') request.responseFormat = { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() };
      if (mode === 'tools') request.tools = moveTools();
      if (opts.maxTokens !== undefined) request.maxTokens = opts.maxTokens;
      if (opts.temperature !== undefined) request.temperature = opts.temperature;

      signal.throwIfAborted();
      const started = now();
      const response: unknown = await backend.complete(request, signal);
      const elapsed = now() - started;
      signal.throwIfAborted(); // an answer that arrives after a cancel is not played
      if (typeof response !== 'object' || response === null)
        throw new BackendError('bad-response', `${backend.name} returned no response`);
      const { text, toolCalls, tokensIn, tokensOut, model, latencyMs } = response as Record<string, unknown>;
      const latency = typeof latencyMs === 'number' && Number.isFinite(latencyMs) ? latencyMs : elapsed;

      const decoded = decodeMove(text, toolCalls);
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
      return decoded.ok
        ? { kind: 'move', move: decoded.move, call }
        : { kind: 'invalid', reason: decoded.reason, raw: decoded.raw, call };
    },
  };
}
