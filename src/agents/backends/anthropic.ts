/**
 * An Anthropic Messages client (`POST {baseUrl}/v1/messages`), called straight from the browser:
 * `x-api-key`, `anthropic-version` and the header that allows direct browser access. Moves come
 * by tools (Anthropic has no JSON-schema decoding here); thinking is extended thinking.
 */
import { err, ok, type Result } from '../../engine/result';
import { endpoint, fetchJson, httpOptionsFor, type AnswerFault, type TransportOptions } from './http';
import { PROVIDERS } from '../providers';
import { MOVE_TOKENS, THINKING_MAX_TOKENS, type ChatBackend, type ChatRequest, type ChatResponse } from './types';
import { countOf, isRecord, splitSystem, textOf, withThinking } from './wire';

export const ANTHROPIC_BASE_URL = PROVIDERS.anthropic.baseUrl;
export const ANTHROPIC_VERSION = '2023-06-01';
/** The least thinking budget Anthropic takes. */
export const MIN_THINKING_BUDGET = 1024;

export interface AnthropicBackendOptions extends TransportOptions {
  model: string;
  /** Default https://api.anthropic.com; `/v1/messages` is added. */
  baseUrl?: string;
  /** Whether the model may be told to think (extended thinking, Claude 3.7 and later); default true. */
  thinking?: boolean;
}

export function anthropicBackend(opts: AnthropicBackendOptions): ChatBackend {
  const url = endpoint(opts.baseUrl ?? ANTHROPIC_BASE_URL, 'v1/messages');
  const http = httpOptionsFor('anthropic', opts);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    'anthropic-dangerous-direct-browser-access': 'true',
  };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  const canThink = opts.thinking ?? true;

  return {
    name: 'anthropic',
    model: opts.model,
    capabilities: { jsonSchema: false, tools: true, thinking: canThink },
    contextWindow: PROVIDERS.anthropic.contextWindow,
    async complete(request, signal) {
      const body = anthropicRequestBody(opts.model, canThink ? request : { ...request, thinking: false });
      return fetchJson(url, { method: 'POST', headers, body: JSON.stringify(body), signal }, http, parseAnthropicMessage);
    },
  };
}

/**
 * The Messages request: system prompt apart, tools as `input_schema`, extended thinking when asked.
 * `max_tokens` is the whole answer, thinking included: its budget is what the limit leaves after
 * room for the move, and at least Anthropic's minimum (so a small limit grows to hold it).
 */
export function anthropicRequestBody(model: string, request: ChatRequest): Record<string, unknown> {
  const { system, rest } = splitSystem(request.messages);
  const think = request.thinking === true;
  const limit = request.maxTokens ?? (think ? THINKING_MAX_TOKENS : MOVE_TOKENS);
  const budget = Math.max(MIN_THINKING_BUDGET, limit - MOVE_TOKENS);
  const body: Record<string, unknown> = {
    model,
    // Anthropic requires max_tokens, and above the thinking budget.
    max_tokens: think ? Math.max(limit, budget + MOVE_TOKENS) : limit,
    messages: rest.map((m) => ({ role: m.role, content: m.content })),
  };
  if (system !== '') body.system = system;
  if (request.tools && request.tools.length > 0)
    body.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (think) body.thinking = { type: 'enabled', budget_tokens: budget };
  // Anthropic refuses a temperature alongside extended thinking, and takes no seed.
  else if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}

/** Text blocks joined, thinking blocks before them as `<think>`, `tool_use` blocks as tool calls; no content is worth another attempt. */
export function parseAnthropicMessage(answer: unknown): Result<ChatResponse, AnswerFault> {
  if (!isRecord(answer) || !Array.isArray(answer.content)) return err({ kind: 'bad-response', message: 'anthropic: the answer has no content', retry: true });
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: { name: string; arguments: string }[] = [];
  for (const block of answer.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text') texts.push(textOf(block.text));
    else if (block.type === 'thinking') thoughts.push(textOf(block.thinking));
    else if (block.type === 'tool_use') toolCalls.push({ name: textOf(block.name), arguments: JSON.stringify(block.input ?? {}) });
  }
  const usage = isRecord(answer.usage) ? answer.usage : {};
  const response: ChatResponse = {
    text: withThinking(thoughts.join('\n\n'), texts.join('\n')),
    // Cached input is still input: the prompt's full size is what it cost to send.
    tokensIn: countOf(usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens),
    tokensOut: countOf(usage.output_tokens),
  };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (typeof answer.model === 'string' && answer.model !== '') response.model = answer.model;
  if (answer.stop_reason === 'max_tokens') response.truncated = true;
  return ok(response);
}
