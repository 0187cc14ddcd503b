/**
 * WebLLM behind the ChatBackend seam. The backend needs only an engine's
 * `chat.completions.create` and `interruptGenerate`: the engine worker's from `loadEngine`, an
 * in-page MLCEngine, or a test's fake. Only WebLLM's types are imported here.
 */
import type { ChatCompletion, ChatCompletionRequestNonStreaming, MLCEngineInterface } from '@mlc-ai/web-llm';
import type { BackendCapabilities, ChatBackend, ChatRequest, ChatResponse } from '../types';
import { BackendError } from '../types';
import { generationError } from './errors';
import { moveResponseFormat, readToolCalls, withTools } from './grammar';

/** The part of a WebLLM engine the backend uses; both MLCEngine and WebWorkerMLCEngine have it. */
export interface WebLlmEngineLike extends Pick<MLCEngineInterface, 'interruptGenerate'> {
  chat: { completions: { create(request: ChatCompletionRequestNonStreaming): Promise<ChatCompletion> } };
}

export interface WebLlmBackendOptions {
  engine: WebLlmEngineLike;
  /** WebLLM's model_id; sent with every request, so one engine may hold both seats' models. */
  modelId: string;
}

/** Tools are taken as Qwen3 takes them: in the prompt, with the call's format forced by the grammar. */
export const WEBLLM_CAPABILITIES: Readonly<BackendCapabilities> = Object.freeze({ jsonSchema: true, tools: true, thinking: true });

/**
 * Whether a model is a Qwen3 build, for which WebLLM's `enable_thinking` switch is meant: every
 * built-in model, and a custom one whose name says "qwen3" (in any case). WebLLM acts on the
 * switch whatever the model (false writes Qwen3's empty think block into the answer), and a
 * custom model's record names no family, so its name is what there is to go by.
 */
export const isQwen3Model = (modelId: string): boolean => /qwen3/i.test(modelId);

/** Qwen3's tokens for the empty think block WebLLM writes when thinking is off ("<think>\n\n</think>\n\n"). */
export const EMPTY_THINK_TOKENS = 4;

/**
 * The WebLLM request for one ChatRequest. WebLLM refuses `tools` for Qwen3, so tools go into the
 * system message and the grammar (moveResponseFormat) makes the answer one call of them.
 */
export function toWebLlmRequest(request: ChatRequest, modelId: string): ChatCompletionRequestNonStreaming {
  const thinking = request.thinking ?? false;
  const tools = request.tools ?? [];
  const body: ChatCompletionRequestNonStreaming = {
    model: modelId,
    messages: (tools.length > 0 ? withTools(request.messages, tools) : request.messages).map((m) => ({ role: m.role, content: m.content })),
    stream: false,
  };
  // false makes WebLLM open the answer with an empty <think></think>, so Qwen3 skips thinking.
  if (isQwen3Model(modelId)) body.extra_body = { enable_thinking: thinking };
  const format = moveResponseFormat(
    tools.length > 0
      ? { interface: 'tools', thinking, tools }
      : { interface: 'json', thinking, ...(request.responseFormat && { schema: request.responseFormat.schema }) },
  );
  if (format) body.response_format = format;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // WebLLM counts the empty think block it writes for enable_thinking: false against max_tokens
  // (it sits in the output) but not in completion_tokens: the limit is raised by its length, so
  // the answer gets the tokens asked for.
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens + (body.extra_body?.enable_thinking === false ? EMPTY_THINK_TOKENS : 0);
  if (request.seed !== undefined) body.seed = request.seed;
  return body;
}

const count = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0);

/**
 * WebLLM's grammar time, in ms: `usage.extra.grammar_init_s`, which 0.86 reports only for
 * `json_object` and `grammar` formats (never for a structural tag, whose compile is as long).
 * It covers building the token table (the first grammar on an engine), compiling or fetching the
 * grammar from the compiler's cache, and making its matcher; it overlaps the prompt's prefill.
 */
export function grammarMsOf(completion: ChatCompletion): number | undefined {
  const seconds: unknown = completion.usage?.extra?.grammar_init_s;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/**
 * The answer's text (thinking included, for the decoder to split off) and its token counts. When
 * tools were offered, Qwen3's `<tool_call>` blocks come back as tool calls, as from any provider.
 */
export function fromWebLlmResponse(completion: ChatCompletion, modelId: string, opts: { tools?: boolean } = {}): ChatResponse {
  const choice = completion?.choices?.[0];
  if (!choice || typeof choice.message !== 'object' || choice.message === null)
    throw new BackendError('bad-response', `WebLLM returned no answer from ${modelId}`);
  const content = typeof choice.message.content === 'string' ? choice.message.content : '';
  const calls = opts.tools ? readToolCalls(content) : { text: content, toolCalls: [] };
  const response: ChatResponse = {
    text: calls.text,
    tokensIn: count(completion.usage?.prompt_tokens),
    tokensOut: count(completion.usage?.completion_tokens),
  };
  if (calls.toolCalls.length > 0) response.toolCalls = calls.toolCalls;
  const grammarMs = grammarMsOf(completion);
  if (grammarMs !== undefined) response.grammarMs = grammarMs;
  if (choice.finish_reason === 'length') response.truncated = true;
  if (typeof completion.model === 'string' && completion.model !== '') response.model = completion.model;
  return response;
}

export function webLlmBackend({ engine, modelId }: WebLlmBackendOptions): ChatBackend {
  return {
    name: 'webllm',
    model: modelId,
    capabilities: WEBLLM_CAPABILITIES,
    async complete(request, signal) {
      const completion = await sendToWebLlm(engine, toWebLlmRequest(request, modelId), signal);
      return fromWebLlmResponse(completion, modelId, { tools: (request.tools?.length ?? 0) > 0 });
    },
  };
}

/**
 * One request to the engine, abandoned when the signal aborts: the generation is interrupted and
 * the call rejects with the signal's reason. WebLLM's failures come back as BackendErrors.
 */
export function sendToWebLlm(engine: WebLlmEngineLike, body: ChatCompletionRequestNonStreaming, signal: AbortSignal): Promise<ChatCompletion> {
  const modelId = body.model ?? '';
  const interrupt = () => {
    try {
      // MLCEngine's returns a promise; the worker client's returns nothing.
      const pending: unknown = engine.interruptGenerate();
      if (pending instanceof Promise) pending.catch(() => undefined);
    } catch {
      // The call is being abandoned either way.
    }
  };
  return new Promise<ChatCompletion>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      interrupt();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let pending: Promise<ChatCompletion>;
    try {
      pending = engine.chat.completions.create(body);
    } catch (e) {
      pending = Promise.reject(e);
    }
    pending.then(
      (completion) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) return reject(signal.reason);
        resolve(completion);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? signal.reason : generationError(e, modelId));
      },
    );
  });
}
