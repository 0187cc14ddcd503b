import { describe, expect, it } from 'vitest';
import { anthropicBackend, type AnthropicBackendOptions } from '../../../src/agents/backends/anthropic';
import { toAnthropicSchema } from '../../../src/agents/backends/json-schema';
import type { ChatRequest } from '../../../src/agents/backends/types';
import { decodeMove } from '../../../src/games/bilateral/llm/decoder';
import { MOVE_TOOLS } from '../../../src/games/bilateral/llm/schema';
import { failure, rateLimited, reply, slow, toolCall, type ChatServer } from '../../support/chat-server';
import { live, ownHeaders, serverPerTest } from './helpers';

const KEY = 'sk-ant-api03-test-9e8d7c6b';

const serve = serverPerTest();

const backendFor = (s: ChatServer, extra: Partial<AnthropicBackendOptions> = {}) =>
  anthropicBackend({ baseUrl: s.url, model: 'claude-haiku-4-5', apiKey: KEY, sleep: async () => {}, ...extra });

const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are the seller.' },
    { role: 'user', content: 'Your move.' },
  ],
  tools: [...MOVE_TOOLS],
  thinking: false,
  temperature: 0.5,
};

describe('anthropicBackend', () => {
  it('posts to /v1/messages with the system prompt apart, strict tools as input_schema (one required), and the browser-access headers', async () => {
    const s = await serve([toolCall('walk_away', {})]);
    const elsewhere = await serve([]);
    await backendFor(s).complete(request, live());
    const [req] = s.requests;
    expect(req).toMatchObject({ path: '/v1/messages', route: 'anthropic' });
    expect(req?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 512,
      system: 'You are the seller.',
      messages: [{ role: 'user', content: 'Your move.' }],
      tools: MOVE_TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: toAnthropicSchema(t.parameters), strict: true })),
      tool_choice: { type: 'any' },
      temperature: 0.5,
    });
    expect(ownHeaders(req)).toEqual({
      'content-type': 'application/json',
      'x-api-key': KEY,
      'anthropic-version': '2023-06-01',
      'anthropic-dangerous-direct-browser-access': 'true',
    });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('reads tool_use blocks as tool calls, text blocks joined, thinking blocks as thinking, and the usage', async () => {
    const s = await serve([
      {
        kind: 'reply',
        content: 'Fair enough.',
        thinking: 'The buyer is close to my cost.',
        toolCalls: [{ name: 'make_offer', arguments: { price: 95 } }],
        tokensIn: 410,
        tokensOut: 33,
        model: 'claude-test-20250101',
      },
    ]);
    const response = await backendFor(s, { thinking: true }).complete(request, live());
    expect(response).toEqual({
      text: '<think>The buyer is close to my cost.</think>\nFair enough.',
      toolCalls: [{ name: 'make_offer', arguments: '{"price":95}' }],
      tokensIn: 410,
      tokensOut: 33,
      model: 'claude-test-20250101',
    });
    expect(decodeMove(response.text, response.toolCalls)).toEqual({
      ok: true,
      value: { action: { type: 'offer', price: 95 } },
      thinking: 'The buyer is close to my cost.',
    });
  });

  it('asks for extended thinking when the request wants it: the limit holds the budget and the move, no temperature', async () => {
    const s = await serve(() => reply('{}'));
    await backendFor(s).complete({ ...request, thinking: true, maxTokens: 2048 }, live());
    await backendFor(s).complete({ ...request, thinking: true, maxTokens: 600 }, live());
    await backendFor(s, { thinking: false }).complete({ ...request, thinking: true }, live());
    await backendFor(s).complete({ ...request, maxTokens: 300, seed: 7 }, live());
    const [budgeted, floor, cannot, plain] = s.requests.map((r) => r.body as Record<string, unknown>);
    expect(budgeted).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1536 }, max_tokens: 2048 });
    expect(budgeted).not.toHaveProperty('temperature');
    // Anthropic refuses a forced tool call alongside thinking.
    expect(budgeted).not.toHaveProperty('tool_choice');
    // Anthropic's least budget is 1024 tokens, and max_tokens must leave room for the move above it.
    expect(floor).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1536 });
    expect(cannot).not.toHaveProperty('thinking');
    expect(cannot).toMatchObject({ temperature: 0.5, max_tokens: 512 });
    // No seed: Anthropic takes none.
    expect(plain).toMatchObject({ max_tokens: 300 });
    expect(plain).not.toHaveProperty('seed');
    expect(backendFor(s).capabilities).toEqual({ jsonSchema: true, tools: true, thinking: true });
    expect(backendFor(s, { model: 'claude-3-7-sonnet-latest' }).capabilities).toEqual({ jsonSchema: false, tools: true, thinking: true });
  });

  it('reads a max_tokens stop as an answer cut off at the limit', async () => {
    const s = await serve([reply('{"action":{"type":"offer","pri', { cutOff: true }), reply('{}')]);
    expect(await backendFor(s).complete(request, live())).toMatchObject({ truncated: true });
    expect(await backendFor(s).complete(request, live())).not.toHaveProperty('truncated');
  });

  it('retries an overloaded 529 and a 429, then gives up with Anthropic’s message', async () => {
    const s = await serve([failure(529, 'Overloaded'), rateLimited(1), failure(529, 'Overloaded')]);
    const waits: number[] = [];
    const error = await backendFor(s, { maxRetries: 2, sleep: async (ms) => void waits.push(ms), random: () => 0.5, baseDelayMs: 100 })
      .complete(request, live())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'http', status: 529, message: 'anthropic 529: Overloaded (gave up after 3 attempts)' });
    expect(waits).toEqual([50, 1000]);
  });

  it('never puts the key in an error, even when the server echoes it', async () => {
    const s = await serve((req) => failure(401, `invalid x-api-key: ${req.headers['x-api-key']}`));
    const error = await backendFor(s)
      .complete(request, live())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'http', status: 401, message: 'anthropic 401: invalid x-api-key: [redacted]' });
  });

  it('times out a slow answer', async () => {
    const s = await serve([slow(3000, reply('late'))]);
    await expect(backendFor(s, { timeoutMs: 60 }).complete(request, live())).rejects.toMatchObject({ kind: 'timeout' });
  });
});
