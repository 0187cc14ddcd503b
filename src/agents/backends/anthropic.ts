/**
 * An Anthropic Messages client (`POST {baseUrl}/v1/messages`), called straight from the browser:
 * `x-api-key`, `anthropic-version` and the header that allows direct browser access. What it
 * sends depends on the model's family (providers.ts): moves by strict tools or by
 * `output_config.format` (Claude 4.5 on), thinking budgeted or adaptive, and a temperature only
 * to the models that still take one.
 */
import { err, ok, type Result } from '../../engine/result';
import { endpoint, fetchJson, httpOptionsFor, type AnswerFault, type TransportOptions } from './http';
import { forcesTool, modelTraits, PROVIDERS, type ModelTraits } from '../providers';
import { toAnthropicSchema } from './json-schema';
import { MOVE_TOKENS, THINKING_MAX_TOKENS, type ChatBackend, type ChatRequest, type ChatResponse } from './types';
import { countOf, isRecord, splitSystem, textOf, withThinking } from './wire';

export const ANTHROPIC_BASE_URL = PROVIDERS.anthropic.baseUrl;
export const ANTHROPIC_VERSION = '2023-06-01';
/** The least thinking budget Anthropic takes. */
export const MIN_THINKING_BUDGET = 1024;
/** The effort asked of a model that thinks adaptively: enough for one move (as REASONING_EFFORT at OpenAI). */
export const ADAPTIVE_EFFORT = 'low';

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
  const traits = modelTraits('anthropic', opts.model);

  return {
    name: 'anthropic',
    model: opts.model,
    capabilities: { jsonSchema: traits.json === 'json_schema', tools: true, thinking: canThink },
    contextWindow: PROVIDERS.anthropic.contextWindow,
    async complete(request, signal) {
      const body = anthropicRequestBody(opts.model, canThink ? request : { ...request, thinking: false }, traits);
      return fetchJson(url, { method: 'POST', headers, body: JSON.stringify(body), signal }, http, parseAnthropicMessage);
    },
  };
}

/**
 * The Messages request: system prompt apart, tools as `input_schema` (strict, in Anthropic's
 * schema subset, where the family takes it, and one of them required unless the model thinks,
 * which Anthropic refuses), the JSON schema as `output_config.format` where the family decodes by
 * it, and thinking in the family's dialect. `max_tokens` is the whole answer, thinking included:
 * a budget is what the limit leaves after room for the move, and at least Anthropic's minimum (so
 * a small limit grows to hold it); adaptive thinking sizes itself, at low effort, within the limit.
 */
export function anthropicRequestBody(model: string, request: ChatRequest, traits: ModelTraits = modelTraits('anthropic', model)): Record<string, unknown> {
  const { system, rest } = splitSystem(request.messages);
  const think = request.thinking === true;
  const adaptive = traits.thinking === 'anthropic-adaptive';
  const limit = request.maxTokens ?? (think ? THINKING_MAX_TOKENS : MOVE_TOKENS);
  const budget = Math.max(MIN_THINKING_BUDGET, limit - MOVE_TOKENS);
  const body: Record<string, unknown> = {
    model,
    // Anthropic requires max_tokens, and above the thinking budget.
    max_tokens: think && !adaptive ? Math.max(limit, budget + MOVE_TOKENS) : limit,
    messages: rest.map((m) => ({ role: m.role, content: m.content })),
  };
  if (system !== '') body.system = system;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) =>
      traits.strict
        ? { name: t.name, description: t.description, input_schema: toAnthropicSchema(t.parameters), strict: true }
        : { name: t.name, description: t.description, input_schema: t.parameters },
    );
    if (forcesTool(traits.forceTool, think)) body.tool_choice = { type: 'any' };
  }
  const output: Record<string, unknown> = {};
  if (request.responseFormat && traits.json === 'json_schema')
    output.format = { type: 'json_schema', schema: toAnthropicSchema(request.responseFormat.schema) };
  if (think && adaptive) {
    body.thinking = { type: 'adaptive' };
    output.effort = ADAPTIVE_EFFORT;
  } else if (think) body.thinking = { type: 'enabled', budget_tokens: budget };
  // Anthropic refuses a temperature alongside thinking, and the models after Opus 4.6 any but
  // their own; it takes no seed.
  else if (request.temperature !== undefined && traits.temperature) body.temperature = request.temperature;
  if (Object.keys(output).length > 0) body.output_config = output;
  return body;
}

/**
 * Text blocks joined, thinking blocks before them as `<think>`, `tool_use` blocks as tool calls,
 * and a `refusal` stop as the refusal, in its `stop_details` words; no content is worth another attempt.
 */
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
  if (answer.stop_reason === 'refusal') {
    const details = isRecord(answer.stop_details) ? answer.stop_details : {};
    const words = [textOf(details.category), textOf(details.explanation)].filter((w) => w.trim() !== '').join(': ');
    response.refusal = words || texts.join('\n').trim() || 'refusal';
  }
  return ok(response);
}
