/**
 * WebLLM behind the ChatBackend seam. The backend needs only an engine's
 * `chat.completions.create` and `interruptGenerate`: a WebWorkerMLCEngine from `loadEngine`, an
 * in-page MLCEngine, or a test's fake. Only WebLLM's types are imported here.
 */
import type { ChatCompletion, ChatCompletionRequestNonStreaming, MLCEngineInterface } from '@mlc-ai/web-llm';
import type { BackendCapabilities, ChatBackend, ChatRequest, ChatResponse } from '../types';
import { BackendError } from '../types';
import { generationError } from './errors';

/** The part of a WebLLM engine the backend uses; both MLCEngine and WebWorkerMLCEngine have it. */
export interface WebLlmEngineLike extends Pick<MLCEngineInterface, 'interruptGenerate'> {
  chat: { completions: { create(request: ChatCompletionRequestNonStreaming): Promise<ChatCompletion> } };
}

export interface WebLlmBackendOptions {
  engine: WebLlmEngineLike;
  /** WebLLM's model_id; sent with every request, so one engine may hold both seats' models. */
  modelId: string;
}

export const WEBLLM_CAPABILITIES: Readonly<BackendCapabilities> = Object.freeze({ jsonSchema: true, tools: false, thinking: true });

/** The WebLLM request for one ChatRequest. Tools are never sent: Qwen3 is not a WebLLM tool model. */
export function toWebLlmRequest(request: ChatRequest, modelId: string): ChatCompletionRequestNonStreaming {
  const thinking = request.thinking ?? false;
  const body: ChatCompletionRequestNonStreaming = {
    model: modelId,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    stream: false,
    // false makes WebLLM open the answer with an empty <think></think>, so Qwen3 skips thinking.
    extra_body: { enable_thinking: thinking },
  };
  // WebLLM applies the JSON grammar from the first token, which would forbid Qwen3's <think>
  // block; with thinking on, the prompt and the tolerant decoder carry the format instead.
  if (request.responseFormat && !thinking)
    body.response_format = { type: 'json_object', schema: JSON.stringify(request.responseFormat.schema) };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  return body;
}

const count = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0);

/** The answer's text (thinking included, for the decoder to split off) and its token counts. */
export function fromWebLlmResponse(completion: ChatCompletion, modelId: string): ChatResponse {
  const choice = completion?.choices?.[0];
  if (!choice || typeof choice.message !== 'object' || choice.message === null)
    throw new BackendError('bad-response', `WebLLM returned no answer from ${modelId}`);
  const response: ChatResponse = {
    text: typeof choice.message.content === 'string' ? choice.message.content : '',
    tokensIn: count(completion.usage?.prompt_tokens),
    tokensOut: count(completion.usage?.completion_tokens),
  };
  if (typeof completion.model === 'string' && completion.model !== '') response.model = completion.model;
  return response;
}

export function webLlmBackend({ engine, modelId }: WebLlmBackendOptions): ChatBackend {
  const interrupt = () => {
    try {
      // MLCEngine's returns a promise; the worker client's returns nothing.
      const pending: unknown = engine.interruptGenerate();
      if (pending instanceof Promise) pending.catch(() => undefined);
    } catch {
      // The call is being abandoned either way.
    }
  };
  return {
    name: 'webllm',
    model: modelId,
    capabilities: WEBLLM_CAPABILITIES,
    complete(request, signal) {
      return new Promise<ChatResponse>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const onAbort = () => {
          interrupt();
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        let pending: Promise<ChatCompletion>;
        try {
          pending = engine.chat.completions.create(toWebLlmRequest(request, modelId));
        } catch (e) {
          pending = Promise.reject(e);
        }
        pending.then(
          (completion) => {
            signal.removeEventListener('abort', onAbort);
            if (signal.aborted) return reject(signal.reason);
            try {
              resolve(fromWebLlmResponse(completion, modelId));
            } catch (e) {
              reject(e);
            }
          },
          (e: unknown) => {
            signal.removeEventListener('abort', onAbort);
            reject(signal.aborted ? signal.reason : generationError(e, modelId));
          },
        );
      });
    },
  };
}
