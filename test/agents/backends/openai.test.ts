import { describe, expect, it } from 'vitest';
import { Limiter } from '../../../src/agents/backends/http';
import { openAiBackend, presetBackend, type OpenAiBackendOptions } from '../../../src/agents/backends/openai';
import { OPENAI_COMPATIBLE, PROVIDERS, REMOTE_PROVIDERS } from '../../../src/agents/providers';
import { BackendError, type ChatRequest } from '../../../src/agents/backends/types';
import { decodeMove } from '../../../src/games/bilateral/llm/decoder';
import { MOVE_SCHEMA_NAME, MOVE_TOOLS, moveJsonSchema } from '../../../src/games/bilateral/llm/schema';
import { move, reply, serverError, slow, thinkThen, toolCall, type ChatServer } from '../../support/chat-server';
import { live, ownHeaders, serverPerTest } from './helpers';

const KEY = 'sk-proj-test-0a1b2c3d4e5f';

const serve = serverPerTest();

const backendFor = (s: ChatServer, extra: Partial<OpenAiBackendOptions> = {}) =>
  openAiBackend({ baseUrl: `${s.url}/v1`, model: 'qwen3-8b', apiKey: KEY, sleep: async () => {}, ...extra });

const jsonRequest: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are the buyer.' },
    { role: 'user', content: 'Your move.' },
  ],
  responseFormat: { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() },
  thinking: false,
  maxTokens: 300,
  temperature: 0.2,
};
const toolsRequest: ChatRequest = { messages: jsonRequest.messages, tools: [...MOVE_TOOLS] };

