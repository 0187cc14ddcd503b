import { afterEach, describe, expect, it } from 'vitest';
import { fetchJson, Limiter, providerMessage, retryAfter, retryDelay, type HttpOptions } from '../../../src/agents/backends/http';
import { BackendError } from '../../../src/agents/backends/types';
import { failure, move, rateLimited, reply, serverError, slow, start, type ChatServer, type Script } from '../../support/chat-server';

const KEY = 'sk-test-7f3a9c1e5b2d4806';

/** Longer than any test runs. */
const NEVER_MS = 10 * 60_000;

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: Script): Promise<ChatServer> {
  server = await start(script);
  return server;
}

/** Options whose sleeps are recorded and take no time, and whose jitter is fixed. */
function instant(extra: Partial<HttpOptions> = {}): HttpOptions & { waits: number[] } {
  const waits: number[] = [];
  return {
    provider: 'testai',
    secrets: [KEY],
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    waits,
    ...extra,
  };
}

const post = (url: string, signal?: AbortSignal): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
  body: '{"model":"m"}',
  ...(signal ? { signal } : {}),
});

const call = (s: ChatServer, opts: HttpOptions, signal?: AbortSignal) => fetchJson(`${s.url}/v1/chat/completions`, post(s.url, signal), opts);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('fetchJson: retries', () => {
  it('waits out a Retry-After in seconds, then succeeds', async () => {
    const s = await serve([rateLimited(2), move({ action: { type: 'accept' } })]);
    const opts = instant();
    const answer = await call(s, opts);
    expect(answer).toMatchObject({ choices: [{ message: { content: '{"action":{"type":"accept"}}' } }] });
    expect(opts.waits).toEqual([2000]);
    expect(s.requests).toHaveLength(2);
  });

  it('reads a Retry-After given as an HTTP date against the injected clock, and caps a long one', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const s = await serve([rateLimited('Tue, 01 Jan 2030 00:00:07 GMT'), rateLimited(3600), reply('ok')]);
    const opts = instant({ now: () => now, maxRetryAfterMs: 30_000 });
    await call(s, opts);
    expect(opts.waits).toEqual([7000, 30_000]);
  });

  it('retries a 500 after a jittered backoff, then succeeds', async () => {
    const s = await serve([serverError(), serverError('bad gateway', 502), reply('fine')]);
    const opts = instant({ baseDelayMs: 100, random: () => 0.25 });
    expect(await call(s, opts)).toMatchObject({ choices: [{ message: { content: 'fine' } }] });
    // Full jitter: uniform on [0, base · 2^n]; 0.25 of 100, then of 200.
    expect(opts.waits).toEqual([25, 50]);
  });

  it('grows the backoff ceiling exponentially up to maxDelayMs, jitter within [0, ceiling)', () => {
    const error = new BackendError('http', 'x', { status: 500 });
    const opts = (r: number): HttpOptions => ({ provider: 'p', baseDelayMs: 100, maxDelayMs: 1000, random: () => r });
    const ceilings = [0, 1, 2, 3, 4, 5].map((n) => retryDelay(n, error, opts(0.999999)));
    expect(ceilings).toEqual([99, 199, 399, 799, 999, 999]);
    for (let n = 0; n < 6; n++) expect(retryDelay(n, error, opts(0))).toBe(0);
    // A provider's Retry-After wins over the backoff.
    const asked = new BackendError('rate-limited', 'x', { status: 429, retryAfterMs: 1234 });
    expect(retryDelay(5, asked, opts(0.5))).toBe(1234);
  });

  it('gives up after maxRetries with the provider message and status, never showing the key', async () => {
    // The server echoes the key back in its error body, as some proxies do.
    const s = await serve((req) => serverError(`upstream exploded for ${req.headers.authorization}`, 503));
    const opts = instant({ maxRetries: 2 });
    const error = await rejection(call(s, opts));
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind: 'http', status: 503 });
    expect((error as Error).message).toBe('testai 503: upstream exploded for Bearer [redacted] (gave up after 3 attempts)');
    expect((error as Error).message).not.toContain(KEY);
    expect(String((error as Error).stack)).not.toContain(KEY);
    expect(s.requests).toHaveLength(3);
    expect(opts.waits).toHaveLength(2);
  });

  it('ends a run of 429s as rate-limited, carrying the last Retry-After', async () => {
    const s = await serve(() => rateLimited(1, 'You exceeded your current quota'));
    const error = await rejection(call(s, instant({ maxRetries: 1 })));
    expect(error).toMatchObject({
      kind: 'rate-limited',
      status: 429,
      retryAfterMs: 1000,
      message: 'testai 429: You exceeded your current quota (gave up after 2 attempts)',
    });
  });

  it('does not retry a client error; the message is the provider’s own, key redacted', async () => {
    const s = await serve((req) => failure(401, `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}.`));
    const opts = instant();
    const error = await rejection(call(s, opts));
    expect(error).toMatchObject({ kind: 'http', status: 401, message: 'testai 401: Incorrect API key provided: [redacted].' });
    expect(s.requests).toHaveLength(1);
    expect(opts.waits).toEqual([]);
  });

  it('retries a network failure, then reports it with the host it could not reach', async () => {
    const s = await serve([]);
    const url = s.url;
    await s.close();
    server = undefined;
    const opts = instant({ maxRetries: 1 });
    const error = await rejection(fetchJson(`${url}/v1/chat/completions`, post(url), opts));
    expect(error).toMatchObject({ kind: 'http' });
    expect((error as BackendError).status).toBeUndefined();
    expect((error as Error).message).toMatch(new RegExp(`^testai: could not reach ${url.replace(/\./g, '\\.')} \\(`));
    expect(opts.waits).toHaveLength(1);
  });

  it('retries a 200 that is not JSON, or empty, like a 5xx, then succeeds', async () => {
    const s = await serve([
      { kind: 'raw', status: 200, body: '<html>gateway login</html>', contentType: 'text/html' },
      { kind: 'raw', status: 200, body: '', contentType: 'application/json' },
      { kind: 'raw', status: 200, body: '{"choices":[{"message":{"content":"trunc', contentType: 'application/json' },
      reply('fine'),
    ]);
    const opts = instant({ baseDelayMs: 100, random: () => 0.25 });
    expect(await call(s, opts)).toMatchObject({ choices: [{ message: { content: 'fine' } }] });
    // The same jittered backoff as for a 500.
    expect(opts.waits).toEqual([25, 50, 100]);
    expect(s.requests).toHaveLength(4);
  });

  it('gives up on a server whose every 200 is not JSON after the same retries as a 5xx, saying so', async () => {
    const s = await serve(() => ({ kind: 'raw', status: 200, body: '<html>gateway login</html>', contentType: 'text/html' }));
    const opts = instant();
    const error = await rejection(call(s, opts));
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({
      kind: 'bad-response',
      status: 200,
      message: 'testai answered 200 with something that is not JSON: <html>gateway login</html> (gave up after 4 attempts)',
    });
    expect(s.requests).toHaveLength(4);
    expect(opts.waits).toHaveLength(3);
  });

  it('gives up on a server whose every 200 is empty, saying so', async () => {
    const s = await serve(() => ({ kind: 'raw', status: 200, body: ' \n', contentType: 'application/json' }));
    const error = await rejection(call(s, instant({ maxRetries: 1 })));
    expect(error).toMatchObject({ kind: 'bad-response', status: 200, message: 'testai answered 200 with an empty body (gave up after 2 attempts)' });
    expect(s.requests).toHaveLength(2);
  });

  it('retries what the reader says is worth it, and stops at once at what it says is not', async () => {
    const s = await serve(() => reply('x'));
    let reads = 0;
    const error = await rejection(
      fetchJson(`${s.url}/v1/chat/completions`, post(s.url), instant({ maxRetries: 2 }), () => {
        reads++;
        return { ok: false, error: { kind: 'bad-response', message: 'testai: no message', retry: true } };
      }),
    );
    expect(error).toMatchObject({ kind: 'bad-response', status: 200, message: 'testai: no message (gave up after 3 attempts)' });
    expect(reads).toBe(3);
    const refused = await rejection(
      fetchJson(`${s.url}/v1/chat/completions`, post(s.url), instant(), () => ({
        ok: false,
        error: { kind: 'bad-response', message: 'testai refused the prompt', retry: false },
      })),
    );
    expect(refused).toMatchObject({ kind: 'bad-response', message: 'testai refused the prompt' });
    expect(s.requests).toHaveLength(4);
  });
});

