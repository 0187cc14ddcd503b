/**
 * Keys and addresses in Node (the command line's fetch, which follows redirects on its own terms):
 * no redirect is followed, so a key goes only to the address it was given for; a base URL with a
 * user name or password is refused before anything is sent; and every URL an error quotes is
 * stripped of its credentials and query values. Real servers on 127.0.0.1 stand in for the
 * provider and for the host it points elsewhere to.
 */
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/agents/backends/anthropic';
import { fetchJson } from '../../../src/agents/backends/http';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { openAiBackend } from '../../../src/agents/backends/openai';
import { BackendError, type ChatBackend } from '../../../src/agents/backends/types';
import { RemoteBackends } from '../../../src/agents/remote';
import { checkBaseUrl, redactUrls, REMOTE_INPUT_PROBLEMS } from '../../../src/agents/remote-input';
import { redirect, reply, type ChatServer } from '../../support/chat-server';
import { live, serverPerTest } from './helpers';

const KEY = 'sk-node-redirect-key-0123456789abcdef';
const PASSWORD = 'hunter2-very-secret';
const serve = serverPerTest();
const noWait = { sleep: async () => {}, random: () => 0 };

async function failure(p: Promise<unknown>): Promise<BackendError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (!(e instanceof BackendError)) throw new Error(`expected a BackendError, got ${String(e)}`);
  return e;
}

const ask = (backend: ChatBackend) => backend.complete({ messages: [{ role: 'user', content: 'Your move.' }] }, live());
const seen = (s: ChatServer) => JSON.stringify(s.requests.map((r) => r.headers));

const CLIENTS: [string, string, (url: string) => ChatBackend][] = [
  ['anthropic (x-api-key)', '/v1/messages', (url) => anthropicBackend({ baseUrl: url, model: 'm', apiKey: KEY, ...noWait })],
  ['gemini (x-goog-api-key)', '/v1beta/models/m:generateContent', (url) => geminiBackend({ baseUrl: url, model: 'm', apiKey: KEY, ...noWait })],
  ['openai (Authorization)', '/v1/chat/completions', (url) => openAiBackend({ baseUrl: `${url}/v1`, model: 'm', apiKey: KEY, ...noWait })],
];

