/**
 * What a server can make a client spend: an answer is read up to MAX_ANSWER_BYTES and then
 * abandoned (the seat's answer is invalid, with its reason, and the negotiation goes on); an
 * error body is read only as far as its message is shown; a Retry-After is never waited out for
 * longer than the attempt's own time. Real servers on 127.0.0.1; sleeps are recorded, not slept.
 */
import { describe, expect, it } from 'vitest';
import { fetchJson, MAX_ANSWER_BYTES, retryAfter, retryDelay, type HttpOptions } from '../../../src/agents/backends/http';
import { openAiBackend } from '../../../src/agents/backends/openai';
import { BackendError } from '../../../src/agents/backends/types';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { BilateralEventSchema } from '../../../src/games/bilateral/events';
import { playNegotiation } from '../../../src/games/bilateral/tournament';
import { endless, move, rateLimited, reply, type ChatServer } from '../../support/chat-server';
import { agent, scenario } from '../fixtures';
import { live, serverPerTest } from './helpers';

const serve = serverPerTest();

function instant(extra: Partial<HttpOptions> = {}): HttpOptions & { waits: number[] } {
  const waits: number[] = [];
  return { provider: 'testai', sleep: async (ms) => void waits.push(ms), random: () => 0.5, waits, ...extra };
}

const post: RequestInit = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"model":"m"}' };
const call = (s: ChatServer, opts: HttpOptions) => fetchJson(`${s.url}/v1/chat/completions`, post, opts);

async function failure(p: Promise<unknown>): Promise<BackendError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (!(e instanceof BackendError)) throw new Error(`expected a BackendError, got ${String(e)}`);
  return e;
}

describe('the size of an answer', () => {
  it('an answer that never ends is read up to the cap, abandoned as too large, not retried, and its connection dropped', async () => {
    const s = await serve(() => endless());
    // A timeout longer than the test: the cap, not the clock, is what ends the read.
    const error = await failure(call(s, instant({ timeoutMs: 10 * 60_000 })));
    expect(error).toMatchObject({ kind: 'too-large', status: 200, message: 'testai: the answer was longer than 4 MB, and was not read further' });
    await expect.poll(() => s.requests[0]?.streamed?.dropped).toBe(true);
    expect(s.requests[0]?.streamed?.bytes).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(s.requests[0]?.streamed?.bytes).toBeLessThan(MAX_ANSWER_BYTES * 8);
    expect(s.requests).toHaveLength(1);
  });

  it('counts bytes, not characters, and takes an answer of exactly the cap', async () => {
    const body = JSON.stringify({ text: 'é'.repeat(40) }); // 2 bytes each
    const bytes = new TextEncoder().encode(body).length;
    const s = await serve(() => ({ kind: 'raw', status: 200, body, contentType: 'application/json' }));
    expect(await call(s, instant({ maxAnswerBytes: bytes }))).toEqual({ text: 'é'.repeat(40) });
    const error = await failure(call(s, instant({ maxAnswerBytes: bytes - 1 })));
    expect(error).toMatchObject({
      kind: 'too-large',
      message: `testai: the answer was longer than ${(bytes - 1).toLocaleString('en-US')} bytes, and was not read further`,
    });
  });

  it('an error body that never ends is read only as far as its message, and the request retried', async () => {
    const s = await serve([endless('{"error":{"message":"overloaded"}} ', { status: 503 }), reply('fine')]);
    const opts = instant({ timeoutMs: 10 * 60_000 });
    expect(await call(s, opts)).toMatchObject({ choices: [{ message: { content: 'fine' } }] });
    expect(opts.waits).toHaveLength(1);
    await expect.poll(() => s.requests[0]?.streamed?.dropped).toBe(true);
    expect(s.requests[0]?.streamed?.bytes).toBeLessThan(MAX_ANSWER_BYTES);
  });

  it('in a negotiation, an answer too large to read is an invalid answer with its reason, told to the model, and play goes on', async () => {
    // Every buyer turn: two endless answers, then a move; the seller is scripted.
    let calls = 0;
    const s = await serve(() => (++calls % 3 === 0 ? move({ action: { type: 'offer', price: 80 } }) : endless()));
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', jsonMode: 'json_schema', sleep: async () => {}, random: () => 0 });
    const played = await playNegotiation(scenario(150, 90, { listPrice: 200, turnLimit: 4, firstMover: 'buyer' }), {
      buyer: llmAgent(backend, { interface: 'json' }),
      seller: agent('boulware', 'seller'),
    });
    expect(played.outcome.kind).toBe('turn_limit');
    const invalid = played.events.filter((e) => e.type === 'invalid');
    expect(invalid).toHaveLength(4);
    for (const e of invalid)
      expect(e).toMatchObject({ actor: 'buyer', raw: '', reason: 'openai: the answer was longer than 4 MB, and was not read further; answer briefly' });
    expect(played.events.filter((e) => e.type === 'move' && e.actor === 'buyer')).toHaveLength(2);
    // The retry says why the last answer was refused.
    expect(JSON.stringify(s.requests[1]?.body)).toContain('the answer was longer than 4 MB');
    expect(JSON.stringify(played).length).toBeLessThan(100_000);
    for (const e of played.events) expect(BilateralEventSchema.safeParse(e).success).toBe(true);
  });
});

describe('Retry-After', () => {
  it('is waited out for no longer than the attempt’s own time (--timeout-ms), however long it asks', async () => {
    const s = await serve([rateLimited(86_400), rateLimited('Tue, 01 Jan 2999 00:00:00 GMT'), reply('ok')]);
    const opts = instant({ timeoutMs: 5000, now: () => Date.parse('2030-01-01T00:00:00Z') });
    await call(s, opts);
    expect(opts.waits).toEqual([5000, 5000]);
  });

  it('is cut to the documented cap (60 s) when the attempt’s time is longer, and to the shorter of the two', () => {
    const asked = new BackendError('rate-limited', 'x', { status: 429, retryAfterMs: 86_400_000 });
    expect(retryDelay(0, asked, { provider: 'p' })).toBe(60_000);
    expect(retryDelay(0, asked, { provider: 'p', timeoutMs: 3_600_000 })).toBe(60_000);
    expect(retryDelay(0, asked, { provider: 'p', timeoutMs: 1500 })).toBe(1500);
    expect(retryDelay(0, new BackendError('rate-limited', 'x', { retryAfterMs: 700 }), { provider: 'p', timeoutMs: 1500 })).toBe(700);
  });

  it('reads an absurd figure as a finite wait', () => {
    const now = () => 0;
    expect(retryAfter(new Headers({ 'retry-after': '9'.repeat(400) }), now)).toBe(7 * 24 * 3_600_000);
    expect(retryAfter(new Headers({ 'retry-after-ms': '9'.repeat(400) }), now)).toBe(7 * 24 * 3_600_000);
  });

  it('through a backend: the timeout it is given bounds the wait', async () => {
    const s = await serve([rateLimited(3600), move({ action: { type: 'accept' } })]);
    const waits: number[] = [];
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', timeoutMs: 2500, sleep: async (ms) => void waits.push(ms) });
    await backend.complete({ messages: [{ role: 'user', content: 'hi' }] }, live());
    expect(waits).toEqual([2500]);
  });
});