describe('openAiBackend: the request', () => {
  it('posts the model, messages, schema, limits and only the allowed headers; the key goes to that host alone', async () => {
    const s = await serve([move({ action: { type: 'accept' } })]);
    const elsewhere = await serve([]);
    await backendFor(s).complete(jsonRequest, live());

    expect(s.requests).toHaveLength(1);
    const [req] = s.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/chat/completions', route: 'openai' });
    expect(req?.body).toEqual({
      model: 'qwen3-8b',
      messages: [
        { role: 'system', content: 'You are the buyer.' },
        { role: 'user', content: 'Your move.' },
      ],
      response_format: { type: 'json_schema', json_schema: { name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() } },
      max_tokens: 300,
      temperature: 0.2,
    });
    expect(ownHeaders(req)).toEqual({ 'content-type': 'application/json', authorization: `Bearer ${KEY}` });
    const elsewhereSaw = JSON.stringify(elsewhere.requests) + JSON.stringify(elsewhere.preflights);
    expect(elsewhereSaw).not.toContain(KEY);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('sends no Authorization without a key, and passes extra headers on', async () => {
    const s = await serve([reply('{}')]);
    await backendFor(s, { apiKey: undefined, headers: { 'X-Title': 'Parley' } }).complete(jsonRequest, live());
    expect(ownHeaders(s.requests[0])).toEqual({ 'content-type': 'application/json', 'x-title': 'Parley' });
  });

  it('sends tools as function tools, and no response_format with them', async () => {
    const s = await serve([toolCall('walk_away', {})]);
    await backendFor(s).complete(toolsRequest, live());
    const body = s.requests[0]?.body as Record<string, unknown>;
    expect(body.response_format).toBeUndefined();
    expect(body.tools).toEqual(MOVE_TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
  });

  it('asks for json_object, or nothing, as configured; thinking by the chat template on vLLM', async () => {
    const s = await serve(() => reply('{}'));
    await backendFor(s, { jsonMode: 'json_object' }).complete(jsonRequest, live());
    await backendFor(s, { jsonMode: 'none' }).complete(jsonRequest, live());
    await backendFor(s, { thinking: 'chat-template-kwargs', maxTokensField: 'max_completion_tokens' }).complete({ ...jsonRequest, thinking: true }, live());
    const bodies = s.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]?.response_format).toEqual({ type: 'json_object' });
    expect(bodies[1]).not.toHaveProperty('response_format');
    expect(bodies[0]).not.toHaveProperty('chat_template_kwargs');
    expect(bodies[2]).toMatchObject({ chat_template_kwargs: { enable_thinking: true }, max_completion_tokens: 300 });
    expect(bodies[2]).not.toHaveProperty('max_tokens');
    expect(backendFor(s, { jsonMode: 'none', tools: false }).capabilities).toEqual({ jsonSchema: false, tools: false, thinking: false });
    expect(backendFor(s, { thinking: 'chat-template-kwargs' }).capabilities).toEqual({ jsonSchema: true, tools: true, thinking: true });
  });
});

describe('openAiBackend: the answer', () => {
  it('reads content, tokens and the model that answered', async () => {
    const s = await serve([move({ message: 'Deal.', action: { type: 'accept' } }, { tokensIn: 321, tokensOut: 12, model: 'qwen3-8b-instruct' })]);
    expect(await backendFor(s).complete(jsonRequest, live())).toEqual({
      text: '{"message":"Deal.","action":{"type":"accept"}}',
      tokensIn: 321,
      tokensOut: 12,
      model: 'qwen3-8b-instruct',
    });
  });

  it('reads tool calls with their arguments as JSON text', async () => {
    const s = await serve([toolCall('make_offer', { price: 85, message: 'Meet me here.' }), toolCall('respond_to_offer', '{"decision":"accept"}')]);
    const backend = backendFor(s);
    expect(await backend.complete(toolsRequest, live())).toMatchObject({
      text: '',
      toolCalls: [{ name: 'make_offer', arguments: '{"price":85,"message":"Meet me here."}' }],
    });
    expect(await backend.complete(toolsRequest, live())).toMatchObject({ toolCalls: [{ name: 'respond_to_offer', arguments: '{"decision":"accept"}' }] });
  });

  it('puts reasoning_content before the text as a think block, which the decoder splits off', async () => {
    const s = await serve([
      move({ action: { type: 'offer', price: 70 } }, { thinking: 'They keep dropping; bid 70.' }),
      thinkThen('Inline, as Qwen3 writes it.', { action: { type: 'reject' } }),
    ]);
    const backend = backendFor(s);
    const first = await backend.complete(jsonRequest, live());
    expect(first.text).toBe('<think>They keep dropping; bid 70.</think>\n{"action":{"type":"offer","price":70}}');
    expect(decodeMove(first.text)).toEqual({ ok: true, value: { action: { type: 'offer', price: 70 } }, thinking: 'They keep dropping; bid 70.' });
    const second = await backend.complete(jsonRequest, live());
    expect(decodeMove(second.text)).toMatchObject({ ok: true, value: { action: { type: 'reject' } }, thinking: 'Inline, as Qwen3 writes it.' });
  });

  it('passes malformed output through as text, for the decoder to refuse', async () => {
    const s = await serve([reply('I think I will offer about eighty?')]);
    const response = await backendFor(s).complete(jsonRequest, live());
    expect(response.text).toBe('I think I will offer about eighty?');
    expect(decodeMove(response.text)).toMatchObject({ ok: false, error: { code: 'no-json-move' } });
  });

  it('retries an answer with no message and an upstream failure a 200 carries; a client error in a 200 is final', async () => {
    const raw = (body: string) => ({ kind: 'raw' as const, status: 200, body, contentType: 'application/json' });
    const s = await serve([
      raw('{"choices":[]}'),
      raw('{"error":{"message":"Provider returned error","code":502}}'),
      move({ action: { type: 'accept' } }),
      raw('{"error":{"message":"No such model","code":404}}'),
      raw('{"choices":[]}'),
      raw('{"choices":[]}'),
    ]);
    const backend = backendFor(s, { maxRetries: 2 });
    expect((await backend.complete(jsonRequest, live())).text).toBe('{"action":{"type":"accept"}}');
    expect(s.requests).toHaveLength(3);
    await expect(backend.complete(jsonRequest, live())).rejects.toMatchObject({ kind: 'http', message: 'openai: No such model' });
    expect(s.requests).toHaveLength(4);
    const backend1 = backendFor(s, { maxRetries: 1 });
    await expect(backend1.complete(jsonRequest, live())).rejects.toMatchObject({
      kind: 'bad-response',
      message: 'openai: the answer has no message (gave up after 2 attempts)',
    });
  });
});

describe('openAiBackend: failures, timeout, cancel and concurrency', () => {
  it('retries a 500 and names itself after its preset in errors', async () => {
    const s = await serve(() => serverError('model is loading'));
    const waits: number[] = [];
    const backend = presetBackend('groq', {
      model: 'llama-3.3-70b-versatile',
      apiKey: KEY,
      baseUrl: `${s.url}/openai/v1`,
      maxRetries: 2,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0,
    });
    const error = await backend.complete(jsonRequest, live()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind: 'http', status: 500, message: 'groq 500: model is loading (gave up after 3 attempts)' });
    expect(s.requests.map((r) => r.path)).toEqual(Array(3).fill('/openai/v1/chat/completions'));
    expect(waits).toEqual([0, 0]);
  });

  it('ends a slow answer as a timeout', async () => {
    const s = await serve([slow(3000, reply('late'))]);
    await expect(backendFor(s, { timeoutMs: 60 }).complete(jsonRequest, live())).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('rejects promptly with the abort reason when cancelled mid-request', async () => {
    const s = await serve([slow(3000, reply('late'))]);
    const controller = new AbortController();
    const pending = backendFor(s).complete(jsonRequest, controller.signal);
    while (s.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new DOMException('cancelled', 'AbortError'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError', message: 'cancelled' });
    expect(s.requests).toHaveLength(1);
  });

  it('holds at most `concurrency` requests in flight at the server', async () => {
    const s = await serve(() => slow(60, reply('{}')));
    const backend = backendFor(s, { concurrency: 2 });
    await Promise.all(Array.from({ length: 6 }, () => backend.complete(jsonRequest, live())));
    expect(s.requests).toHaveLength(6);
    expect(s.maxInFlight).toBe(2);
  });

  it('shares one limiter between backends of the same provider', async () => {
    const s = await serve(() => slow(40, reply('{}')));
    const limiter = new Limiter(3);
    const a = backendFor(s, { limiter, model: 'a' });
    const b = backendFor(s, { limiter, model: 'b' });
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).complete(jsonRequest, live())));
    expect(s.maxInFlight).toBe(3);
  });
});

describe('the provider table', () => {
  it('lists each provider once with its base URL and whether it needs a key', () => {
    expect(REMOTE_PROVIDERS).toEqual(['openai', 'openrouter', 'groq', 'together', 'deepseek', 'ollama', 'lmstudio', 'vllm', 'sglang', 'anthropic', 'gemini']);
    expect(OPENAI_COMPATIBLE).toEqual(['openai', 'openrouter', 'groq', 'together', 'deepseek', 'ollama', 'lmstudio', 'vllm', 'sglang']);
    const summary = Object.fromEntries(REMOTE_PROVIDERS.map((id) => [id, [PROVIDERS[id].baseUrl, PROVIDERS[id].needsKey]]));
    expect(summary).toEqual({
      openai: ['https://api.openai.com/v1', true],
      openrouter: ['https://openrouter.ai/api/v1', true],
      groq: ['https://api.groq.com/openai/v1', true],
      together: ['https://api.together.ai/v1', true],
      deepseek: ['https://api.deepseek.com/v1', true],
      ollama: ['http://localhost:11434/v1', false],
      lmstudio: ['http://localhost:1234/v1', false],
      vllm: ['http://localhost:8000/v1', false],
      sglang: ['http://localhost:30000/v1', false],
      anthropic: ['https://api.anthropic.com', true],
      gemini: ['https://generativelanguage.googleapis.com', true],
    });
    for (const id of REMOTE_PROVIDERS) expect(PROVIDERS[id].local).toBe(!PROVIDERS[id].needsKey);
  });

  it('builds a backend named after the provider, as the table describes it, and refuses a base URL that is not http(s)', () => {
    const backend = presetBackend('deepseek', { model: 'deepseek-chat', apiKey: KEY });
    expect(backend).toMatchObject({ name: 'deepseek', model: 'deepseek-chat', capabilities: { jsonSchema: true, tools: true, thinking: true } });
    expect(presetBackend('lmstudio', { model: 'm' })).toMatchObject({ capabilities: { thinking: false }, contextWindow: 4096 });
    expect(presetBackend('openai', { model: 'm' }).contextWindow).toBe(PROVIDERS.openai.contextWindow);
    expect(() => openAiBackend({ baseUrl: 'localhost:11434', model: 'm' })).toThrow(/must start with http:\/\/ or https:\/\/|is not a URL/);
    expect(() => openAiBackend({ baseUrl: 'not a url', model: 'm' })).toThrow(/is not a URL/);
  });
});
