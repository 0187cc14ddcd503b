import type { ChatCompletion, MLCEngine, WebWorkerMLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { BackendError, type ChatRequest } from '../../../../src/agents/backends/types';
import {
  EMPTY_THINK_TOKENS,
  isQwen3Model,
  toWebLlmRequest,
  WEBLLM_CAPABILITIES,
  webLlmBackend,
  type WebLlmEngineLike,
} from '../../../../src/agents/backends/webllm/backend';
import { warmUpRequest } from '../../../../src/agents/backends/webllm/warmup';
import { bilateralMoveAsk } from '../../../../src/games/bilateral/llm/agent';
import { GPU_LOST_MESSAGE } from '../../../../src/agents/backends/webllm/errors';
import { moveResponseFormat, toolsSystemText } from '../../../../src/agents/backends/webllm/grammar';
import { decodeMove } from '../../../../src/games/bilateral/llm/decoder';
import { MOVE_SCHEMA_NAME, moveJsonSchema, moveTools } from '../../../../src/games/bilateral/llm/schema';
import { EMPTY_THINKING, fakeEngine } from './fake-engine';
import { validatedEngine, webLlmRefusal } from './validated-engine';

// Both real engines fit the narrow interface the backend asks for.
const inWorker: WebLlmEngineLike = null as unknown as WebWorkerMLCEngine;
const inPage: WebLlmEngineLike = null as unknown as MLCEngine;
void inWorker;
void inPage;

const MODEL = 'Qwen3-0.6B-q4f16_1-MLC';
const never = () => new AbortController().signal;

const moveRequest = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [
    { role: 'system', content: 'You are the buyer.' },
    { role: 'user', content: 'Your move.' },
  ],
  responseFormat: { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() },
  ...extra,
});

describe('webLlmBackend: the request WebLLM gets', () => {
  it('sends the model id, the messages and the move schema as a JSON string, with thinking off by default', async () => {
    const engine = fakeEngine(['{"action":{"type":"offer","price":60}}']);
    const backend = webLlmBackend({ engine, modelId: MODEL });
    expect(backend).toMatchObject({ name: 'webllm', model: MODEL, capabilities: { jsonSchema: true, tools: true, thinking: true } });

    await backend.complete(moveRequest(), never());
    expect(engine.refused).toEqual([]);
    expect(engine.requests).toEqual([
      {
        model: MODEL,
        messages: [
          { role: 'system', content: 'You are the buyer.' },
          { role: 'user', content: 'Your move.' },
        ],
        stream: false,
        response_format: { type: 'json_object', schema: JSON.stringify(moveJsonSchema()) },
        extra_body: { enable_thinking: false },
      },
    ]);
    expect(JSON.parse(engine.requests[0]?.response_format?.schema ?? 'null')).toEqual(moveJsonSchema());
  });

  it('passes temperature, max_tokens and seed on when given, and leaves them out otherwise', async () => {
    const engine = fakeEngine(['{}', '{}']);
    const backend = webLlmBackend({ engine, modelId: MODEL });
    await backend.complete(moveRequest({ temperature: 0.7, maxTokens: 256, seed: 12345 }), never());
    await backend.complete(moveRequest({ temperature: 0 }), never());
    // The limit is the answer's: raised by the empty think block WebLLM writes into the output (thinking off).
    expect(engine.requests[0]).toMatchObject({ temperature: 0.7, max_tokens: 256 + EMPTY_THINK_TOKENS, seed: 12345, extra_body: { enable_thinking: false } });
    expect(engine.requests[1]).toMatchObject({ temperature: 0 });
    expect(engine.requests[1]).not.toHaveProperty('max_tokens');
    expect(engine.requests[1]).not.toHaveProperty('seed');
  });

  it('with thinking asked for: enable_thinking true and the structural tag (a think block, then the move schema)', async () => {
    const engine = fakeEngine(['<think>\nThey opened high.\n</think>\n\n{"action":{"type":"offer","price":70}}']);
    const response = await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest({ thinking: true }), never());
    expect(engine.refused).toEqual([]);
    expect(engine.requests[0]?.extra_body).toEqual({ enable_thinking: true });
    expect(engine.requests[0]?.response_format).toEqual(moveResponseFormat({ interface: 'json', thinking: true, schema: moveJsonSchema() }));
    expect(engine.requests[0]?.response_format?.type).toBe('structural_tag');
    expect(response.text).toBe('<think>\nThey opened high.\n</think>\n\n{"action":{"type":"offer","price":70}}');
  });

  it('asks for plain text where the request has neither a schema nor tools', async () => {
    const engine = fakeEngine(['hello']);
    await webLlmBackend({ engine, modelId: MODEL }).complete({ ...moveRequest(), responseFormat: undefined }, never());
    expect(engine.refused).toEqual([]);
    expect(engine.requests[0]).not.toHaveProperty('response_format');
  });
});

