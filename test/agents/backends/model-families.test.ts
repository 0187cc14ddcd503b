/**
 * The provider table's model families, and what each makes a backend send: the temperature only
 * where a model takes one, thinking budgeted or adaptive, Anthropic's JSON-schema output and
 * strict tools, OpenAI's `strict: true`, and a forced tool call where the provider takes one. The
 * request bodies are those the local chat server received.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTIVE_EFFORT, anthropicBackend } from '../../../src/agents/backends/anthropic';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { strictReady, toAnthropicSchema } from '../../../src/agents/backends/json-schema';
import { presetBackend } from '../../../src/agents/backends/openai';
import type { ChatRequest, ToolSpec } from '../../../src/agents/backends/types';
import { modelTraits, providerInfo, PROVIDERS, REMOTE_PROVIDERS, type ModelTraits } from '../../../src/agents/providers';
import { MOVE_SCHEMA_NAME, MOVE_TOOLS, moveJsonSchema } from '../../../src/games/bilateral/llm/schema';
import { reply } from '../../support/chat-server';
import { live, serverPerTest } from './helpers';

const serve = serverPerTest();
type Body = Record<string, unknown>;

const messages: ChatRequest['messages'] = [
  { role: 'system', content: 'You are the seller.' },
  { role: 'user', content: 'Your move.' },
];
const jsonRequest: ChatRequest = { messages, responseFormat: { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() }, temperature: 0.7 };
const toolsRequest: ChatRequest = { messages, tools: [...MOVE_TOOLS], temperature: 0.7 };

/** Schemas strict mode takes as they are, and one it does not (an optional property). */
const CLOSED = {
  type: 'object',
  properties: {
    message: { type: ['string', 'null'] },
    action: { anyOf: [{ type: 'object', properties: { type: { const: 'accept' } }, required: ['type'], additionalProperties: false }, { type: 'null' }] },
  },
  required: ['message', 'action'],
  additionalProperties: false,
};
const LOOSE = { type: 'object', properties: { message: { type: 'string' }, price: { type: 'number' } }, required: ['price'], additionalProperties: false };
const closedTool: ToolSpec = {
  name: 'make_offer',
  description: 'Offer.',
  parameters: { type: 'object', properties: { price: { type: 'number' } }, required: ['price'], additionalProperties: false },
};
const looseTool: ToolSpec = { name: 'walk_away', description: 'Leave.', parameters: LOOSE };

