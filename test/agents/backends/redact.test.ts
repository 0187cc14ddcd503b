import { describe, expect, it } from 'vitest';
import { fetchJson } from '../../../src/agents/backends/http';
import { openAiBackend } from '../../../src/agents/backends/openai';
import { anthropicBackend } from '../../../src/agents/backends/anthropic';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { redactDeep, redactSecrets, type ChatBackend } from '../../../src/agents/backends/types';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { playNegotiation } from '../../../src/games/bilateral/tournament';
import { failure, reply, toolCall, type ChatServer, type RecordedRequest } from '../../support/chat-server';
import { agent, scenario } from '../fixtures';
import { live, serverPerTest } from './helpers';

const KEY = 'sk-proj-Ab3dEf9hIj/K+lmN0pQ_rs-TUv';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const jsonEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

/** Every form of the key this suite checks for. */
const FORMS: [string, string][] = [
  ['as it is', KEY],
  ['upper-cased', KEY.toUpperCase()],
  ['lower-cased', KEY.toLowerCase()],
  ['URL-encoded', encodeURIComponent(KEY)],
  ['every character URL-encoded', [...KEY].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')],
  ['JSON-escaped', jsonEscaped(KEY)],
  ['JSON-escaped, upper-cased', jsonEscaped(KEY).toUpperCase()],
  ['with / escaped', KEY.replace('/', '\\/')],
  ['base64', b64(KEY)],
  ['base64, URL-safe', b64url(KEY)],
  ['base64 of it upper-cased', b64(KEY.toUpperCase())],
  ['base64, then upper-cased', b64(KEY).toUpperCase()],
  ['hex', hex(KEY)],
];

/** Whether `text` still holds the key in any form, or a large part of one. */
function leaks(text: string): string | null {
  const forms = [...FORMS.map(([, f]) => f), b64(`Bearer ${KEY}`).slice(12, -4), b64(`x:${KEY}`).slice(4, -4)];
  for (const form of forms) if (text.includes(form) || text.toLowerCase().includes(form.toLowerCase())) return form;
  return null;
}

describe('redactSecrets', () => {
  it.each(FORMS)('blanks the key written %s', (_, form) => {
    const out = redactSecrets(`before ${form} after`, [KEY]);
    expect(out).toBe('before [redacted] after');
  });

  it('blanks the key inside longer base64, at any offset (Basic auth, a Bearer header encoded whole)', () => {
    for (const prefix of ['', 'x', 'xy', 'Bearer ', 'user:', 'Authorization: Bearer '])
      for (const suffix of ['', '!', '\n--']) {
        const encoded = b64(`${prefix}${KEY}${suffix}`);
        const out = redactSecrets(`token=${encoded};`, [KEY]);
        expect(out, `${prefix}|${suffix}`).toContain('[redacted]');
        expect(leaks(out), `${prefix}|${suffix}`).toBeNull();
      }
  });

  it('leaves other text alone, and short secrets to an exact match', () => {
    expect(redactSecrets('no secrets here, SK-PROJ alone is not the key', [KEY])).toBe('no secrets here, SK-PROJ alone is not the key');
    expect(redactSecrets('abcd ABCD', ['abcd'])).toBe('[redacted] ABCD');
    expect(redactSecrets('abc', ['abc'])).toBe('abc');
  });

  it('blanks every string of a parsed answer, keys included, without changing the answer it was given', () => {
    const answer = { choices: [{ message: { content: `k=${KEY.toUpperCase()}`, [KEY]: [b64(KEY), 3, null, true] } }] };
    const before = JSON.stringify(answer);
    const out = redactDeep(answer, [KEY]);
    expect(JSON.stringify(answer)).toBe(before);
    expect(out).toEqual({ choices: [{ message: { content: 'k=[redacted]', '[redacted]': ['[redacted]', 3, null, true] } }] });
  });
});

const serve = serverPerTest();
const noWait = { sleep: async () => {}, random: () => 0 };

/** Echoes the key it was sent back in every form, in the answer's text, thinking and tool arguments. */
function echoing(req: RecordedRequest) {
  const sent = req.headers.authorization?.replace(/^Bearer /, '') ?? req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? '';
  const forms = FORMS.map(([name, form]) => `${name}: ${form.split(KEY).join(sent)}`).join('; ');
  return toolCall(
    'make_offer',
    { price: 120, message: `my key ${sent.toUpperCase()} / ${b64(sent)}` },
    {
      thinking: `I was sent ${forms}`,
      model: `model-${b64(sent.toUpperCase())}`,
    },
  );
}

const clients: [string, (s: ChatServer) => ChatBackend][] = [
  ['openai', (s) => openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', apiKey: KEY, jsonMode: 'none', ...noWait })],
  ['anthropic', (s) => anthropicBackend({ baseUrl: s.url, model: 'claude-test', apiKey: KEY, ...noWait })],
  ['gemini', (s) => geminiBackend({ baseUrl: s.url, model: 'gemini-test', apiKey: KEY, ...noWait })],
];

describe('a key that comes back inside an answer', () => {
  it.each(clients)('%s: is blanked out before the answer is read, so no move, thinking or model name holds it', async (_, make) => {
    const s = await serve(echoing);
    const answer = await make(s).complete({ messages: [{ role: 'user', content: 'Your move.' }], tools: [] }, live());
    expect(JSON.stringify(answer)).toContain('[redacted]');
    expect(leaks(JSON.stringify(answer))).toBeNull();
    expect(s.requests).toHaveLength(1);
  });

  it('is never stored on the events of a negotiation (move, message, raw, thinking, model)', async () => {
    const s = await serve(echoing);
    const backend = openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', apiKey: KEY, jsonMode: 'none', ...noWait });
    const played = await playNegotiation(scenario(150, 90, { listPrice: 200, turnLimit: 6 }), {
      buyer: llmAgent(backend),
      seller: agent('hardliner', 'seller'),
    });
    const stored = JSON.stringify(played);
    expect(stored).toContain('[redacted]');
    expect(leaks(stored)).toBeNull();
    expect(played.events.some((e) => e.type === 'move' && e.actor === 'buyer' && e.move.message?.includes('[redacted]'))).toBe(true);
  });

  it('is blanked out of an error, upper-cased or base64’d', async () => {
    const s = await serve((req) => failure(401, `bad key ${String(req.headers.authorization).toUpperCase()} (${b64(KEY)})`));
    const error = await fetchJson(
      `${s.url}/v1/chat/completions`,
      { method: 'POST', headers: { Authorization: `Bearer ${KEY}` }, body: '{}' },
      {
        provider: 'testai',
        secrets: [KEY],
      },
    ).catch((e: unknown) => e);
    if (!(error instanceof Error)) throw new Error('expected an error');
    expect(error.message).toBe('testai 401: bad key BEARER [redacted] ([redacted])');
    expect(leaks(`${error.message}${error.stack}`)).toBeNull();
  });

  it('is blanked out of the body of a bad 200 quoted in an error', async () => {
    const s = await serve(() => ({ kind: 'raw', status: 200, body: `<p>${KEY.toUpperCase()}</p>`, contentType: 'text/html' }));
    const error = await fetchJson(`${s.url}/v1/chat/completions`, { method: 'POST', body: '{}' }, { provider: 'testai', secrets: [KEY], maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    if (!(error instanceof Error)) throw new Error('expected an error');
    expect(error.message).toBe('testai answered 200 with something that is not JSON: <p>[redacted]</p>');
  });

  it('leaves an answer without the key as it was', async () => {
    const s = await serve([reply('{"action":{"type":"accept"}}')]);
    const answer = await clients[0]![1](s).complete({ messages: [{ role: 'user', content: 'Your move.' }] }, live());
    expect(answer.text).toBe('{"action":{"type":"accept"}}');
  });
});
