/**
 * An OpenAI-compatible Chat Completions client (`POST {baseUrl}/chat/completions`): OpenAI,
 * OpenRouter, Groq, Together, DeepSeek, and local Ollama, LM Studio, vLLM and SGLang servers. It sends
 * only what a browser may: `Content-Type` and, with a key, `Authorization: Bearer`.
 */
import { assertNever, err, ok, type Result } from '../../engine/result';
import { forcesTool, modelTraits, PROVIDERS, type ForceTool, type JsonMode, type OpenAiCompatibleProvider, type ThinkingDialect } from '../providers';
import { strictReady } from './json-schema';
import { endpoint, fetchJson, httpOptionsFor, type AnswerFault, type TransportOptions } from './http';
import { DEFAULT_CONTEXT_WINDOW, type ChatBackend, type ChatRequest, type ChatResponse } from './types';
import { countOf, isRecord, textOf, withThinking } from './wire';

export interface OpenAiBackendOptions extends TransportOptions {
  /** e.g. https://api.openai.com/v1; `/chat/completions` is added. */
  baseUrl: string;
  model: string;
  /** Further headers some providers welcome (OpenRouter's `HTTP-Referer`, `X-Title`). */
  headers?: Record<string, string>;
  /** Names the backend on the record (default 'openai'). */
  name?: string;
  jsonMode?: JsonMode;
  /** Whether the model takes function tools (default true). */
  tools?: boolean;
  /** How thinking is switched on and off (default: it cannot be). */
  thinking?: ThinkingDialect;
  /** Whether the server takes a sampling `seed` (default false). */
  seed?: boolean;
  /** Sends `strict: true` with a schema strict mode takes (default false). */
  strict?: boolean;
  /** When the tools interface sends `tool_choice: "required"` (default never). */
  forceTool?: ForceTool;
  /** The model's temperature is its own: none is sent (default false). */
  fixedTemperature?: boolean;
  /** OpenAI's reasoning models refuse `max_tokens` and want `max_completion_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Tokens of context its models hold (default DEFAULT_CONTEXT_WINDOW). */
  contextWindow?: number;
}

export function openAiBackend(opts: OpenAiBackendOptions): ChatBackend {
  const url = endpoint(opts.baseUrl, 'chat/completions');
  const name = opts.name ?? 'openai';
  const body: BodyOptions = {
    jsonMode: opts.jsonMode ?? 'json_schema',
    thinking: opts.thinking ?? 'none',
    seed: opts.seed ?? false,
    maxTokensField: opts.maxTokensField ?? 'max_tokens',
    strict: opts.strict ?? false,
    forceTool: opts.forceTool ?? 'never',
    fixedTemperature: opts.fixedTemperature ?? false,
  };
  const http = httpOptionsFor(name, opts);
  const headers: Record<string, string> = { ...opts.headers, 'Content-Type': 'application/json' };
  if (opts.apiKey) headers.Authorization = `Bearer ${opts.apiKey}`;

  return {
    name,
    model: opts.model,
    // json_object still yields JSON the decoder checks against the schema, so the agent may ask for it.
    capabilities: { jsonSchema: body.jsonMode !== 'none', tools: opts.tools ?? true, thinking: body.thinking !== 'none' },
    contextWindow: opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    async complete(request, signal) {
      const sent = requestBody(opts.model, request, body);
      return fetchJson(url, { method: 'POST', headers, body: JSON.stringify(sent), signal }, http, (answer) => parseCompletion(answer, name));
    },
  };
}

interface BodyOptions {
  jsonMode: JsonMode;
  thinking: ThinkingDialect;
  seed: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  strict: boolean;
  forceTool: ForceTool;
  fixedTemperature: boolean;
}

/** The effort asked of a reasoning model that is told to think: enough for one move. */
export const REASONING_EFFORT = 'low';

/** The fields that turn thinking on or off in each OpenAI-compatible dialect; none where it says nothing. */
function thinkingFields(dialect: ThinkingDialect, thinking: boolean | undefined): Record<string, unknown> {
  if (thinking === undefined) return {};
  switch (dialect) {
    case 'reasoning-effort':
      // A model without reasoning refuses the field, so "off" is its absence.
      return thinking ? { reasoning_effort: REASONING_EFFORT } : {};
    case 'openrouter-reasoning':
      return { reasoning: { effort: thinking ? REASONING_EFFORT : 'none' } };
    case 'deepseek-thinking':
      return { thinking: { type: thinking ? 'enabled' : 'disabled' } };
    case 'ollama-think':
      // Ollama's /v1 endpoint reads `think` from reasoning_effort: "none" is false, a level is true.
      return { reasoning_effort: thinking ? REASONING_EFFORT : 'none' };
    case 'chat-template-kwargs':
      return { chat_template_kwargs: { enable_thinking: thinking } };
    case 'anthropic-budget':
    case 'anthropic-adaptive':
    case 'gemini-thinking-config':
    case 'none':
      return {};
    default:
      return assertNever(dialect);
  }
}

