/**
 * A Gemini client (`POST {baseUrl}/v1beta/models/{model}:generateContent`, key in
 * `x-goog-api-key`). Moves by `responseSchema` (Gemini's OpenAPI-subset dialect, converted here)
 * or by function declarations, a call to one of them required (function calling mode ANY).
 */
import { err, ok, type Result } from '../../engine/result';
import { endpoint, fetchJson, httpOptionsFor, type AnswerFault, type TransportOptions } from './http';
import { forcesTool, PROVIDERS } from '../providers';
import { MOVE_TOKENS, THINKING_MAX_TOKENS, type ChatBackend, type ChatRequest, type ChatResponse } from './types';
import { countOf, isRecord, splitSystem, textOf, withThinking } from './wire';

export const GEMINI_BASE_URL = PROVIDERS.gemini.baseUrl;
/** The least thinking budget every Gemini 2.5 model takes (Flash-Lite's floor). */
export const MIN_THINKING_BUDGET = 512;

export interface GeminiBackendOptions extends TransportOptions {
  /** e.g. gemini-2.5-flash (a leading `models/` is dropped). */
  model: string;
  /** Default https://generativelanguage.googleapis.com; `/v1beta/models/…` is added. */
  baseUrl?: string;
  /**
   * Whether the model may be told to think and not to (default true): a request that thinks
   * sends a thinking budget, one that does not sends a budget of 0, which Gemini 2.5 Flash takes
   * (2.5 Pro always thinks, so it needs `+think`). False sends nothing about thinking.
   */
  thinking?: boolean;
}

export function geminiBackend(opts: GeminiBackendOptions): ChatBackend {
  const model = opts.model.replace(/^models\//, '');
  const url = endpoint(opts.baseUrl ?? GEMINI_BASE_URL, `v1beta/models/${encodeURIComponent(model)}:generateContent`);
  const http = httpOptionsFor('gemini', opts);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (opts.apiKey) headers['x-goog-api-key'] = opts.apiKey;
  const thinking = opts.thinking ?? true;

  return {
    name: 'gemini',
    model,
    capabilities: { jsonSchema: true, tools: true, thinking },
    contextWindow: PROVIDERS.gemini.contextWindow,
    async complete(request, signal) {
      const body = geminiRequestBody(request, thinking);
      return fetchJson(url, { method: 'POST', headers, body: JSON.stringify(body), signal }, http, parseGeminiResponse);
    },
  };
}

export function geminiRequestBody(request: ChatRequest, thinking: boolean): Record<string, unknown> {
  const { system, rest } = splitSystem(request.messages);
  const body: Record<string, unknown> = {
    contents: rest.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
  };
  if (system !== '') body.systemInstruction = { parts: [{ text: system }] };
  if (request.tools && request.tools.length > 0)
    body.tools = [
      {
        functionDeclarations: request.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parameters: toGeminiSchema(t.parameters),
        })),
      },
    ];
  // ANY: a function call, never prose (none of the declarations named, so any one of them).
  if (request.tools && request.tools.length > 0 && forcesTool(PROVIDERS.gemini.forceTool, request.thinking === true))
    body.toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  const config: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.responseFormat) {
    config.responseMimeType = 'application/json';
    config.responseSchema = toGeminiSchema(request.responseFormat.schema);
  }
  if (request.seed !== undefined) config.seed = request.seed;
  if (thinking && request.thinking !== undefined)
    // maxOutputTokens holds the thoughts too, so the budget is what the limit leaves for them.
    config.thinkingConfig = request.thinking
      ? { thinkingBudget: Math.max(MIN_THINKING_BUDGET, (request.maxTokens ?? THINKING_MAX_TOKENS) - MOVE_TOKENS), includeThoughts: true }
      : { thinkingBudget: 0 };
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/** Keywords Gemini's Schema object has; anything else (`$schema`, `additionalProperties`, `$ref`, …) is refused by it. */
const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'propertyOrdering',
  'items',
  'minItems',
  'maxItems',
  'anyOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
]);

