import { describe, expect, it } from 'vitest';
import { geminiBackend, toGeminiSchema, type GeminiBackendOptions } from '../../../src/agents/backends/gemini';
import type { ChatRequest } from '../../../src/agents/backends/types';
import { decodeMove } from '../../../src/games/bilateral/llm/decoder';
import { MOVE_SCHEMA_NAME, MOVE_TOOLS, moveJsonSchema } from '../../../src/games/bilateral/llm/schema';
import { failure, move, rateLimited, reply, slow, type ChatServer } from '../../support/chat-server';
import { live, ownHeaders, serverPerTest } from './helpers';

const KEY = 'AIzaSy-test-4c5d6e7f8a9b';

const serve = serverPerTest();

const backendFor = (s: ChatServer, extra: Partial<GeminiBackendOptions> = {}) =>
  geminiBackend({ baseUrl: s.url, model: 'gemini-2.5-flash', apiKey: KEY, sleep: async () => {}, ...extra });

const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are the buyer.' },
    { role: 'user', content: 'Your move.' },
  ],
  responseFormat: { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() },
  thinking: false,
  maxTokens: 256,
  temperature: 0.3,
};

/** Every key anywhere in a JSON value. */
function keysOf(x: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(x)) x.forEach((v) => keysOf(v, into));
  else if (typeof x === 'object' && x !== null)
    for (const [k, v] of Object.entries(x)) {
      into.add(k);
      keysOf(v, into);
    }
  return into;
}