describe('model families', () => {
  const anthropic = (model: string): Omit<ModelTraits, 'forceTool'> => {
    const { forceTool: _, ...rest } = modelTraits('anthropic', model);
    return rest;
  };

  it('tell each Claude family apart by its id, and take an id of no older family for one of the newest', () => {
    const old = { temperature: true, thinking: 'anthropic-budget', json: 'none', strict: false };
    const four5 = { temperature: true, thinking: 'anthropic-budget', json: 'json_schema', strict: true, family: 'Claude 4.5 (Haiku, Sonnet, Opus)' };
    const four6 = { temperature: true, thinking: 'anthropic-adaptive', json: 'json_schema', strict: true, family: 'Claude Opus 4.6 and Sonnet 4.6' };
    const newest = { temperature: false, thinking: 'anthropic-adaptive', json: 'json_schema', strict: true, family: 'later Claude models (Opus 4.7 on)' };
    expect(anthropic('claude-3-7-sonnet-latest')).toEqual({ ...old, family: 'Claude 3' });
    expect(anthropic('claude-3-5-haiku-20241022')).toEqual({ ...old, family: 'Claude 3' });
    for (const id of ['claude-sonnet-4-20250514', 'claude-opus-4-1', 'claude-opus-4-0', 'claude-sonnet-4-latest'])
      expect(anthropic(id)).toEqual({ ...old, family: 'Claude Opus 4, 4.1 and Sonnet 4' });
    for (const id of ['claude-haiku-4-5', 'claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929', 'claude-opus-4-5']) expect(anthropic(id)).toEqual(four5);
    for (const id of ['claude-opus-4-6', 'claude-sonnet-4-6']) expect(anthropic(id)).toEqual(four6);
    for (const id of ['claude-opus-4-7', 'claude-opus-4-8', 'claude-sonnet-5', 'claude-mythos-5', 'Claude-Opus-5']) expect(anthropic(id)).toEqual(newest);
  });

  it('send no temperature to OpenAI’s reasoning models, and keep the provider’s word for everything else', () => {
    for (const id of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.4']) expect(modelTraits('openai', id).temperature).toBe(false);
    for (const id of ['gpt-4o-mini', 'gpt-4.1'])
      expect(modelTraits('openai', id)).toEqual({ temperature: true, thinking: 'reasoning-effort', json: 'json_schema', strict: true, forceTool: 'always' });
    for (const p of REMOTE_PROVIDERS) {
      const info = providerInfo(p);
      if (info.families !== undefined) continue;
      expect(modelTraits(p, 'any-model')).toEqual({
        temperature: true,
        thinking: info.thinking,
        json: info.json,
        strict: info.strict,
        forceTool: info.forceTool,
      });
    }
  });

  it('name a current model for the Models page’s connection test', () => {
    expect(PROVIDERS.anthropic.testModel).toBe('claude-haiku-4-5');
    expect(modelTraits('anthropic', PROVIDERS.anthropic.testModel).family).toBe('Claude 4.5 (Haiku, Sonnet, Opus)');
  });
});

describe('Anthropic requests, by family', () => {
  async function bodies(model: string, requests: ChatRequest[]): Promise<Body[]> {
    const s = await serve(() => reply('{}'));
    const backend = anthropicBackend({ baseUrl: s.url, model, sleep: async () => {} });
    for (const r of requests) await backend.complete(r, live());
    return s.requests.map((r) => r.body as Body);
  }
  const format = { type: 'json_schema', schema: toAnthropicSchema(moveJsonSchema()) };
  const common = { system: 'You are the seller.', messages: [{ role: 'user', content: 'Your move.' }] };

  it('the newest models: no temperature; adaptive thinking at low effort; the move’s JSON Schema as output_config.format', async () => {
    const [plain, thinking] = await bodies('claude-opus-4-7', [jsonRequest, { ...jsonRequest, thinking: true }]);
    expect(plain).toEqual({ model: 'claude-opus-4-7', max_tokens: 512, ...common, output_config: { format } });
    expect(thinking).toEqual({
      model: 'claude-opus-4-7',
      max_tokens: 2048,
      ...common,
      thinking: { type: 'adaptive' },
      output_config: { format, effort: ADAPTIVE_EFFORT },
    });
  });

  it('Opus 4.6 and Sonnet 4.6: a temperature when not thinking, adaptive thinking when asked', async () => {
    const [plain, thinking] = await bodies('claude-sonnet-4-6', [toolsRequest, { ...toolsRequest, thinking: true }]);
    expect(plain).toMatchObject({ temperature: 0.7, tool_choice: { type: 'any' } });
    expect(thinking).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' }, max_tokens: 2048 });
    expect(thinking).not.toHaveProperty('temperature');
    expect(thinking).not.toHaveProperty('tool_choice');
    expect((plain?.tools as Body[]).map((t) => t.strict)).toEqual([true, true, true, true]);
  });

  it('older models: a thinking budget, tools as they are, and the JSON asked for by the prompt alone', async () => {
    const [json, tools, thinking] = await bodies('claude-3-7-sonnet-latest', [jsonRequest, toolsRequest, { ...toolsRequest, thinking: true, maxTokens: 2048 }]);
    expect(json).toEqual({ model: 'claude-3-7-sonnet-latest', max_tokens: 512, ...common, temperature: 0.7 });
    expect(tools).toMatchObject({
      tools: MOVE_TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
      tool_choice: { type: 'any' },
    });
    expect(thinking).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1536 }, max_tokens: 2048 });
    expect(anthropicBackend({ model: 'claude-3-7-sonnet-latest' }).capabilities.jsonSchema).toBe(false);
  });
});

describe('Anthropic’s schema subset', () => {
  it('closes every object, turns oneOf into anyOf, and writes the constraints it refuses into the description', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        price: { type: 'number', exclusiveMinimum: 0, description: 'Your price.' },
        message: { type: 'string', maxLength: 600 },
        contact: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'weekday' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        action: { oneOf: [{ type: 'object', properties: { type: { const: 'accept' } }, required: ['type'] }, { type: 'null' }] },
      },
      required: ['price'],
      additionalProperties: true,
    };
    expect(toAnthropicSchema(schema)).toEqual({
      type: 'object',
      properties: {
        price: { type: 'number', description: 'Your price.\n\n{exclusiveMinimum: 0}' },
        message: { type: 'string', description: '{maxLength: 600}' },
        contact: { type: 'string', format: 'email' },
        when: { type: 'string', description: '{format: "weekday"}' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, description: '{maxItems: 3}' },
        action: { anyOf: [{ type: 'object', properties: { type: { const: 'accept' } }, required: ['type'], additionalProperties: false }, { type: 'null' }] },
      },
      required: ['price'],
      additionalProperties: false,
    });
    // The move's own schema is closed already; only its price bounds move into the description
    // (the protocol still refuses a price outside them, and the decoder reads the answer as before).
    const move = moveJsonSchema();
    const price = (s: Record<string, unknown>) =>
      (s.properties as { action: { anyOf: { properties: { price?: Record<string, unknown> } }[] } }).action.anyOf[0]?.properties.price ?? {};
    const sent = toAnthropicSchema(move) as Record<string, unknown>;
    expect(price(sent)).toEqual({ type: 'number', description: `${price(move).description as string}\n\n{minimum: 0.01, maximum: 1000000000}` });
    expect(JSON.stringify(sent)).not.toMatch(/"(minimum|maximum|minLength|maxLength)"/);
  });
});

