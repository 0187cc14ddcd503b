/**
 * Which key reaches which host. Local servers on 127.0.0.1 stand in for a provider's own host and
 * for "another host" (a --base-url server, a custom address in the app's form); each records every
 * header and body it was sent.
 */
import { describe, expect, it } from 'vitest';
import { RemoteBackends, type RemoteProvider, type RemoteSettings } from '../../src/agents/remote';
import { move, type ChatServer } from '../support/chat-server';
import { live, serverPerTest } from './backends/helpers';

const KEYS: Partial<Record<RemoteProvider, string>> = {
  openai: 'sk-openai-key-111111111111',
  anthropic: 'sk-ant-key-2222222222222222',
  gemini: 'AIza-gemini-key-333333333333',
  groq: 'gsk-groq-key-44444444444444',
};
const SERVER_KEY = 'parley-server-key-5555555555';
const ALL_KEYS = [...Object.values(KEYS), SERVER_KEY] as string[];

const serve = serverPerTest();
const quick = { timeoutMs: 5000 };

/** The keys a server was sent, anywhere in any request's headers or body. */
function keysSeenBy(s: ChatServer): string[] {
  const seen = JSON.stringify(s.requests.map((r) => [r.headers, r.body])) + JSON.stringify(s.preflights);
  return ALL_KEYS.filter((k) => seen.includes(k));
}

const authOf = (s: ChatServer) => s.requests.map((r) => r.headers.authorization ?? r.headers['x-api-key'] ?? r.headers['x-goog-api-key'] ?? null);

async function ask(settings: RemoteSettings, provider: RemoteProvider, model = 'm'): Promise<void> {
  await new RemoteBackends({ ...settings, ...quick }).get({ provider, model }).complete({ messages: [{ role: 'user', content: 'hi' }] }, live());
}

const apiKey = (provider: RemoteProvider) => KEYS[provider];
const accept = () => move({ action: { type: 'accept' } });

describe('keys go only to the host they were given for', () => {
  it('a --base-url server gets only the key given for it, never a provider’s', async () => {
    const other = await serve(accept);
    for (const provider of ['openai', 'anthropic', 'gemini', 'groq'] as const)
      await ask({ baseUrl: other.url.concat(provider === 'anthropic' || provider === 'gemini' ? '' : '/v1'), baseUrlKey: SERVER_KEY, apiKey }, provider);
    expect(other.requests).toHaveLength(4);
    expect(keysSeenBy(other)).toEqual([SERVER_KEY]);
    expect(authOf(other)).toEqual([`Bearer ${SERVER_KEY}`, SERVER_KEY, SERVER_KEY, `Bearer ${SERVER_KEY}`]);
  });

  it('a --base-url server given no key of its own is sent none at all', async () => {
    const other = await serve(accept);
    await ask({ baseUrl: `${other.url}/v1`, apiKey }, 'openai');
    await ask({ baseUrl: other.url, apiKey }, 'anthropic');
    expect(keysSeenBy(other)).toEqual([]);
    expect(authOf(other)).toEqual([null, null]);
  });

  it('a provider’s own address (the app’s form) gets that provider’s key and no other', async () => {
    const [openaiHost, anthropicHost, elsewhere] = [await serve(accept), await serve(accept), await serve(accept)];
    const settings: RemoteSettings = {
      apiKey,
      baseUrls: { openai: `${openaiHost.url}/v1`, anthropic: anthropicHost.url },
      baseUrl: elsewhere.url,
      baseUrlKey: SERVER_KEY,
    };
    await ask(settings, 'openai');
    await ask(settings, 'anthropic');
    await ask(settings, 'gemini');
    expect(keysSeenBy(openaiHost)).toEqual([KEYS.openai]);
    expect(keysSeenBy(anthropicHost)).toEqual([KEYS.anthropic]);
    // A provider without an address of its own goes to the shared server, with that server's key.
    expect(keysSeenBy(elsewhere)).toEqual([SERVER_KEY]);
  });

  it('one set of backends serves many providers, each with its own key', async () => {
    const groqHost = await serve(accept);
    const openaiHost = await serve(accept);
    const backends = new RemoteBackends({ apiKey, baseUrls: { groq: `${groqHost.url}/v1`, openai: `${openaiHost.url}/v1` }, ...quick });
    for (const provider of ['groq', 'openai', 'groq'] as const)
      await backends.get({ provider, model: 'm' }).complete({ messages: [{ role: 'user', content: 'hi' }] }, live());
    expect(keysSeenBy(groqHost)).toEqual([KEYS.groq]);
    expect(keysSeenBy(openaiHost)).toEqual([KEYS.openai]);
  });
});