describe('fetchJson: timeout and cancel', () => {
  // The answers below never come while the test runs (the server drops them when it closes): an
  // ending at all shows the client stopped waiting, on any machine, with no clock to read.
  it('ends a slow answer as a timeout, not retried', async () => {
    const s = await serve([slow(NEVER_MS, reply('too late'))]);
    const opts = instant({ timeoutMs: 80 });
    const error = await rejection(call(s, opts));
    expect(error).toMatchObject({ kind: 'timeout', message: 'testai: no answer within 80 ms' });
    // On a loaded machine the 80 ms may pass before the server has read the request: at most one.
    expect(s.requests.length).toBeLessThanOrEqual(1);
    expect(opts.waits).toEqual([]);
  });

  it('rejects with the caller’s reason as soon as it cancels mid-request, and never retries', async () => {
    const s = await serve([slow(NEVER_MS, reply('too late')), reply('not asked')]);
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const opts = instant();
    const pending = call(s, opts, controller.signal);
    while (s.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    await expect.poll(() => s.inFlight, { timeout: 30_000 }).toBe(0); // the connection was dropped, not left hanging
    expect(s.requests).toHaveLength(1);
  });

  it('cancels during a backoff sleep without another attempt', async () => {
    const s = await serve([serverError(), reply('not asked')]);
    const controller = new AbortController();
    const opts = instant({
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          controller.abort(new Error('stop'));
          reject(signal.reason);
        }),
    });
    await expect(call(s, opts, controller.signal)).rejects.toThrow('stop');
    expect(s.requests).toHaveLength(1);
  });

  it('never starts when already cancelled', async () => {
    const s = await serve([reply('not asked')]);
    await expect(call(s, instant(), AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(s.requests).toHaveLength(0);
  });
});

describe('retryAfter and providerMessage', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it('reads seconds, fractions, milliseconds and dates; ignores nonsense', () => {
    const now = () => Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfter(headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfter(headers({ 'retry-after': '0.25' }), now)).toBe(250);
    expect(retryAfter(headers({ 'retry-after-ms': '120', 'retry-after': '9' }), now)).toBe(120);
    expect(retryAfter(headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:02 GMT' }), now)).toBe(2000);
    expect(retryAfter(headers({ 'retry-after': 'Mon, 31 Dec 2029 00:00:00 GMT' }), now)).toBe(0);
    expect(retryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfter(headers({}), now)).toBeUndefined();
  });

  it('finds the message in each provider’s error shape', () => {
    expect(providerMessage('{"error":{"message":"model not found","type":"invalid_request_error"}}')).toBe('model not found');
    expect(providerMessage('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe('Overloaded');
    expect(providerMessage('{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}')).toBe('Resource exhausted');
    expect(providerMessage('{"error":"model \\"qwen3\\" not found, try pulling it first"}')).toBe('model "qwen3" not found, try pulling it first');
    expect(providerMessage('{"detail":[{"msg":"field required"}]}')).toBe('field required');
    expect(providerMessage('{"message":"busy"}')).toBe('busy');
    expect(providerMessage('plain words')).toBe('plain words');
    expect(providerMessage('<html><body>502</body></html>')).toBeUndefined();
    expect(providerMessage('')).toBeUndefined();
  });
});

describe('Limiter', () => {
  it('lets max holders in, queues the rest in order, and passes slots on', async () => {
    const limiter = new Limiter(2);
    const order: string[] = [];
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    const c = limiter.acquire().then((release) => (order.push('c'), release));
    const d = limiter.acquire().then((release) => (order.push('d'), release));
    expect([limiter.active, limiter.waiting]).toEqual([2, 2]);
    a();
    a(); // a second release changes nothing
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect([limiter.active, limiter.waiting]).toEqual([2, 1]);
    b();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    releaseC();
    releaseD();
    expect([limiter.active, limiter.waiting]).toEqual([0, 0]);
  });

  it('drops a waiter whose signal is aborted, with the signal’s reason', async () => {
    const limiter = new Limiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    const after = limiter.acquire();
    controller.abort(new Error('cancelled while queued'));
    await expect(waiting).rejects.toThrow('cancelled while queued');
    expect(limiter.waiting).toBe(1);
    held();
    (await after)();
    expect(limiter.active).toBe(0);
    await expect(limiter.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('runs a task holding a slot, and refuses a limit that is not a whole number ≥ 1', async () => {
    const limiter = new Limiter(1);
    expect(await limiter.run(async () => limiter.active)).toBe(1);
    expect(limiter.active).toBe(0);
    await expect(limiter.run(async () => Promise.reject(new Error('task failed')))).rejects.toThrow('task failed');
    expect(limiter.active).toBe(0);
    expect(() => new Limiter(0)).toThrow(RangeError);
    expect(() => new Limiter(1.5)).toThrow(RangeError);
  });
});