describe('strict mode and a forced tool call', () => {
  it('strictReady: every object closed with each property required', () => {
    expect(strictReady(CLOSED)).toBe(true);
    expect(strictReady(LOOSE)).toBe(false);
    expect(strictReady({ ...CLOSED, additionalProperties: true })).toBe(false);
    const nestedLoose = {
      ...CLOSED,
      properties: {
        ...CLOSED.properties,
        action: { anyOf: [{ type: 'object', properties: { type: {}, price: {} }, required: ['type'], additionalProperties: false }] },
      },
    };
    expect(strictReady(nestedLoose)).toBe(false);
    expect(strictReady({ anyOf: [CLOSED] })).toBe(false); // strict mode wants an object at the top
  });

  it('OpenAI: strict: true on the response format and on tools whose schema strict mode takes; tool_choice required', async () => {
    const s = await serve(() => reply('{}'));
    const backend = presetBackend('openai', { model: 'gpt-4o-mini', baseUrl: `${s.url}/v1`, sleep: async () => {} });
    await backend.complete({ messages, responseFormat: { type: 'json_schema', name: 'm', schema: CLOSED } }, live());
    await backend.complete({ messages, responseFormat: { type: 'json_schema', name: 'm', schema: LOOSE } }, live());
    await backend.complete({ messages, tools: [closedTool, looseTool] }, live());
    await backend.complete({ messages, tools: [closedTool], thinking: true }, live());
    const [closed, loose, tools, thinking] = s.requests.map((r) => r.body as Body);
    expect(closed?.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'm', schema: CLOSED, strict: true } });
    expect(loose?.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'm', schema: LOOSE } });
    expect(tools).toMatchObject({
      tools: [
        { type: 'function', function: { name: 'make_offer', description: 'Offer.', parameters: closedTool.parameters, strict: true } },
        { type: 'function', function: { name: 'walk_away', description: 'Leave.', parameters: LOOSE } },
      ],
      tool_choice: 'required',
    });
    expect((tools?.tools as { function: Body }[])[1]?.function).not.toHaveProperty('strict');
    expect(thinking).toMatchObject({ tool_choice: 'required', reasoning_effort: 'low' });
    expect(closed).not.toHaveProperty('tool_choice');
  });

  it('the other OpenAI-compatible providers: no strict; a forced call only where the table says, and not while thinking where it says so', async () => {
    const s = await serve(() => reply('{}'));
    const sent = async (id: 'openrouter' | 'groq' | 'ollama', request: ChatRequest): Promise<Body> => {
      const backend = presetBackend(id, { model: 'm', baseUrl: `${s.url}/v1`, sleep: async () => {} });
      await backend.complete(request, live());
      return s.requests.at(-1)?.body as Body;
    };
    const request: ChatRequest = { messages, tools: [closedTool], responseFormat: { type: 'json_schema', name: 'm', schema: CLOSED } };
    const openrouter = await sent('openrouter', request);
    expect(openrouter.tool_choice).toBe('required');
    expect(JSON.stringify(openrouter)).not.toContain('"strict"');
    expect(await sent('openrouter', { ...request, thinking: true })).not.toHaveProperty('tool_choice');
    expect(await sent('groq', { ...request, thinking: true })).toMatchObject({ tool_choice: 'required' });
    expect(await sent('ollama', request)).not.toHaveProperty('tool_choice');
  });

  it('OpenAI’s reasoning models get no temperature, thinking or not', async () => {
    const s = await serve(() => reply('{}'));
    const backend = presetBackend('openai', { model: 'gpt-5-mini', baseUrl: `${s.url}/v1`, sleep: async () => {} });
    await backend.complete({ ...toolsRequest, thinking: false }, live());
    await presetBackend('openai', { model: 'gpt-4o-mini', baseUrl: `${s.url}/v1` }).complete({ ...toolsRequest, thinking: false }, live());
    const [reasoning, chat] = s.requests.map((r) => r.body as Body);
    expect(reasoning).not.toHaveProperty('temperature');
    expect(chat).toMatchObject({ temperature: 0.7 });
  });

  it('Gemini: function calling mode ANY whenever tools are offered', async () => {
    const s = await serve(() => reply('{}'));
    const backend = geminiBackend({ baseUrl: s.url, model: 'gemini-2.5-flash', sleep: async () => {} });
    await backend.complete(toolsRequest, live());
    await backend.complete({ ...toolsRequest, thinking: true }, live());
    await backend.complete(jsonRequest, live());
    const [tools, thinking, json] = s.requests.map((r) => r.body as Body);
    expect(tools?.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(thinking?.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(json).not.toHaveProperty('toolConfig');
  });
});
