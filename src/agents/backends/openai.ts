/**
 * An OpenAI-compatible Chat Completions client (`POST {baseUrl}/chat/completions`): OpenAI,
 * OpenRouter, Groq, Together, DeepSeek, and local Ollama, LM Studio and vLLM servers. It sends
 * only what a browser may: `Content-Type` and, with a key, `Authorization: Bearer`.
 */
import { err, ok, type Result } from '../../core/result';
import { endpoint, fetchJson, httpOptionsFor, type AnswerFault, type TransportOptions } from './http';
import type { ChatBackend, ChatRequest, ChatResponse } from './types';
import { countOf, isRecord, textOf, withThinking } from './wire';

/**
 * How a JSON answer is asked for. 'json_schema' decodes by the move's schema; 'json_object'
 * only guarantees JSON (DeepSeek, older servers: the prompt carries the shape); 'none' sends nothing.
 */
export type JsonMode = 'json_schema' | 'json_object' | 'none';

/** How the thinking switch reaches the server: Qwen3's chat template on vLLM, or not at all. */
export type ThinkingControl = 'chat_template_kwargs' | 'none';

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
  thinkingControl?: ThinkingControl;
  /** OpenAI's reasoning models refuse `max_tokens` and want `max_completion_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

export function openAiBackend(opts: OpenAiBackendOptions): ChatBackend {
  const url = endpoint(opts.baseUrl, 'chat/completions');
  const name = opts.name ?? 'openai';
  const jsonMode = opts.jsonMode ?? 'json_schema';
  const thinkingControl = opts.thinkingControl ?? 'none';
  const http = httpOptionsFor(name, opts);
  const headers: Record<string, string> = { ...opts.headers, 'Content-Type': 'application/json' };
  if (opts.apiKey) headers.Authorization = `Bearer ${opts.apiKey}`;

  return {
    name,
    model: opts.model,
    // json_object still yields JSON the decoder checks against the schema, so the agent may ask for it.
    capabilities: { jsonSchema: jsonMode !== 'none', tools: opts.tools ?? true, thinking: thinkingControl !== 'none' },
    async complete(request, signal) {
      const body = requestBody(opts.model, request, { jsonMode, thinkingControl, maxTokensField: opts.maxTokensField ?? 'max_tokens' });
      return fetchJson(url, { method: 'POST', headers, body: JSON.stringify(body), signal }, http, (answer) => parseCompletion(answer, name));
    },
  };
}

interface BodyOptions {
  jsonMode: JsonMode;
  thinkingControl: ThinkingControl;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/** The Chat Completions request for one ChatRequest. */
export function requestBody(model: string, request: ChatRequest, opts: BodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
  };
  const format = request.responseFormat;
  if (format && opts.jsonMode === 'json_schema')
    // No `strict: true`: strict mode wants every property required, and the move's are optional.
    body.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } };
  else if (format && opts.jsonMode === 'json_object') body.response_format = { type: 'json_object' };
  if (request.tools && request.tools.length > 0)
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  if (request.maxTokens !== undefined) body[opts.maxTokensField] = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (opts.thinkingControl === 'chat_template_kwargs' && request.thinking !== undefined)
    body.chat_template_kwargs = { enable_thinking: request.thinking };
  return body;
}

/**
 * The answer of a Chat Completions response: content, tool calls (arguments kept as JSON text),
 * reasoning (`reasoning_content` or `reasoning`) put before the text as `<think>…</think>`. An
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
  if (typeof answer.model === 'string' && answer.model !== '') response.model = answer.model;
  return ok(response);
}

export interface ProviderPreset {
  /** The backend's name on the record. */
  name: string;
  label: string;
  baseUrl: string;
  needsKey: boolean;
  /** Runs on the user's own machine. */
  local: boolean;
  jsonMode: JsonMode;
  tools: boolean;
  thinkingControl?: ThinkingControl;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

/**
 * Known OpenAI-compatible providers. JSON modes are the safe choice for most of each provider's
 * models (Groq, Together and DeepSeek accept `json_object` everywhere, `json_schema` only on some).
 */
export const PROVIDER_PRESETS = {
  openai: {
    name: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    local: false,
    jsonMode: 'json_schema',
    tools: true,
    maxTokensField: 'max_completion_tokens',
  },
  openrouter: {
    name: 'openrouter',
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    needsKey: true,
    local: false,
    jsonMode: 'json_schema',
    tools: true,
  },
  groq: {
    name: 'groq',
    label: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    needsKey: true,
    local: false,
    jsonMode: 'json_object',
    tools: true,
  },
  together: {
    name: 'together',
    label: 'Together AI',
    baseUrl: 'https://api.together.ai/v1',
    needsKey: true,
    local: false,
    jsonMode: 'json_object',
    tools: true,
  },
  deepseek: {
    name: 'deepseek',
    label: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    needsKey: true,
    local: false,
    jsonMode: 'json_object',
    tools: true,
  },
  ollama: {
    name: 'ollama',
    label: 'Ollama',
    baseUrl: 'http://localhost:11434/v1',
    needsKey: false,
    local: true,
    jsonMode: 'json_schema',
    tools: true,
  },
  lmstudio: {
    name: 'lmstudio',
    label: 'LM Studio',
    baseUrl: 'http://localhost:1234/v1',
    needsKey: false,
    local: true,
    jsonMode: 'json_schema',
    tools: true,
  },
  vllm: {
    name: 'vllm',
    label: 'vLLM',
    baseUrl: 'http://localhost:8000/v1',
    needsKey: false,
    local: true,
    jsonMode: 'json_schema',
    tools: true,
    thinkingControl: 'chat_template_kwargs',
  },
} as const satisfies Record<string, ProviderPreset>;

export type ProviderId = keyof typeof PROVIDER_PRESETS;
export const PROVIDER_IDS = Object.keys(PROVIDER_PRESETS) as ProviderId[];

/** A backend for a known provider; `overrides` may change anything, the base URL included. */
export function presetBackend(
  id: ProviderId,
  opts: { model: string; apiKey?: string } & Partial<Omit<OpenAiBackendOptions, 'model' | 'apiKey'>>,
): ChatBackend {
  const { label: _label, needsKey: _needsKey, local: _local, ...preset }: ProviderPreset = PROVIDER_PRESETS[id];
  return openAiBackend({ ...preset, ...opts });
}
