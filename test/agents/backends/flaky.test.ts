/**
 * A provider that now and then answers 200 with no usable answer (an HTML page from a proxy, an
 * empty body, no message): retried like a 5xx, so no negotiation is lost to one bad answer.
 */
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/agents/backends/anthropic';
import { geminiBackend } from '../../../src/agents/backends/gemini';
import { openAiBackend } from '../../../src/agents/backends/openai';
import type { ChatBackend } from '../../../src/agents/backends/types';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { makeAgent } from '../../../src/games/bilateral/registry';
import type { BilateralAgentFactory, NegotiationResult, TournamentConfig } from '../../../src/games/bilateral/tournament';
import { move, type Answer, type ChatServer, type RecordedRequest } from '../../support/chat-server';
import { policyAnswer } from '../../support/policy-model';
import { live, serverPerTest } from './helpers';
import { runTournament } from '../../../src/engine/tournament';
import { bilateralGame } from '../../../src/games/bilateral/game';

const serve = serverPerTest();
const noWait = { sleep: async () => {}, random: () => 0 };

const BAD_200S: Answer[] = [
  { kind: 'raw', status: 200, body: '<html><body>Upstream hiccup</body></html>', contentType: 'text/html' },
  { kind: 'raw', status: 200, body: '', contentType: 'application/json' },
  { kind: 'raw', status: 200, body: '{"choices":[]}', contentType: 'application/json' },
  { kind: 'raw', status: 200, body: '{"id":"chatcmpl-1","choices":[{"message":{"content":"{\\"act', contentType: 'application/json' },
];

/** Answers each distinct request first with a bad 200 (in turn, each kind), then as the policy model would. */
function onceBad(): (req: RecordedRequest) => Answer {
  const seen = new Set<string>();
  let bad = 0;
  return (req) => {
    const key = JSON.stringify(req.body);
    if (seen.has(key)) return policyAnswer(req);
    seen.add(key);
    return BAD_200S[bad++ % BAD_200S.length] as Answer;
  };
}

const CONFIG: TournamentConfig = {
  agents: ['llm', 'boulware', 'conceder'],
  scenariosPerPair: 1,
  preset: 'standard',
  seed: 5,
  selfPlay: false,
  deadline: { kind: 'fixed', turns: 8 },
  firstMover: 'seller',
};

async function play(backend: ChatBackend) {
  const factory: BilateralAgentFactory = (spec, role, ctx) => (spec === 'llm' ? llmAgent(backend) : makeAgent(spec, role, ctx));
  const results: NegotiationResult[] = [];
  const summary = await runTournament(bilateralGame, CONFIG, factory, { concurrency: 3, onResult: (r) => void results.push(r) });
  return { results, summary };
}

describe('a provider that sometimes answers 200 with no answer', () => {
  it('loses no negotiation: every bad 200 is retried and the next answer played', async () => {
    const s = await serve(onceBad());
    const { results, summary } = await play(openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', ...noWait }));
    expect(summary).toMatchObject({ planned: 6, played: 6, cancelled: false });
    let calls = 0;
    for (const r of results) {
      expect(r.outcome.kind).not.toBe('error');
      calls += r.events.filter((e) => (e.type === 'move' || e.type === 'invalid') && e.call !== undefined).length;
    }
    expect(calls).toBeGreaterThan(4);
    // Every call was played from a good answer; each distinct prompt first got a bad 200 (negotiations
    // that meet the same scenario may ask the same first question).
    const distinct = new Set(s.requests.map((r) => JSON.stringify(r.body))).size;
    expect(distinct).toBeGreaterThan(4);
    expect(s.requests).toHaveLength(calls + distinct);
  });

  it('ends the negotiations as errors with a clear message when every 200 is bad, after the usual retries', async () => {
    const s = await serve(() => BAD_200S[0] as Answer);
    const { results, summary } = await play(openAiBackend({ baseUrl: `${s.url}/v1`, model: 'm', maxRetries: 2, ...noWait }));
    expect(summary).toMatchObject({ planned: 6, played: 6 });
    const withModel = results.filter((r) => r.buyer === 'llm' || r.seller === 'llm');
    expect(withModel).toHaveLength(4);
    for (const r of withModel)
      expect(r.outcome).toMatchObject({
        kind: 'error',
        message: 'openai answered 200 with something that is not JSON: <html><body>Upstream hiccup</body></html> (gave up after 3 attempts)',
      });
    for (const r of results.filter((r) => !withModel.includes(r))) expect(r.outcome.kind).not.toBe('error');
    expect(s.requests).toHaveLength(4 * 3);
  });

  const clients: [string, (s: ChatServer) => ChatBackend][] = [
    ['anthropic', (s) => anthropicBackend({ baseUrl: s.url, model: 'claude-test', ...noWait })],
    ['gemini', (s) => geminiBackend({ baseUrl: s.url, model: 'gemini-test', ...noWait })],
  ];
  it.each(clients)('%s: a non-JSON, an empty and a content-less 200 are retried too', async (name, make) => {
    const s = await serve([
      BAD_200S[0] as Answer,
      BAD_200S[1] as Answer,
      { kind: 'raw', status: 200, body: '{}', contentType: 'application/json' },
      move({ action: { type: 'accept' } }),
    ]);
    const answer = await make(s).complete({ messages: [{ role: 'user', content: 'Your move.' }], tools: [] }, live());
    expect(answer.text).toBe('{"action":{"type":"accept"}}');
    expect(s.requests).toHaveLength(4);
    expect(name).toBeTruthy();
  });
});