/** The Chat Completions request for one ChatRequest. */
export function requestBody(model: string, request: ChatRequest, opts: BodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
  };
  const format = request.responseFormat;
  // Strict mode wants every property required and no others: a looser schema goes unflagged.
  const strict = (schema: object) => (opts.strict && strictReady(schema) ? { strict: true } : {});
  if (format && opts.jsonMode === 'json_schema')
    body.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, ...strict(format.schema) } };
  else if (format && opts.jsonMode === 'json_object') body.response_format = { type: 'json_object' };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters, ...strict(t.parameters) },
    }));
    // Else a model may answer the tools interface in prose.
    if (forcesTool(opts.forceTool, request.thinking === true)) body.tool_choice = 'required';
  }
  if (request.maxTokens !== undefined) body[opts.maxTokensField] = request.maxTokens;
  // OpenAI's reasoning models refuse any temperature but their own.
  const reasoning = opts.thinking === 'reasoning-effort' && request.thinking === true;
  if (request.temperature !== undefined && !reasoning && !opts.fixedTemperature) body.temperature = request.temperature;
  if (opts.seed && request.seed !== undefined) body.seed = request.seed;
  Object.assign(body, thinkingFields(opts.thinking, request.thinking));
  return body;
}

/**
 * The answer of a Chat Completions response: content, tool calls (arguments kept as JSON text),
 * reasoning (`reasoning_content` or `reasoning`) put before the text as `<think>…</think>`, and a
 * refusal (`message.refusal`, or `finish_reason: "content_filter"`) as `refusal`. An
 * answer with no message is worth another attempt, as is an upstream failure reported in a 200
 * (OpenRouter) unless its code says the request itself was wrong.
 */
export function parseCompletion(answer: unknown, provider: string): Result<ChatResponse, AnswerFault> {
  if (!isRecord(answer)) return err({ kind: 'bad-response', message: `${provider} answered with no JSON object`, retry: true });
  const choice = Array.isArray(answer.choices) ? (answer.choices[0] as unknown) : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(message)) {
    const error = isRecord(answer.error) ? answer.error : undefined;
    const said = error ? textOf(error.message) : '';
    if (!said) return err({ kind: 'bad-response', message: `${provider}: the answer has no message`, retry: true });
    const code = error?.code;
    const clientError = typeof code === 'number' && code >= 400 && code < 500 && code !== 408 && code !== 429;
    return err({ kind: 'http', message: `${provider}: ${said}`, retry: !clientError });
  }
  const toolCalls: { name: string; arguments: string }[] = [];
  if (Array.isArray(message.tool_calls))
    for (const call of message.tool_calls as unknown[]) {
      const fn = isRecord(call) ? call.function : undefined;
      if (!isRecord(fn)) continue;
      const args = fn.arguments;
      // Ollama sends the arguments as an object; the interface carries JSON text.
      toolCalls.push({ name: textOf(fn.name), arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
    }
  const thinking = textOf(message.reasoning_content) || textOf(message.reasoning);
  const usage = isRecord(answer.usage) ? answer.usage : {};
  const response: ChatResponse = {
    text: withThinking(thinking, textOf(message.content)),
    tokensIn: countOf(usage.prompt_tokens),
    tokensOut: countOf(usage.completion_tokens),
  };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  const finish = isRecord(choice) ? choice.finish_reason : undefined;
  if (finish === 'length') response.truncated = true;
  // OpenAI's refusal comes in its own field, a content filter as the finish reason; either is no move.
  const refusal = textOf(message.refusal).trim();
  if (refusal !== '' || finish === 'content_filter') response.refusal = refusal || 'content_filter';
  if (typeof answer.model === 'string' && answer.model !== '') response.model = answer.model;
  return ok(response);
}

/** A backend for a known OpenAI-compatible provider, as the provider table describes it and its model's family; `overrides` may change anything, the base URL included. */
export function presetBackend(
  id: OpenAiCompatibleProvider,
  opts: { model: string; apiKey?: string } & Partial<Omit<OpenAiBackendOptions, 'model' | 'apiKey'>>,
): ChatBackend {
  const p = PROVIDERS[id];
  const traits = modelTraits(id, opts.model);
  return openAiBackend({
    name: id,
    baseUrl: p.baseUrl,
    jsonMode: traits.json,
    tools: p.tools,
    thinking: traits.thinking,
    seed: p.seed,
    strict: traits.strict,
    forceTool: traits.forceTool,
    fixedTemperature: !traits.temperature,
    maxTokensField: p.maxTokensField,
    contextWindow: p.contextWindow,
    ...opts,
  });
}
