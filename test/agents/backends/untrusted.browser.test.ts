/**
 * Untrusted servers in Chromium, where the app calls them: real HTTP servers on 127.0.0.1 (run in
 * Node, driven through test/support/chat-server-commands.ts) and the browser's own fetch, whose
 * redirects and bodies behave otherwise than Node's. A browser drops only Authorization on a
 * redirect to another host: without Parley's refusal it would send x-api-key and x-goog-api-key on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import type {} from '../../support/chat-server-commands';
import type { Answer } from '../../support/chat-server';
import { BackendError, type ChatBackend } from '../../../src/agents/backends/types';
import { MAX_ANSWER_BYTES } from '../../../src/agents/backends/http';
import { RemoteBackends, type RemoteProvider } from '../../../src/agents/remote';

const KEY = 'sk-browser-redirect-key-0123456789';
const started: string[] = [];

async function serve(answers: Answer[], repeat = true): Promise<{ id: string; url: string }> {
  const s = await commands.chatServerStart(answers, { repeat });
  started.push(s.id);
  return s;
}

afterEach(async () => {
  for (const id of started.splice(0)) await commands.chatServerClose(id);
});

const reply: Answer = { kind: 'reply', content: '{"action":{"type":"accept"}}' };
const ask = (backend: ChatBackend) => backend.complete({ messages: [{ role: 'user', content: 'Your move.' }] }, new AbortController().signal);

async function failure(p: Promise<unknown>): Promise<BackendError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (!(e instanceof BackendError)) throw new Error(`expected a BackendError, got ${String(e)}`);
  return e;
}

/** The path each wire dialect posts to, below the base URL the test gives it. */
const CASES: [RemoteProvider, string, string][] = [
  ['anthropic', '', '/v1/messages'],
  ['gemini', '', '/v1beta/models/m:generateContent'],
  ['openai', '/v1', '/v1/chat/completions'],
];

describe('redirects in the browser', () => {
  it.each(CASES)('%s: a 307 to another host is refused, so the key never reaches it, and the error names no key', async (provider, suffix, path) => {
    const elsewhere = await serve([reply]);
    const redirecting = await serve([{ kind: 'redirect', status: 307, location: `${elsewhere.url}${path}?key=${KEY}` }]);
    const backends = new RemoteBackends({ apiKey: () => KEY, baseUrls: { [provider]: `${redirecting.url}${suffix}` }, timeoutMs: 10_000 });
    const error = await failure(ask(backends.get({ provider, model: 'm' })));
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/answered with a redirect/);
    expect(error.message).not.toContain(KEY);
    // Not retried: the same request would be sent the same way.
    expect(await commands.chatServerRequests(redirecting.id)).toHaveLength(1);
    expect(await commands.chatServerRequests(elsewhere.id)).toEqual([]);
    expect((await commands.chatServerState(elsewhere.id)).preflights).toBe(0);
  });

  it('a redirect on the same host is refused too (the browser does not show where it points)', async () => {
    const s = await serve([{ kind: 'redirect', status: 308, location: '/v2/chat/completions' }, reply]);
    const backends = new RemoteBackends({ apiKey: () => KEY, baseUrls: { vllm: `${s.url}/v1` }, timeoutMs: 10_000 });
    const error = await failure(ask(backends.get({ provider: 'vllm', model: 'm' })));
    expect(error.message).toMatch(/redirect to an address the browser does not show/);
    expect((await commands.chatServerRequests(s.id)).map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });
});

describe('answers in the browser', () => {
  it('an answer that never ends is read up to the cap, then abandoned as too large, and the connection dropped', async () => {
    const s = await serve([{ kind: 'stream', chunk: 'x'.repeat(64 * 1024) }]);
    const backends = new RemoteBackends({ baseUrls: { vllm: `${s.url}/v1` }, timeoutMs: 60_000 });
    const error = await failure(ask(backends.get({ provider: 'vllm', model: 'm' })));
    expect(error.kind).toBe('too-large');
    expect(error.message).toBe('vllm: the answer was longer than 4 MB, and was not read further');
    await expect.poll(async () => (await commands.chatServerRequests(s.id))[0]?.streamed?.dropped).toBe(true);
    const sent = (await commands.chatServerRequests(s.id))[0]?.streamed?.bytes ?? 0;
    expect(sent).toBeGreaterThan(MAX_ANSWER_BYTES);
    // Reading stopped: what went out is the cap and what lies in buffers between the server and the
    // page (the kernel's socket buffers and Chromium's network service, which reads ahead of the
    // page: 34.6 MB went out once on a busy machine), not an endless stream, which on loopback would
    // be gigabytes before the 60 s limit.
    expect(sent).toBeLessThan(MAX_ANSWER_BYTES * 32);
    expect(await commands.chatServerRequests(s.id)).toHaveLength(1);
  });

  it('a base URL with a user name and password is refused before any request, in words that do not repeat it', async () => {
    const s = await serve([reply]);
    const url = s.url.replace('http://', 'http://someone:hunter2-password@');
    const backends = new RemoteBackends({ baseUrls: { vllm: `${url}/v1` } });
    let message = '';
    try {
      ask(backends.get({ provider: 'vllm', model: 'm' }));
    } catch (e) {
      message = e instanceof Error ? e.message : String(e);
    }
    expect(message).toMatch(/holds a user name or password/);
    expect(message).not.toMatch(/hunter2|someone/);
    expect(await commands.chatServerRequests(s.id)).toEqual([]);
  });
});
