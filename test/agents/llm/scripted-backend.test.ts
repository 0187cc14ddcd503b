import { describe, expect, it } from 'vitest';
import { scriptedBackend } from '../../../src/agents/backends/scripted';
import { BACKEND_ERROR_KINDS, BackendError, type ChatRequest } from '../../../src/agents/backends/types';

const request = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }] });
const live = () => new AbortController().signal;

describe('scriptedBackend', () => {
  it('answers in order, records each request, throws scripted errors and runs scripted functions', async () => {
    const backend = scriptedBackend([
      { text: 'one', tokensIn: 1, tokensOut: 2 },
      new BackendError('rate-limited', 'slow down', { status: 429, retryAfterMs: 2000 }),
      (req) => ({ text: `echo ${req.messages[0]?.content}`, tokensIn: 3, tokensOut: 4 }),
      async () => ({ text: 'later', tokensIn: 0, tokensOut: 0, toolCalls: [{ name: 'walk_away', arguments: '{}' }] }),
    ]);
    expect(await backend.complete(request('a'), live())).toEqual({ text: 'one', tokensIn: 1, tokensOut: 2 });
    await expect(backend.complete(request('b'), live())).rejects.toMatchObject({ kind: 'rate-limited', status: 429, retryAfterMs: 2000 });
    expect(await backend.complete(request('c'), live())).toMatchObject({ text: 'echo c' });
    expect(await backend.complete(request('d'), live())).toMatchObject({ toolCalls: [{ name: 'walk_away', arguments: '{}' }] });
    expect(backend.remaining).toBe(0);
    await expect(backend.complete(request('e'), live())).rejects.toThrow(/no reply left for request 5/);
    expect(backend.requests.map((r) => r.messages[0]?.content)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(backend).toMatchObject({ name: 'scripted', model: 'scripted-model', capabilities: { jsonSchema: true, tools: true, thinking: true } });
  });

  it('passes simulated latency through the injected sleep', async () => {
    const slept: number[] = [];
    const backend = scriptedBackend(
      [
        { text: 'a', tokensIn: 0, tokensOut: 0 },
        { text: 'b', tokensIn: 0, tokensOut: 0 },
      ],
      { latencyMs: (i) => 100 * (i + 1), sleep: async (ms) => void slept.push(ms) },
    );
    await backend.complete(request('x'), live());
    await backend.complete(request('y'), live());
    expect(slept).toEqual([100, 200]);
  });

  it('waits real time when no sleep is given', async () => {
    const backend = scriptedBackend([{ text: 'a', tokensIn: 0, tokensOut: 0 }], { latencyMs: 20 });
    const started = performance.now();
    await backend.complete(request('x'), live());
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('honours the abort signal before, during and after the wait', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('stop'));
    const backend = scriptedBackend([{ text: 'a', tokensIn: 0, tokensOut: 0 }]);
    await expect(backend.complete(request('x'), aborted.signal)).rejects.toThrow('stop');
    expect(backend.remaining).toBe(1);

    const during = new AbortController();
    const slow = scriptedBackend([{ text: 'a', tokensIn: 0, tokensOut: 0 }], { latencyMs: 60_000 });
    const pending = slow.complete(request('x'), during.signal);
    during.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');

    const hanging = new AbortController();
    const never = scriptedBackend([() => new Promise(() => {})]);
    const stuck = never.complete(request('x'), hanging.signal);
    hanging.abort(new Error('gave up'));
    await expect(stuck).rejects.toThrow('gave up');
  });

  it('hands out copies, so a caller cannot change the script', async () => {
    const scripted = { text: 'a', tokensIn: 0, tokensOut: 0, toolCalls: [{ name: 'make_offer', arguments: '{"price":1}' }] };
    const backend = scriptedBackend([scripted]);
    const got = await backend.complete(request('x'), live());
    got.toolCalls![0]!.name = 'walk_away';
    expect(scripted.toolCalls[0]?.name).toBe('make_offer');
  });
});

describe('BackendError', () => {
  it('carries its kind and status, and never the secrets it is told to hide', () => {
    const key = 'sk-test-0123456789abcdef';
    const e = new BackendError('http', `401 Unauthorized: invalid key ${key}`, { status: 401, redact: [key] });
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: 'BackendError', kind: 'http', status: 401 });
    expect(e.message).toBe('401 Unauthorized: invalid key [redacted]');
    expect(BACKEND_ERROR_KINDS).toContain(e.kind);
  });
});
