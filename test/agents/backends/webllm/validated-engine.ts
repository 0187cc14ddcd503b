/**
 * A WebLLM engine double for the request side: every request is checked by WebLLM 0.2.86's own
 * exported validator (`postInitAndCheckFieldsChatCompletion`, what chatCompletion runs first),
 * not by a copy of its rules, and answered with a completion of WebLLM's shape, `usage.extra`
 * filled as chatCompletion fills it: `grammar_init_s` only for a `json_object` or `grammar` format.
 */
import { ModelType, postInitAndCheckFieldsChatCompletion, type ChatCompletion, type ChatCompletionRequestNonStreaming } from '@mlc-ai/web-llm';
import type { WebLlmEngineLike } from '../../../../src/agents/backends/webllm/backend';

export interface ValidatedAnswer {
  text?: string;
  /** What WebLLM's pipeline would time for the grammar, in seconds (reported only where WebLLM reports it). */
  grammarInitS?: number;
  finish?: 'stop' | 'length';
}

export interface ValidatedEngine extends WebLlmEngineLike {
  /** Every request as the backend sent it, before the validator could touch it. */
  readonly requests: ChatCompletionRequestNonStreaming[];
  /** What the validator threw, per refused request. */
  readonly refused: string[];
}

/** WebLLM's validator on a copy of the request (it may fill fields in); the error's text, or null. */
export function webLlmRefusal(request: ChatCompletionRequestNonStreaming, modelId = request.model ?? ''): string | null {
  try {
    postInitAndCheckFieldsChatCompletion(structuredClone(request), modelId, ModelType.LLM);
    return null;
  } catch (e) {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
}

export function validatedEngine(answer: (request: ChatCompletionRequestNonStreaming, index: number) => ValidatedAnswer = () => ({})): ValidatedEngine {
  const requests: ChatCompletionRequestNonStreaming[] = [];
  const refused: string[] = [];
  return {
    requests,
    refused,
    interruptGenerate: () => undefined,
    chat: {
      completions: {
        async create(request) {
          requests.push(structuredClone(request));
          const refusal = webLlmRefusal(request);
          if (refusal !== null) {
            refused.push(refusal);
            throw new Error(refusal);
          }
          const { text = '{"action":{"type":"accept"}}', grammarInitS = 0.001, finish = 'stop' } = answer(request, requests.length - 1);
          const usedGrammar = request.response_format?.type === 'json_object' || request.response_format?.type === 'grammar';
          const extra = { e2e_latency_s: 0.5, prefill_tokens_per_s: 1000, decode_tokens_per_s: 50, time_to_first_token_s: 0.1, time_per_output_token_s: 0.02 };
          const completion: ChatCompletion = {
            id: 'chatcmpl-validated',
            object: 'chat.completion',
            created: 0,
            model: request.model ?? '',
            choices: [{ index: 0, finish_reason: finish, logprobs: null, message: { role: 'assistant', content: text } }],
            usage: {
              prompt_tokens: 40,
              completion_tokens: 10,
              total_tokens: 50,
              extra: usedGrammar ? { ...extra, grammar_init_s: grammarInitS, grammar_per_token_s: 0.0001 } : extra,
            },
          };
          return completion;
        },
      },
    },
  };
}
