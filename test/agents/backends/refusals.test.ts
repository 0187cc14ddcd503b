/**
 * A provider that declines to answer, in each wire's own shape (the bodies below follow the
 * providers' documented response types: OpenAI's `message.refusal` and `finish_reason:
 * "content_filter"`, Anthropic's `stop_reason: "refusal"` with `stop_details`, Gemini's filter
 * finish reasons and a blocked prompt): the backend reads it as a refusal, not as an empty answer,
 * and the seat plays it as an invalid answer coded `refused`, which the runner retries.
 */
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/agents/backends/anthropic';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { openAiBackend } from '../../../src/agents/backends/openai';
import type { ChatRequest } from '../../../src/agents/backends/types';
import { answerProblem } from '../../../src/agents/llm/problems';
import { PROVIDERS, type RemoteProvider } from '../../../src/agents/providers';
import { runTournament } from '../../../src/engine/tournament';
import { bilateralGame } from '../../../src/games/bilateral/game';
import { MOVE_TOOLS } from '../../../src/games/bilateral/llm/schema';
import { createAgentFactory } from '../../../src/games/bilateral/registry';
import type { NegotiationResult } from '../../../src/games/bilateral/tournament';
import type { Answer, Route } from '../../support/chat-server';
import { policyAnswer } from '../../support/policy-model';
import { live, serverPerTest } from './helpers';

const serve = serverPerTest();

const json = (body: unknown): Answer => ({ kind: 'raw', status: 200, body: JSON.stringify(body), contentType: 'application/json' });

const WORDS = "I can't help with that request.";

/** A refusal as each wire sends it, in a 200. */
const REFUSALS = {
  openaiRefusal: json({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: WORDS }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
  }),
  contentFilter: json({
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }],
    usage: { prompt_tokens: 120, completion_tokens: 0, total_tokens: 120 },
  }),
  anthropic: json({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5-20251001',
    content: [],
    stop_reason: 'refusal',
    stop_sequence: null,
    stop_details: { type: 'refusal', category: 'general_harms', explanation: WORDS },
    usage: { input_tokens: 130, output_tokens: 4 },
  }),
  anthropicBare: json({
    id: 'msg_2',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5',
    content: [{ type: 'text', text: WORDS }],
    stop_reason: 'refusal',
    stop_details: null,
    usage: { input_tokens: 130, output_tokens: 8 },
  }),
  gemini: json({
    candidates: [
      { finishReason: 'PROHIBITED_CONTENT', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] },
    ],
    usageMetadata: { promptTokenCount: 140, totalTokenCount: 140 },
    modelVersion: 'gemini-2.5-flash',
  }),
  geminiBlocked: json({
    promptFeedback: { blockReason: 'PROHIBITED_CONTENT', blockReasonMessage: 'The prompt was blocked.' },
    usageMetadata: { promptTokenCount: 140, totalTokenCount: 140 },
    modelVersion: 'gemini-2.5-flash',
  }),
} as const;

const request: ChatRequest = { messages: [{ role: 'user', content: 'Your move.' }], tools: [...MOVE_TOOLS] };

describe('a refusal, as each backend reads it', () => {
  it('OpenAI: message.refusal in its words, and a content_filter finish by its name', async () => {
    const s = await serve([REFUSALS.openaiRefusal, REFUSALS.contentFilter]);
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'gpt-4o-mini', sleep: async () => {} });
    expect(await backend.complete(request, live())).toEqual({ text: '', tokensIn: 120, tokensOut: 9, model: 'gpt-4o-mini-2024-07-18', refusal: WORDS });
    expect(await backend.complete(request, live())).toMatchObject({ text: '', refusal: 'content_filter' });
    expect(s.requests).toHaveLength(2); // neither retried by the client
  });

  it('Anthropic: a refusal stop in its stop_details words, else in the text that came with it', async () => {
    const s = await serve([REFUSALS.anthropic, REFUSALS.anthropicBare]);
    const backend = anthropicBackend({ baseUrl: s.url, model: 'claude-haiku-4-5', sleep: async () => {} });
    expect(await backend.complete(request, live())).toEqual({
      text: '',
      tokensIn: 130,
      tokensOut: 4,
      model: 'claude-haiku-4-5-20251001',
      refusal: `general_harms: ${WORDS}`,
    });
    expect(await backend.complete(request, live())).toMatchObject({ text: WORDS, refusal: WORDS });
  });

  it('Gemini: a filter finish reason, and a blocked prompt with its message', async () => {
    const s = await serve([REFUSALS.gemini, REFUSALS.geminiBlocked]);
    const backend = geminiBackend({ baseUrl: s.url, model: 'gemini-2.5-flash', sleep: async () => {} });
    expect(await backend.complete(request, live())).toEqual({
      text: '',
      tokensIn: 140,
      tokensOut: 0,
      model: 'gemini-2.5-flash',
      refusal: 'PROHIBITED_CONTENT',
    });
    expect(await backend.complete(request, live())).toMatchObject({ text: '', refusal: 'The prompt was blocked.' });
  });

  it('an ordinary answer carries no refusal', async () => {
    const s = await serve((req) => policyAnswer(req));
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm' });
    expect(await backend.complete(request, live())).not.toHaveProperty('refusal');
  });
});

const REFUSAL_OF: Record<Route, { answer: Answer; words: string }> = {
  openai: { answer: REFUSALS.openaiRefusal, words: WORDS },
  anthropic: { answer: REFUSALS.anthropic, words: `general_harms: ${WORDS}` },
  gemini: { answer: REFUSALS.gemini, words: 'PROHIBITED_CONTENT' },
};

describe.each(['openai', 'vllm', 'anthropic', 'gemini'] as const satisfies readonly RemoteProvider[])('%s: a refusal in a negotiation', (provider) => {
  it('is an invalid answer coded refused, in the provider’s words, and the model is asked again', async () => {
    const wire = PROVIDERS[provider].wire;
    // vLLM stands for the OpenAI-compatible servers, whose filters end with content_filter.
    const { answer, words } = provider === 'vllm' ? { answer: REFUSALS.contentFilter, words: 'content_filter' } : REFUSAL_OF[wire];
    let refused = false;
    const s = await serve((req) => {
      if (refused) return policyAnswer(req);
      refused = true;
      return answer;
    });
    const factory = createAgentFactory({ baseUrls: { [provider]: wire === 'openai' ? `${s.url}/v1` : s.url }, apiKey: () => 'test-key-0011223344' }, {}, {});
    const results: NegotiationResult[] = [];
    await runTournament(
      bilateralGame,
      {
        agents: [`${provider}:test-model`, 'boulware'],
        scenariosPerPair: 1,
        preset: 'standard',
        seed: 42,
        selfPlay: false,
        deadline: { kind: 'fixed', turns: 4 },
      },
      factory,
      { onResult: (r) => void results.push(r) },
    );
    const events = results.flatMap((r) => r.events);
    const invalid = events.filter((e) => e.type === 'invalid');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ attempt: 0, reason: answerProblem('refused', { provider, words }).message, raw: '' });
    // The refusal's tokens were spent, and are on the record.
    expect(invalid[0]?.type === 'invalid' && invalid[0].call?.tokensIn).toBeGreaterThan(0);
    // Asked again, told why, and answered with a move.
    const retried = s.requests[1];
    expect(JSON.stringify(retried?.body)).toContain('refused to answer');
    const next = events[events.indexOf(invalid[0] as (typeof events)[number]) + 1];
    expect(next).toMatchObject({ type: 'move', turn: invalid[0]?.turn });
    expect(results.every((r) => r.outcome.kind !== 'error')).toBe(true);
  });
});