describe('redirects', () => {
  it.each(CLIENTS)('%s: a 307 to another host is refused at once, naming that host and no key', async (_, path, make) => {
    const elsewhere = await serve(() => reply('{"action":{"type":"accept"}}'));
    const redirecting = await serve(() => redirect(`${elsewhere.url}${path}?key=${KEY}`));
    const error = await failure(ask(make(redirecting.url)));
    expect(error).toMatchObject({ kind: 'http', status: 307 });
    expect(error.message).toContain(`answered with a redirect 307 to ${elsewhere.url};`);
    expect(error.message).not.toContain(KEY);
    expect(redirecting.requests).toHaveLength(1);
    expect(elsewhere.requests).toEqual([]);
    expect(seen(elsewhere)).not.toContain(KEY);
  });

  it('every kind of redirect is refused, on the same host as on another', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const s = await serve([redirect('/v2/chat/completions', status), reply('not asked')]);
      const error = await failure(ask(CLIENTS[2]![2](s.url)));
      expect(error).toMatchObject({ kind: 'http', status });
      expect(error.message).toContain(`to ${s.url};`);
      expect(s.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    }
  });

  it('through the registry as the app and the command line build it: the key set for one host never reaches another', async () => {
    const elsewhere = await serve(() => reply('{"action":{"type":"accept"}}'));
    const redirecting = await serve(() => redirect(`${elsewhere.url}/v1/messages`));
    const backends = new RemoteBackends({ apiKey: () => KEY, baseUrls: { anthropic: redirecting.url }, timeoutMs: 5000 });
    await failure(ask(backends.get({ provider: 'anthropic', model: 'm' })));
    expect(redirecting.requests[0]?.headers['x-api-key']).toBe(KEY);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('base URLs with a user name or password', () => {
  it('are refused by the check the page, the worker and the command line share, in words that do not repeat them', () => {
    for (const url of [`http://user:${PASSWORD}@127.0.0.1:8000/v1`, `https://${PASSWORD}@api.example.com`, `http://u:${PASSWORD}@x y`]) {
      const checked = checkBaseUrl(url);
      expect(checked.ok ? null : checked.error.code, url).toBe(url.includes(' ') ? 'base-url-not-url' : 'base-url-has-credentials');
      expect(JSON.stringify(checked)).not.toContain(PASSWORD);
    }
    expect(checkBaseUrl(' http://127.0.0.1:8000/v1 ')).toEqual({ ok: true, value: 'http://127.0.0.1:8000/v1' });
    expect(checkBaseUrl('ftp://127.0.0.1/')).toMatchObject({ ok: false, error: { code: 'base-url-not-http' } });
  });

  it('are refused when a backend is made, before any request, so nothing is retried and nothing quotes them', async () => {
    const s = await serve(() => reply('{"action":{"type":"accept"}}'));
    const withPassword = s.url.replace('http://', `http://user:${PASSWORD}@`);
    for (const make of [
      () => openAiBackend({ baseUrl: `${withPassword}/v1`, model: 'm' }),
      () => anthropicBackend({ baseUrl: withPassword, model: 'm' }),
      () => geminiBackend({ baseUrl: withPassword, model: 'm' }),
      () => new RemoteBackends({ baseUrl: withPassword }).get({ provider: 'vllm', model: 'm' }),
    ]) {
      let message = '';
      try {
        make();
      } catch (e) {
        message = e instanceof Error ? e.message : String(e);
      }
      expect(message).toBe(REMOTE_INPUT_PROBLEMS['base-url-has-credentials']());
    }
    expect(s.requests).toEqual([]);
  });
});

describe('URLs in error messages', () => {
  it('lose their user name, password, query values and fragment', () => {
    expect(redactUrls(`fetch failed for http://user:${PASSWORD}@127.0.0.1:9/v1/chat/completions (ECONNREFUSED)`)).toBe(
      'fetch failed for http://127.0.0.1:9/v1/chat/completions (ECONNREFUSED)',
    );
    expect(redactUrls(`see https://host.example/v1beta/models/m:generateContent?key=${KEY}&alt=json#frag.`)).toBe(
      'see https://host.example/v1beta/models/m:generateContent?key=[redacted]&alt=[redacted]',
    );
    expect(redactUrls(`"https://a:b@one.example/x?${KEY}" and http://two.example/`)).toBe('"https://one.example/x?[redacted]" and http://two.example/');
    expect(redactUrls('no address here')).toBe('no address here');
  });

  it('are scrubbed from every backend error, whatever the transport said', async () => {
    // A fetch whose own error quotes the URL it was given, credentials and query included, as
    // browsers' and Node's do (the ':' that followed the query is taken as part of it).
    const quoting: typeof fetch = async (input) => {
      throw new TypeError(`Request cannot be constructed from a URL that includes credentials: http://user:${PASSWORD}@127.0.0.1/v1?token=${KEY}`, {
        cause: new Error(String(input)),
      });
    };
    const error = await failure(fetchJson('http://127.0.0.1:9/v1/chat/completions', { method: 'POST' }, { provider: 'testai', fetch: quoting, maxRetries: 0 }));
    expect(error.message).toBe(
      'testai: could not reach http://127.0.0.1:9 (Request cannot be constructed from a URL that includes credentials: http://127.0.0.1/v1?token=[redacted] http://127.0.0.1:9/v1/chat/completions)',
    );
    const made = new BackendError('http', `proxy said: go to https://u:${PASSWORD}@elsewhere.example/?api_key=${KEY}`);
    expect(made.message).toBe('proxy said: go to https://elsewhere.example/?api_key=[redacted]');
  });
});
