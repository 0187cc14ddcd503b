/**
 * Every provider of the table, each in its own dialect, played through the agent factory against
 * the local chat server, which records what each request asked for: the token limit, the seed
 * (the same again on a rerun), thinking with and without `+think`, and tools or JSON per interface.
 */
import { describe, expect, it } from 'vitest';
import { MOVE_TOKENS, THINKING_MAX_TOKENS } from '../../../src/agents/backends/types';
import type { MoveInterface } from '../../../src/agents/llm/settings';
import { PROVIDERS, REMOTE_PROVIDERS, canThink, type RemoteProvider } from '../../../src/agents/providers';
import { createAgentFactory } from '../../../src/games/bilateral/registry';
import { parseAgentSpec } from '../../../src/games/bilateral/specs';
import type { NegotiationResult } from '../../../src/games/bilateral/tournament';
import type { ChatServer, RecordedRequest } from '../../support/chat-server';
import { policyAnswer } from '../../support/policy-model';
import { serverPerTest } from './helpers';
import { runTournament } from '../../../src/engine/tournament';
import { bilateralGame } from '../../../src/games/bilateral/game';

const serve = serverPerTest();

type Body = Record<string, unknown>;
const bodyOf = (r: RecordedRequest): Body => r.body as Body;
const configOf = (r: RecordedRequest): Body => (bodyOf(r).generationConfig ?? {}) as Body;

/** One short negotiation of `spec` against boulware, at a fixed seed; the requests it made. */
async function play(s: ChatServer, spec: string, moveInterface: MoveInterface): Promise<RecordedRequest[]> {
  const provider = spec.slice(0, spec.indexOf(':')) as RemoteProvider;
  const base = PROVIDERS[provider].wire === 'openai' ? `${s.url}/v1` : s.url;
  const factory = createAgentFactory({ baseUrls: { [provider]: base }, apiKey: () => 'test-key-0011223344' }, {}, { interface: moveInterface });
  const before = s.requests.length;
  await runTournament(
    bilateralGame,
    { agents: [spec, 'boulware'], scenariosPerPair: 1, preset: 'standard', seed: 42, selfPlay: false, deadline: { kind: 'fixed', turns: 6 } },
    factory,
  );
  return s.requests.slice(before);
}

/** What a request said about thinking, in its provider's dialect; undefined where it said nothing. */
function thinkingSaid(provider: RemoteProvider, r: RecordedRequest): unknown {
  const body = bodyOf(r);
  switch (PROVIDERS[provider].thinking) {
    case 'reasoning-effort':
    case 'ollama-think':
      return body.reasoning_effort;
    case 'openrouter-reasoning':
      return body.reasoning;
    case 'deepseek-thinking':
      return body.thinking;
    case 'chat-template-kwargs':
      return body.chat_template_kwargs;
    case 'anthropic-adaptive':
      return body.thinking;
    case 'gemini-thinking-config':
      return configOf(r).thinkingConfig;
    case 'none':
      return undefined;
  }
}

const THINKING_OFF: Record<RemoteProvider, unknown> = {
  openai: undefined, // non-reasoning models refuse reasoning_effort: off is its absence
  openrouter: { effort: 'none' },
  groq: undefined,
  together: undefined,
  deepseek: { type: 'disabled' },
  ollama: 'none',
  lmstudio: undefined,
  vllm: { enable_thinking: false },
  sglang: { enable_thinking: false },
  anthropic: undefined,
  gemini: { thinkingBudget: 0 },
};

const THINKING_ON: Partial<Record<RemoteProvider, unknown>> = {
  openai: 'low',
  openrouter: { effort: 'low' },
  deepseek: { type: 'enabled' },
  ollama: 'low',
  vllm: { enable_thinking: true },
  sglang: { enable_thinking: true },
  // An id of no older family is taken for one of the newest models, which think adaptively.
  anthropic: { type: 'adaptive' },
  gemini: { thinkingBudget: THINKING_MAX_TOKENS - MOVE_TOKENS, includeThoughts: true },
};

function tokenLimit(provider: RemoteProvider, r: RecordedRequest): unknown {
  if (PROVIDERS[provider].wire === 'gemini') return configOf(r).maxOutputTokens;
  return bodyOf(r)[PROVIDERS[provider].maxTokensField];
}

const seedOf = (provider: RemoteProvider, r: RecordedRequest): unknown => (PROVIDERS[provider].wire === 'gemini' ? configOf(r).seed : bodyOf(r).seed);

/** Whether the request offered the move tools, in its dialect, and asked for JSON. */
function asked(provider: RemoteProvider, r: RecordedRequest): { tools: string[]; json: unknown } {
  const body = bodyOf(r);
  const tools = (body.tools ?? []) as Record<string, unknown>[];
  switch (PROVIDERS[provider].wire) {
    case 'openai':
      return { tools: tools.map((t) => (t.function as { name: string }).name), json: body.response_format };
    case 'anthropic':
      return { tools: tools.map((t) => t.name as string), json: (body.output_config as { format?: { type: string } } | undefined)?.format?.type };
    case 'gemini':
      return {
        tools: tools.flatMap((t) => (t.functionDeclarations as { name: string }[]).map((d) => d.name)),
        json: configOf(r).responseSchema === undefined ? undefined : configOf(r).responseMimeType,
      };
  }
}

const TOOL_NAMES = ['make_offer', 'respond_to_offer', 'send_message', 'walk_away'];

/** How a request forced a tool call, in its dialect; undefined where it left the choice to the model. */
function toolChoiceOf(provider: RemoteProvider, r: RecordedRequest): unknown {
  const body = bodyOf(r);
  return PROVIDERS[provider].wire === 'gemini' ? body.toolConfig : body.tool_choice;
}