describe('webLlmBackend: tools, in Qwen3’s own format', () => {
  const CALL = '<tool_call>\n{"name": "make_offer", "arguments": {"price": 60, "message": "Sixty?"}}\n</tool_call>';

  it('writes the tools into the system message as Qwen3’s template does, forces one call by the grammar, and sends no `tools`', async () => {
    const engine = fakeEngine([CALL]);
    const tools = moveTools();
    await webLlmBackend({ engine, modelId: MODEL }).complete({ ...moveRequest({ tools }), responseFormat: undefined }, never());
    expect(engine.refused).toEqual([]);
    const request = engine.requests[0];
    expect(request).not.toHaveProperty('tools');
    expect(request?.messages).toEqual([
      { role: 'system', content: `You are the buyer.\n\n${toolsSystemText(tools)}` },
      { role: 'user', content: 'Your move.' },
    ]);
    expect(toolsSystemText(tools)).toContain('<tools>\n{"type":"function","function":{"name":"make_offer"');
    expect(request?.response_format).toEqual(moveResponseFormat({ interface: 'tools', thinking: false, tools }));
  });

  it('gives the call back as a tool call, the thinking as the text, and the agent reads the move from it', async () => {
    const engine = fakeEngine([`<think>\nOpen low.\n</think>\n\n${CALL}`]);
    const response = await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest({ tools: moveTools(), thinking: true }), never());
    expect(response.toolCalls).toEqual([{ name: 'make_offer', arguments: '{"price":60,"message":"Sixty?"}' }]);
    expect(response.text).toBe('<think>\nOpen low.\n</think>');
    expect(decodeMove(response.text, response.toolCalls)).toEqual({
      ok: true,
      value: { message: 'Sixty?', action: { type: 'offer', price: 60 } },
      thinking: 'Open low.',
    });
  });

  it('a call cut off before its end stays in the text, for the decoder to report', async () => {
    const cut = '<tool_call>\n{"name": "make_offer", "arguments": {"pri';
    const engine = fakeEngine([cut]);
    const response = await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest({ tools: moveTools() }), never());
    expect(response.toolCalls).toBeUndefined();
    expect(response.text).toBe(`${EMPTY_THINKING}${cut}`);
  });
});

describe('webLlmBackend: the answer', () => {
  it('returns the text as WebLLM gave it (the empty think block included) with its token counts and model', async () => {
    const engine = fakeEngine([{ text: '{"action":{"type":"accept"}}', promptTokens: 412, completionTokens: 17 }]);
    const response = await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never());
    expect(response).toEqual({ text: `${EMPTY_THINKING}{"action":{"type":"accept"}}`, tokensIn: 412, tokensOut: 17, model: MODEL });
  });

  it('an answer WebLLM stopped at max_tokens (finish_reason "length") says it was cut off', async () => {
    const engine = fakeEngine([{ text: '{"message":"Let me', finish: 'length' }, '{}']);
    const backend = webLlmBackend({ engine, modelId: MODEL });
    expect(await backend.complete(moveRequest({ maxTokens: 8 }), never())).toMatchObject({ truncated: true });
    expect(await backend.complete(moveRequest(), never())).not.toHaveProperty('truncated');
  });

  it('an answer without choices is a bad response', async () => {
    const engine: WebLlmEngineLike = {
      interruptGenerate: () => undefined,
      chat: { completions: { create: async () => ({ id: 'x', object: 'chat.completion', created: 0, model: MODEL, choices: [] }) } },
    };
    await expect(webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never())).rejects.toMatchObject({
      name: 'BackendError',
      kind: 'bad-response',
      message: `WebLLM returned no answer from ${MODEL}`,
    });
  });

  it('a missing usage counts as zero tokens, a null content as empty text', async () => {
    const engine: WebLlmEngineLike = {
      interruptGenerate: () => undefined,
      chat: {
        completions: {
          create: async () => ({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: MODEL,
            choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: null } }],
          }),
        },
      },
    };
    expect(await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never())).toEqual({
      text: '',
      tokensIn: 0,
      tokensOut: 0,
      model: MODEL,
    });
  });
});