/**
 * A JSON Schema in Gemini's dialect: unknown keywords dropped, `const` as a one-value `enum`,
 * `type: [T, "null"]` as `nullable`, types upper-cased, and properties kept in their order.
 */
export function toGeminiSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'const') out.enum = [String(value)];
    else if (!GEMINI_KEYWORDS.has(key)) continue;
    else if (key === 'type') Object.assign(out, geminiType(value));
    else if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toGeminiSchema(v)]));
      if (!('propertyOrdering' in schema)) out.propertyOrdering = Object.keys(value);
    } else if (key === 'items') out.items = toGeminiSchema(value);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map(toGeminiSchema);
    else if (key === 'enum' && Array.isArray(value)) out.enum = value.map(String);
    else out[key] = value;
  }
  return out;
}

function geminiType(type: unknown): Record<string, unknown> {
  if (typeof type === 'string') return { type: type.toUpperCase() };
  if (!Array.isArray(type)) return {};
  const named = type.filter((t): t is string => typeof t === 'string' && t !== 'null');
  const out: Record<string, unknown> = named.length === 1 ? { type: (named[0] as string).toUpperCase() } : {};
  if (type.includes('null')) out.nullable = true;
  return out;
}

/** Finish reasons that mean Gemini declined to answer (a safety or content filter), not that it ran out or erred. */
export const GEMINI_REFUSALS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);

/**
 * The first candidate's parts: thoughts before the text as `<think>`, function calls as tool
 * calls, and a refusal (a filter's finish reason, or a blocked prompt) as `refusal`. No candidate
 * at all, unblocked, is worth another attempt.
 */
export function parseGeminiResponse(answer: unknown): Result<ChatResponse, AnswerFault> {
  if (!isRecord(answer)) return err({ kind: 'bad-response', message: 'gemini answered with no JSON object', retry: true });
  const usage = isRecord(answer.usageMetadata) ? answer.usageMetadata : {};
  const tokens = {
    tokensIn: countOf(usage.promptTokenCount),
    // Thinking is billed as output.
    tokensOut: countOf(usage.candidatesTokenCount, usage.thoughtsTokenCount),
  };
  const candidate = Array.isArray(answer.candidates) ? (answer.candidates[0] as unknown) : undefined;
  if (!isRecord(candidate)) {
    const feedback = isRecord(answer.promptFeedback) ? answer.promptFeedback : {};
    const blocked = textOf(feedback.blockReason);
    if (blocked === '') return err({ kind: 'bad-response', message: 'gemini answered with no candidate', retry: true });
    // The prompt itself was blocked: the model's refusal to answer, played as one.
    const response: ChatResponse = { text: '', ...tokens, refusal: textOf(feedback.blockReasonMessage).trim() || `prompt blocked (${blocked})` };
    if (typeof answer.modelVersion === 'string' && answer.modelVersion !== '') response.model = answer.modelVersion;
    return ok(response);
  }
  const parts = isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? (candidate.content.parts as unknown[]) : [];
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: { name: string; arguments: string }[] = [];
  for (const part of parts) {
    if (!isRecord(part)) continue;
    if (isRecord(part.functionCall)) toolCalls.push({ name: textOf(part.functionCall.name), arguments: JSON.stringify(part.functionCall.args ?? {}) });
    else if (part.thought === true) thoughts.push(textOf(part.text));
    else texts.push(textOf(part.text));
  }
  const response: ChatResponse = { text: withThinking(thoughts.join('\n\n'), texts.join('')), ...tokens };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (typeof answer.modelVersion === 'string' && answer.modelVersion !== '') response.model = answer.modelVersion;
  const finish = textOf(candidate.finishReason);
  if (finish === 'MAX_TOKENS') response.truncated = true;
  if (GEMINI_REFUSALS.has(finish)) response.refusal = textOf(candidate.finishMessage).trim() || finish;
  return ok(response);
}