const FORCED: Record<'openai' | 'anthropic' | 'gemini', unknown> = {
  openai: 'required',
  anthropic: { type: 'any' },
  gemini: { functionCallingConfig: { mode: 'ANY' } },
};

describe.each(REMOTE_PROVIDERS)('%s, in its own dialect', (provider) => {
  const info = PROVIDERS[provider];
  const spec = `${provider}:test-model`;

  it('limits every answer to a move, seeds it where the provider takes a seed (the same on a rerun), and says thinking is off', async () => {
    const s = await serve(policyAnswer);
    const first = await play(s, spec, 'tools');
    const again = await play(s, spec, 'tools');
    expect(first.length).toBeGreaterThan(1);
    for (const r of first) {
      expect(r.model).toBe('test-model');
      expect(tokenLimit(provider, r)).toBe(MOVE_TOKENS);
      expect(thinkingSaid(provider, r)).toEqual(THINKING_OFF[provider]);
    }
    const seeds = first.map((r) => seedOf(provider, r));
    if (info.seed) {
      for (const seed of seeds) expect(Number.isInteger(seed)).toBe(true);
      expect(new Set(seeds).size).toBe(seeds.length); // each turn its own seed
    } else for (const seed of seeds) expect(seed).toBeUndefined();
    expect(again.map((r) => seedOf(provider, r))).toEqual(seeds);
    expect(again.map((r) => bodyOf(r))).toEqual(first.map((r) => bodyOf(r)));
  });

  if (canThink(provider))
    it('with +think, turns thinking on in its dialect and gives it the larger limit', async () => {
      const s = await serve(policyAnswer);
      const requests = await play(s, `${spec}+think`, 'tools');
      expect(requests.length).toBeGreaterThan(1);
      for (const r of requests) {
        expect(thinkingSaid(provider, r)).toEqual(THINKING_ON[provider]);
        expect(tokenLimit(provider, r)).toBe(THINKING_MAX_TOKENS);
        // Reasoning models at OpenAI and Anthropic's extended thinking refuse a temperature.
        const temperature = info.wire === 'gemini' ? configOf(r).temperature : bodyOf(r).temperature;
        if (provider === 'openai' || provider === 'anthropic') expect(temperature).toBeUndefined();
        else expect(temperature).toBe(0.7);
        // Forced only where thinking and a forced call go together.
        expect(toolChoiceOf(provider, r)).toEqual(info.forceTool === 'always' ? FORCED[info.wire] : undefined);
      }
    });
  else
    it('refuses +think when the spec is read, naming the providers that can think', () => {
      const parsed = parseAgentSpec(`${spec}+think`);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatchObject({ code: 'cannot-think', data: { provider: spec.slice(0, spec.indexOf(':')) } });
    });

  it('refuses an answer stopped at the limit as "cut off at N tokens", and the model tries again', async () => {
    let cut = false;
    const s = await serve((req) => {
      const answer = policyAnswer(req);
      if (cut || answer.kind !== 'reply') return answer;
      cut = true;
      return { ...answer, cutOff: true };
    });
    const factory = createAgentFactory(
      { baseUrls: { [provider]: info.wire === 'openai' ? `${s.url}/v1` : s.url }, apiKey: () => 'test-key-0011223344' },
      {},
      { maxTokens: 300 },
    );
    const results: NegotiationResult[] = [];
    await runTournament(
      bilateralGame,
      { agents: [spec, 'boulware'], scenariosPerPair: 1, preset: 'standard', seed: 42, selfPlay: false, deadline: { kind: 'fixed', turns: 4 } },
      factory,
      { onResult: (r) => void results.push(r) },
    );
    const invalid = results.flatMap((r) => r.events.filter((e) => e.type === 'invalid'));
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ attempt: 0, reason: 'cut off at 300 tokens; answer briefly' });
    expect(results.every((r) => r.outcome.kind !== 'error')).toBe(true);
  });

  it('offers the four tools and no JSON format with --interface tools; the JSON format and no tools with --interface json', async () => {
    const s = await serve(policyAnswer);
    const tools = await play(s, spec, 'tools');
    const json = await play(s, spec, 'json');
    for (const r of tools) {
      expect(asked(provider, r)).toEqual({ tools: TOOL_NAMES, json: undefined });
      expect(toolChoiceOf(provider, r)).toEqual(info.forceTool === 'never' ? undefined : FORCED[info.wire]);
    }
    for (const r of json) expect(toolChoiceOf(provider, r)).toBeUndefined();
    const format =
      info.wire === 'gemini'
        ? 'application/json'
        : info.wire === 'anthropic'
          ? 'json_schema' // output_config.format
          : info.json === 'json_schema'
            ? { type: 'json_schema', json_schema: expect.objectContaining({ name: 'negotiation_move' }) }
            : info.json === 'json_object'
              ? { type: 'json_object' }
              : undefined;
    for (const r of json) expect(asked(provider, r)).toEqual({ tools: [], json: format });
    // The move schemas are strict-ready, so a provider the table marks strict gets `strict: true`
    // on its JSON-schema format and every tool (OpenAI's wire; Anthropic's strict tools are its own).
    if (info.wire === 'openai') {
      const strict = info.strict ? true : undefined;
      for (const r of json) if (info.json === 'json_schema') expect((bodyOf(r).response_format as { json_schema: Body }).json_schema.strict).toBe(strict);
      for (const r of tools) for (const t of bodyOf(r).tools as { function: Body }[]) expect(t.function.strict).toBe(strict);
    }
    // Both interfaces played whole negotiations from what the server answered.
    expect(tools.length).toBeGreaterThan(1);
    expect(json.length).toBeGreaterThan(1);
  });
});