describe('webLlmBackend: abort and failures', () => {
  it('an abort interrupts the generation and rejects with the abort reason', async () => {
    const engine = fakeEngine([{ hang: true, partial: '{"action":' }]);
    const controller = new AbortController();
    const pending = webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), controller.signal);
    await Promise.resolve();
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(engine.interrupts).toBe(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const engine = fakeEngine([]);
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), controller.signal)).rejects.toThrow('too late');
    expect(engine.requests).toEqual([]);
    expect(engine.interrupts).toBe(0);
  });

  it('an answer that lands after the abort is dropped', async () => {
    const controller = new AbortController();
    const engine = fakeEngine(() => {
      controller.abort(new Error('stop'));
      return '{"action":{"type":"accept"}}';
    });
    await expect(webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), controller.signal)).rejects.toThrow('stop');
  });

  it.each([
    ['an Error', new Error('Device was lost. This can happen due to insufficient memory or other GPU constraints.')],
    ['the string a worker sends', 'DeviceLostError: The WebGPU device was lost while loading the model.'],
    ['an out-of-memory error', new Error('GPUOutOfMemoryError: Out of memory')],
  ])('a lost GPU (%s) becomes BackendError gpu-lost with a plain message', async (_, thrown) => {
    const engine = fakeEngine([{ reject: thrown }]);
    const error = await webLlmBackend({ engine, modelId: MODEL })
      .complete(moveRequest(), never())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
    expect((error as Error).cause).toBe(thrown);
  });

  it('a model that is no longer loaded (after the GPU was lost) is gpu-lost too', async () => {
    const engine = fakeEngine([{ reject: 'WorkerEngineModelNotLoadedError: WebWorkerMLCEngine is not loaded with a model.' }]);
    await expect(webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never())).rejects.toMatchObject({
      kind: 'gpu-lost',
      message: `${MODEL} is no longer loaded on the GPU (after a GPU error, or it was unloaded). Load it again.`,
    });
  });

  it('any other failure is a bad response that names the model and the cause, without the error class', async () => {
    const engine = fakeEngine([{ reject: 'ContextWindowSizeExceededError: Prompt tokens exceed context window size' }]);
    await expect(webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never())).rejects.toMatchObject({
      kind: 'bad-response',
      message: `WebLLM could not answer with ${MODEL}: Prompt tokens exceed context window size`,
    });
  });

  it('a create that throws synchronously is caught the same way', async () => {
    const engine: WebLlmEngineLike = {
      interruptGenerate: () => undefined,
      chat: {
        completions: {
          create: () => {
            throw new Error('Device was lost');
          },
        },
      },
    };
    await expect(webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never())).rejects.toMatchObject({ kind: 'gpu-lost' });
  });

  it('an interruptGenerate that fails does not hide the abort', async () => {
    const controller = new AbortController();
    const engine: WebLlmEngineLike = {
      interruptGenerate: () => Promise.reject(new Error('worker gone')) as unknown as void,
      chat: { completions: { create: () => new Promise(() => undefined) } },
    };
    const pending = webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), controller.signal);
    controller.abort(new Error('cancel'));
    await expect(pending).rejects.toThrow('cancel');
  });
});

