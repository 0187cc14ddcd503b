/**
 * The grammar warm-up: one tiny request per distinct move format, with exactly the
 * response_format the seats' moves will send (WebLLM keys its compiled grammar by it), each
 * request passing WebLLM's own validator.
 */
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../src/agents/backends/types';
import { WEBLLM_CAPABILITIES, webLlmBackend } from '../../../../src/agents/backends/webllm/backend';
import { warmUpGrammars, warmUpRequest } from '../../../../src/agents/backends/webllm/warmup';
import { bilateralMoveAsk, llmAgent } from '../../../../src/games/bilateral/llm/agent';
import { type LlmAgentOptions } from '../../../../src/agents/llm/seat';
import { observeAfter, scenario } from '../../fixtures';
import { fakeEngine } from './fake-engine';
import { validatedEngine } from './validated-engine';

const MODEL = 'Qwen3-1.7B-q4f16_1-MLC';
const never = () => new AbortController().signal;
const ask = (opts: LlmAgentOptions) => bilateralMoveAsk(WEBLLM_CAPABILITIES, opts);

/** The response_format a seat with these options sends with its first move. */
async function moveFormatOf(opts: LlmAgentOptions) {
  const engine = validatedEngine(() => ({ text: '{"action":{"type":"accept"}}' }));
  await llmAgent(webLlmBackend({ engine, modelId: MODEL }), opts).act(observeAfter(scenario(120, 80), []), never());
  return engine.requests[0]?.response_format;
}

describe('warmUpGrammars', () => {
  it('sends one one-token request per distinct format, with the very response_format the moves send', async () => {
    const engine = validatedEngine();
    let clock = 0;
    const told: [number, number][] = [];
    const seats: LlmAgentOptions[] = [{ interface: 'tools' }, { interface: 'json', thinking: true }, { interface: 'tools' }, { interface: 'json' }];
    const warmed = await warmUpGrammars(engine, MODEL, seats.map(ask), never(), {
      onGrammar: (index, count) => told.push([index, count]),
      now: () => (clock += 250),
    });
    expect(engine.refused).toEqual([]);
    expect(engine.requests).toHaveLength(3);
    expect(told).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(engine.requests.map((r) => r.response_format)).toEqual([
      await moveFormatOf({ interface: 'tools' }),
      await moveFormatOf({ interface: 'json', thinking: true }),
      await moveFormatOf({ interface: 'json' }),
    ]);
    for (const request of engine.requests) {
      expect(request).toMatchObject({ model: MODEL, max_tokens: 1, stream: false, messages: [{ role: 'user', content: 'Hi' }] });
      expect(request).not.toHaveProperty('tools');
    }
    expect(engine.requests.map((r) => r.extra_body)).toEqual([{ enable_thinking: false }, { enable_thinking: true }, { enable_thinking: false }]);
    // WebLLM times the grammar of a json_object alone; the whole request is timed for every format.
    expect(warmed).toEqual([
      { type: 'structural_tag', ms: 250 },
      { type: 'structural_tag', ms: 250 },
      { type: 'json_object', ms: 250, grammarMs: 1 },
    ]);
  });

  it('an ask without a grammar sends nothing', async () => {
    const engine = validatedEngine();
    expect(warmUpRequest(MODEL, { thinking: false })).toBeUndefined();
    expect(await warmUpGrammars(engine, MODEL, [{ thinking: false }], never())).toEqual([]);
    expect(engine.requests).toEqual([]);
  });

  it('stops at an abort: nothing more is sent, and it rejects with the reason', async () => {
    const engine = validatedEngine();
    const controller = new AbortController();
    const reason = new Error('page closed');
    const pending = warmUpGrammars(engine, MODEL, [ask({ interface: 'tools' }), ask({ interface: 'json' })], controller.signal, {
      onGrammar: (index) => {
        if (index === 1) controller.abort(reason);
      },
    });
    await expect(pending).rejects.toBe(reason);
    expect(engine.requests).toHaveLength(1);
  });

  it('a WebLLM failure is the BackendError a move would get', async () => {
    const thrown = () => ({ reject: new Error('Device was lost. This can happen due to insufficient memory or other GPU constraints.') });
    const warmUpError = await warmUpGrammars(fakeEngine([thrown()]), MODEL, [ask({ interface: 'json' })], never()).catch((e: unknown) => e);
    const moveError = await webLlmBackend({ engine: fakeEngine([thrown()]), modelId: MODEL })
      .complete({ messages: [{ role: 'user', content: 'Hi' }], ...ask({ interface: 'json' }) }, never())
      .catch((e: unknown) => e);
    expect(warmUpError).toBeInstanceOf(BackendError);
    expect(warmUpError).toEqual(moveError);
    expect((warmUpError as BackendError).kind).toBe((moveError as BackendError).kind);
  });
});