describe('geminiBackend', () => {
  it('posts generateContent with the system instruction, a JSON response schema in Gemini’s dialect, and the key header', async () => {
    const s = await serve([move({ action: { type: 'walk_away' } })]);
    await backendFor(s, { model: 'models/gemini-2.5-flash' }).complete(request, live());
    const [req] = s.requests;
    expect(req).toMatchObject({ path: '/v1beta/models/gemini-2.5-flash:generateContent', route: 'gemini', model: 'gemini-2.5-flash' });
    const body = req?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      systemInstruction: { parts: [{ text: 'You are the buyer.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Your move.' }] }],
      generationConfig: {
        maxOutputTokens: 256,
        temperature: 0.3,
        responseMimeType: 'application/json',
        responseSchema: toGeminiSchema(moveJsonSchema()),
      },
    });
    expect(ownHeaders(req)).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': KEY });
    expect(req?.path).not.toContain(KEY);
  });

  it('converts the move schema: no $schema, additionalProperties or const; upper-case types; ordered properties', () => {
    const converted = toGeminiSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...moveJsonSchema() }) as Record<string, unknown>;
    const keys = keysOf(converted);
    for (const banned of ['$schema', 'additionalProperties', 'const']) expect(keys.has(banned)).toBe(false);
    expect(converted).toMatchObject({ type: 'OBJECT', propertyOrdering: ['message', 'action'] });
    expect(converted.properties).toMatchObject({
      message: { type: 'STRING' },
      action: {
        anyOf: [
          {
            type: 'OBJECT',
            properties: { type: { type: 'STRING', enum: ['offer'] }, price: { type: 'NUMBER' } },
            required: ['type', 'price'],
            propertyOrdering: ['type', 'price'],
          },
          { type: 'OBJECT', properties: { type: { type: 'STRING', enum: ['accept'] } } },
          {},
          {},
          { type: 'NULL' },
        ],
      },
    });
    expect(toGeminiSchema({ type: ['string', 'null'], format: 'date-time', $ref: '#/x' })).toEqual({
      type: 'STRING',
      nullable: true,
      format: 'date-time',
    });
  });

  it('declares tools as functions and reads function calls, thoughts and usage', async () => {
    const s = await serve([
      {
        kind: 'reply',
        content: '',
        thinking: 'Accept: it is under my value.',
        toolCalls: [{ name: 'respond_to_offer', arguments: { decision: 'accept' } }],
        tokensIn: 250,
        tokensOut: 9,
        model: 'gemini-2.5-flash-001',
      },
    ]);
    const toolsRequest: ChatRequest = { messages: request.messages, tools: [...MOVE_TOOLS] };
    const response = await backendFor(s).complete(toolsRequest, live());
    const body = s.requests[0]?.body as { tools: { functionDeclarations: unknown[] }[]; generationConfig?: unknown };
    expect(body.tools[0]?.functionDeclarations).toEqual(
      MOVE_TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: toGeminiSchema(t.parameters) })),
    );
    expect(body.generationConfig).toBeUndefined();
    expect(response).toEqual({
      text: '<think>Accept: it is under my value.</think>\n',
      toolCalls: [{ name: 'respond_to_offer', arguments: '{"decision":"accept"}' }],
      tokensIn: 250,
      tokensOut: 9,
      model: 'gemini-2.5-flash-001',
    });
    expect(decodeMove(response.text, response.toolCalls)).toMatchObject({ ok: true, value: { action: { type: 'accept' } } });
  });

  it('switches thinking off (budget 0) or on (a budget the limit leaves after the move), and sends the seed', async () => {
    const s = await serve(() => reply('{}'));
    await backendFor(s).complete({ ...request, seed: 99 }, live());
    await backendFor(s).complete({ ...request, thinking: true, maxTokens: 2048 }, live());
    await backendFor(s).complete({ ...request, thinking: true, maxTokens: 600 }, live());
    await backendFor(s, { thinking: false }).complete({ ...request, thinking: true }, live());
    const { thinking: _, ...silent } = request;
    await backendFor(s).complete(silent, live());
    const configs = s.requests.map((r) => (r.body as { generationConfig: Record<string, unknown> }).generationConfig);
    expect(configs[0]).toMatchObject({ thinkingConfig: { thinkingBudget: 0 }, seed: 99, maxOutputTokens: 256 });
    expect(configs[1]).toMatchObject({ thinkingConfig: { thinkingBudget: 1536, includeThoughts: true }, maxOutputTokens: 2048 });
    expect(configs[2]?.thinkingConfig).toEqual({ thinkingBudget: 512, includeThoughts: true });
    expect(configs[3]).not.toHaveProperty('thinkingConfig');
    expect(configs[4]).not.toHaveProperty('thinkingConfig');
    expect(configs[1]).not.toHaveProperty('seed');
  });

  it('reads a MAX_TOKENS finish as an answer cut off at the limit', async () => {
    const s = await serve([reply('{"action":', { cutOff: true }), reply('{}')]);
    expect(await backendFor(s).complete(request, live())).toMatchObject({ truncated: true });
    expect(await backendFor(s).complete(request, live())).not.toHaveProperty('truncated');
  });

  it('reads a blocked prompt as a refusal, retries RESOURCE_EXHAUSTED, and keeps the key out of errors', async () => {
    const s = await serve([
      { kind: 'raw', status: 200, body: '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":7}}', contentType: 'application/json' },
      rateLimited(2, 'Resource has been exhausted (e.g. check quota).'),
      failure(400, `API key not valid: ${KEY}`),
    ]);
    const waits: number[] = [];
    const backend = backendFor(s, { sleep: async (ms) => void waits.push(ms) });
    expect(await backend.complete(request, live())).toEqual({ text: '', tokensIn: 7, tokensOut: 0, refusal: 'prompt blocked (SAFETY)' });
    await expect(backend.complete(request, live())).rejects.toMatchObject({
      kind: 'http',
      status: 400,
      message: 'gemini 400: API key not valid: [redacted]',
    });
    expect(waits).toEqual([2000]);
  });

  it('times out a slow answer', async () => {
    const s = await serve([slow(3000, reply('late'))]);
    await expect(backendFor(s, { timeoutMs: 60 }).complete(request, live())).rejects.toMatchObject({ kind: 'timeout' });
  });
});