describe('every request shape passes WebLLM’s own validator (postInitAndCheckFieldsChatCompletion)', () => {
  const CUSTOM_QWEN3 = 'parley-qwen3-1.7b-sft';
  const CUSTOM_OTHER = 'my-llama-3.2-1b-ft';
  const shapes = [MODEL, CUSTOM_QWEN3, CUSTOM_OTHER].flatMap((modelId) =>
    (['json', 'tools'] as const).flatMap((moveInterface) =>
      [false, true].flatMap((thinking) =>
        [{}, { temperature: 0, maxTokens: 2048, seed: 2_147_483_647 }, { temperature: 2, maxTokens: 1 }].map((sampling) => ({
          modelId,
          moveInterface,
          thinking,
          request: { ...moveRequest(sampling), responseFormat: undefined, ...bilateralMoveAsk(WEBLLM_CAPABILITIES, { interface: moveInterface, thinking }) },
        })),
      ),
    ),
  );

  it.each(
    shapes.map((s) => [`${s.modelId}, ${s.moveInterface}${s.thinking ? ', thinking' : ''}, ${JSON.stringify(s.request.temperature ?? null)}`, s] as const),
  )('%s: the move request and its warm-up', async (_, { modelId, request }) => {
    const engine = validatedEngine();
    await webLlmBackend({ engine, modelId }).complete(request, never());
    expect(engine.refused).toEqual([]);
    const warmUp = warmUpRequest(modelId, request);
    expect(warmUp && webLlmRefusal(warmUp)).toBeNull();
    expect(warmUp?.response_format).toEqual(engine.requests[0]?.response_format);
  });

  it('a request WebLLM refuses is seen as refused (the validator is live, not a stub)', () => {
    const body = toWebLlmRequest(moveRequest(), MODEL);
    expect(webLlmRefusal({ ...body, tools: [{ type: 'function', function: { name: 'make_offer' } }] })).toMatch(/^UnsupportedModelIdError/);
    expect(webLlmRefusal({ ...body, response_format: { type: 'structural_tag', schema: '{}' } })).toMatch(/^InvalidResponseFormatError/);
    expect(webLlmRefusal({ ...body, messages: [{ role: 'assistant', content: 'hi' }] })).toMatch(/^MessageOrderError/);
  });
});

describe('enable_thinking goes to Qwen3 builds only', () => {
  it('every built-in id and a custom model named for Qwen3 get it; any other custom model gets no extra_body', async () => {
    expect(isQwen3Model('Qwen3-8B-q4f32_1-MLC')).toBe(true);
    expect(isQwen3Model('parley-QWEN3-sft')).toBe(true);
    expect(isQwen3Model('my-llama-3.2-1b-ft')).toBe(false);
    const engine = validatedEngine();
    await webLlmBackend({ engine, modelId: 'parley-qwen3-sft' }).complete(moveRequest(), never());
    await webLlmBackend({ engine, modelId: 'my-llama-3.2-1b-ft' }).complete(moveRequest(), never());
    await webLlmBackend({ engine, modelId: 'my-llama-3.2-1b-ft' }).complete(moveRequest({ thinking: true }), never());
    expect(engine.requests.map((r) => r.extra_body)).toEqual([{ enable_thinking: false }, undefined, undefined]);
    expect(engine.requests[1]).not.toHaveProperty('extra_body');
    expect(engine.refused).toEqual([]);
  });
});

describe('the grammar’s compile time comes back apart from the answer', () => {
  it('usage.extra.grammar_init_s (json_object) becomes grammarMs', async () => {
    const engine = validatedEngine(() => ({ grammarInitS: 8.25 }));
    const response = await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never());
    expect(response.grammarMs).toBeCloseTo(8250, 6);
  });

  it('a structural tag gets no figure: WebLLM 0.2.86 reports grammar_init_s for json_object and grammar alone', async () => {
    const engine = validatedEngine(() => ({ grammarInitS: 8.25 }));
    const backend = webLlmBackend({ engine, modelId: MODEL });
    expect(await backend.complete(moveRequest({ thinking: true }), never())).not.toHaveProperty('grammarMs');
    expect(await backend.complete({ ...moveRequest({ tools: moveTools() }), responseFormat: undefined }, never())).not.toHaveProperty('grammarMs');
  });

  it.each([
    ['negative', -1],
    ['not finite', Number.NaN],
    ['not a number', '8'],
  ])('a figure that is %s is left out', async (_, bad) => {
    const engine: WebLlmEngineLike = {
      interruptGenerate: () => undefined,
      chat: {
        completions: {
          create: async () => ({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: MODEL,
            choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: '{}' } }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, extra: { grammar_init_s: bad } } as unknown as ChatCompletion['usage'],
          }),
        },
      },
    };
    expect(await webLlmBackend({ engine, modelId: MODEL }).complete(moveRequest(), never())).not.toHaveProperty('grammarMs');
  });
});
