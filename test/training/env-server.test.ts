import http from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent } from '../../src/games/bilateral/registry';
import { ROLES, PRESETS } from '../../src/games/bilateral/scenario';
import { EpisodeRequestSchema, playEpisode, type EpisodeInput } from '../../src/training/episode';
import { startEnvServer, type EnvServer } from '../../src/training/server';
import { policyAnswer, post, stepBody } from './helpers';

const OPPONENTS = ['boulware', 'conceder:beta=3', 'tit-for-tat', 'hardliner', 'accommodator', 'random', 'linear:kappa=0.1'];
const EPISODES = 120;

/** Episode i of the suite: every seat, interface, preset and opponent, seeds spread out. */
const request = (i: number): EpisodeInput => ({
  game: 'bilateral',
  seat: ROLES[i % 2] as 'buyer' | 'seller',
  opponent: OPPONENTS[i % OPPONENTS.length] as string,
  preset: PRESETS[Math.floor(i / 2) % PRESETS.length],
  seed: 1000 + 7 * i,
  interface: i % 3 === 0 ? 'json' : 'tools',
  ...(i % 5 === 0 && { index: i % 4 }),
});

/** Plays one episode over HTTP with the test policy; returns its end and how many steps it took. */
async function playOverHttp(url: string, id: string, first: any): Promise<{ end: any; steps: number; afterEnd: { status: number; json: any } }> {
  let view = first;
  const tools = Array.isArray(first.tools);
  let steps = 0;
  while (!view.done) {
    const r = await post(`${url}/episodes/${id}/step`, stepBody(policyAnswer(view.messages, tools)));
    expect(r.status).toBe(200);
    view = r.json;
    steps++;
  }
  const afterEnd = await post(`${url}/episodes/${id}/step`, { completion: '{"action":{"type":"accept"}}' });
  return { end: view, steps, afterEnd };
}

describe('the environment server', () => {
  let server: EnvServer;
  beforeAll(async () => {
    server = await startEnvServer({ makeAgent });
  });
  afterAll(async () => {
    await server.close();
  });

  it(`plays ${EPISODES} episodes at once over HTTP, bad bodies mixed in, each as a direct in-process run of its seed`, async () => {
    const created = await Promise.all(
      Array.from({ length: EPISODES }, async (_, i) => {
        const r = await post(`${server.url}/episodes`, request(i));
        expect(r.status).toBe(201);
        return r.json;
      }),
    );
    // Every episode is held at once.
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health.episodes.open + health.episodes.done).toBeGreaterThanOrEqual(EPISODES);
    expect(new Set(created.map((c) => c.id)).size).toBe(EPISODES);
    for (const [i, c] of created.entries()) {
      // An opponent that walks away before the policy's first turn (random does, now and then) ends the episode at once.
      if (c.done) {
        expect(c.outcome).toMatchObject({ kind: 'walk_away', turn: 1 });
        continue;
      }
      expect(c.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
      expect(c.messages[0].content).toContain(`You are the ${request(i).seat}`);
      if (request(i).interface === 'tools')
        expect(c.tools.map((t: any) => t.function.name)).toEqual(['make_offer', 'respond_to_offer', 'send_message', 'walk_away']);
      else expect(c.response_format.json_schema.name).toBe('negotiation_move');
    }

    const bad = async (path: string, body: unknown, status: number, code: string) => {
      const r = await post(`${server.url}${path}`, body);
      expect([r.status, r.json.error?.code]).toEqual([status, code]);
      expect(typeof r.json.error.message).toBe('string');
    };
    const abuse = async (k: number) => {
      const id = created[k].id;
      await bad('/episodes', '{"game": "bilateral", ', 400, 'bad-json');
      await bad('/episodes', '[1, 2]', 400, 'bad-body');
      await bad('/episodes', { ...request(k), seed: -1 }, 400, 'bad-body');
      await bad('/episodes', { ...request(k), seat: 'broker' }, 400, 'bad-body');
      await bad('/episodes', { ...request(k), opponent: 'boulware:beta=nope' }, 400, 'bad-opponent');
      await bad('/episodes', { ...request(k), game: 'chess' }, 400, 'unknown-game');
      await bad('/episodes', { ...request(k), weights: { irviolation: 2 } }, 400, 'bad-body');
      await bad(`/episodes/${id}/step`, { answer: 'x' }, 400, 'bad-body');
      await bad(`/episodes/${id}/step`, { tool_calls: 'make_offer' }, 400, 'bad-body');
      await bad(`/episodes/${id}/step`, '', 400, 'bad-body');
      await bad('/episodes/no-such-episode/step', { completion: 'x' }, 404, 'unknown-episode');
      await bad('/nowhere', {}, 404, 'no-route');
      const get = await fetch(`${server.url}/episodes`);
      expect(get.status).toBe(405);
    };

    const ends = await Promise.all(
      created.map(async (c, i) => {
        if (i % 16 === 0) await abuse(i);
        return playOverHttp(server.url, c.id, c);
      }),
    );

    let deals = 0;
    let invalid = 0;
    for (const [i, { end, afterEnd }] of ends.entries()) {
      const direct = await playEpisode(EpisodeRequestSchema.parse(request(i)), makeAgent, (req) => policyAnswer(req.messages, req.tools !== undefined));
      expect(end.outcome).toEqual(direct.record.outcome);
      expect(end.reward).toBe(direct.reward.total);
      expect(end.terms).toEqual(direct.reward.terms);
      // Gymnasium's split: the turn limit cuts a negotiation short; a deal or a walk-away ends it.
      const cut = direct.record.outcome.kind === 'turn_limit';
      expect([end.terminated, end.truncated]).toEqual([!cut, cut]);
      expect(afterEnd.status).toBe(409);
      expect(afterEnd.json.error.code).toBe('episode-over');
      if (end.outcome.kind === 'deal') deals++;
      if (end.terms.compliance < 0) invalid++;
    }
    // The policy makes deals, and its malformed answers cost it somewhere.
    expect(deals).toBeGreaterThan(EPISODES / 4);
    expect(invalid).toBeGreaterThan(10);
    // The server is still up and answers as before.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 120_000);

  it('answers one step at a time per episode: a second step while the first is answered is a 409', async () => {
    // A remote opponent that never answers keeps the first step busy; it says when it has been asked.
    let asked!: () => void;
    const opponentAsked = new Promise<void>((resolve) => (asked = resolve));
    const slowServer = await startEnvServer({
      makeAgent: (spec, role, ctx) =>
        spec === 'stall'
          ? {
              act: (_obs, signal) => {
                asked();
                return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
              },
            }
          : makeAgent(spec, role, ctx),
    });
    try {
      const c = await post(`${slowServer.url}/episodes`, { game: 'bilateral', seat: 'seller', opponent: 'stall', seed: 2 });
      expect(c.status).toBe(201);
      const first = post(`${slowServer.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"offer","price":100}}' });
      // The first step is under way once it has reached the opponent, which holds it there.
      await opponentAsked;
      const second = await post(`${slowServer.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"offer","price":99}}' });
      expect([second.status, second.json.error.code]).toEqual([409, 'step-in-progress']);
      const closed = await fetch(`${slowServer.url}/episodes/${c.json.id}`, { method: 'DELETE' });
      expect(closed.status).toBe(200);
      const firstAnswer = await first;
      expect(firstAnswer.json).toMatchObject({ done: true, outcome: { kind: 'cancelled' } });
    } finally {
      await slowServer.close();
    }
  });

  it('closes idle episodes, finished or not, and refuses new ones past its limit', async () => {
    let time = 0;
    const small = await startEnvServer({ makeAgent, idleMs: 60_000, maxEpisodes: 2, now: () => time, sweepMs: 0 });
    try {
      const body = { game: 'bilateral', seat: 'buyer', opponent: 'boulware', seed: 5 };
      const a = await post(`${small.url}/episodes`, body);
      time += 30_000;
      const b = await post(`${small.url}/episodes`, { ...body, seed: 6 });
      const full = await post(`${small.url}/episodes`, { ...body, seed: 7 });
      expect([full.status, full.json.error.code]).toEqual([503, 'full']);
      time += 30_000;
      // a has been idle 60 s: closed; b 30 s: kept.
      expect(small.expireIdle()).toBe(1);
      const gone = await post(`${small.url}/episodes/${a.json.id}/step`, { completion: '{}' });
      expect([gone.status, gone.json.error.code]).toEqual([404, 'unknown-episode']);
      const kept = await post(`${small.url}/episodes/${b.json.id}/step`, { completion: 'not a move' });
      expect(kept.status).toBe(200);
      expect(kept.json.messages[1].content).toContain('Your previous answer was refused');
      // A full server makes room by closing idle episodes first.
      expect((await post(`${small.url}/episodes`, { ...body, seed: 8 })).status).toBe(201);
      expect(small.size).toBe(2);
      time += 60_000;
      expect((await post(`${small.url}/episodes`, { ...body, seed: 9 })).status).toBe(201);
      expect(small.size).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('scores an episode with the weights it was given', async () => {
    const body = { game: 'bilateral', seat: 'buyer', opponent: 'boulware', seed: 7, interface: 'json' };
    const play = async (extra: object) => {
      const c = await post(`${server.url}/episodes`, { ...body, ...extra });
      // Seed 7: the buyer opens; it offers 1 dollar, then accepts the seller's counter (above its value: a loss).
      await post(`${server.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"offer","price":1}}' });
      return (await post(`${server.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"accept"}}' })).json;
    };
    const plain = await play({});
    expect(plain).toMatchObject({ done: true, reward: -1, outcome: { kind: 'deal', acceptedBy: 'buyer' } });
    const weighted = await play({ weights: { irViolation: 3 } });
    expect(weighted.reward).toBe(-3);
    expect(weighted.terms.irPenalty).toBe(-3);
  });

  it('a malformed completion is an invalid move: refused twice with the reason, forfeited on the third', async () => {
    const s = await startEnvServer({ makeAgent });
    try {
      // Seed 4, index 0: the seller opens; the policy plays the seller.
      const c = await post(`${s.url}/episodes`, { game: 'bilateral', seat: 'seller', opponent: 'hardliner', seed: 4, interface: 'json' });
      expect(c.json.messages[1].content).toContain('No moves yet: you open.');
      const r1 = await post(`${s.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"offer"}}' });
      expect(r1.json.messages[1].content).toMatch(/Your previous answer was refused: .*price/);
      const r2 = await post(`${s.url}/episodes/${c.json.id}/step`, { completion: '' });
      expect(r2.json.messages[1].content).toContain('Your previous answer was refused: the answer is empty');
      // The third refusal forfeits the turn: the hardliner moves, and the seller's next turn begins afresh.
      const r3 = await post(`${s.url}/episodes/${c.json.id}/step`, { completion: 'no' });
      expect(r3.json.done).toBe(false);
      expect(r3.json.messages[1].content).toContain('1. you: [missed the turn]');
      expect(r3.json.messages[1].content).not.toContain('refused');
      const end = await post(`${s.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"walk_away"}}' });
      expect(end.json).toMatchObject({ done: true, outcome: { kind: 'walk_away', by: 'seller' } });
      expect(end.json.terms.compliance).toBeCloseTo(-0.3, 12);
    } finally {
      await s.close();
    }
  });

  it('refuses a deep or oversized body with a 400, leaving the episode where it was; what the model wrote, however deep, is an invalid move', async () => {
    const s = await startEnvServer({ makeAgent });
    try {
      // Seed 4, index 0: the seller opens; the policy plays the seller with the move tools.
      const c = await post(`${s.url}/episodes`, { game: 'bilateral', seat: 'seller', opponent: 'hardliner', seed: 4 });
      const step = `${s.url}/episodes/${c.json.id}/step`;
      const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
      const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
      const refusals: [body: string | object, status: number, code: string][] = [
        // The body: tool-call arguments 100,000 deep (it was a 500, the stack overflowing).
        [`{"tool_calls":[{"name":"make_offer","arguments":${deepArray(100_000)}}]}`, 400, 'too-deep'],
        [`{"tool_calls":[{"type":"function","function":{"name":"make_offer","arguments":${deepObject(100_000)}}}]}`, 400, 'too-deep'],
        [`{"tool_calls":[{"name":"make_offer","arguments":{"price":500},"extra":${deepArray(65)}}]}`, 400, 'too-deep'],
        [`{"completion":"x","finish_reason":${deepArray(400_000)}}`, 400, 'too-deep'],
        // Under the body's limit, over the arguments' own.
        [`{"tool_calls":[{"name":"make_offer","arguments":${deepObject(40)}}]}`, 400, 'bad-body'],
        [{ tool_calls: [{ name: 'make_offer', arguments: `{"price":500,"message":"${'x'.repeat(200_000)}"}` }] }, 400, 'bad-body'],
        [{ tool_calls: [{ name: 'make_offer', arguments: { price: 500, message: 'x'.repeat(200_000) } }] }, 400, 'bad-body'],
        [{ completion: 'x'.repeat(200_001) }, 400, 'bad-body'],
        [{ completion: 'x'.repeat(1 << 20) }, 413, 'too-large'],
        // A new episode's body, either game.
        [`{"game":"bilateral","seat":"buyer","opponent":"boulware","seed":1,"weights":${deepArray(100_000)}}`, 400, 'too-deep'],
        [`{"game":"market","seed":1,"weights":${deepObject(100_000)}}`, 400, 'too-deep'],
      ];
      for (const [body, status, code] of refusals) {
        const r = await post(typeof body === 'string' && body.startsWith('{"game"') ? `${s.url}/episodes` : step, body);
        expect([r.status, r.json.error?.code], JSON.stringify(body).slice(0, 80)).toEqual([status, code]);
        expect(r.json.error.message.length).toBeLessThan(300);
      }
      const bad = await post(step, `{"tool_calls":[{"name":"make_offer","arguments":${deepObject(40)}}]}`);
      expect(bad.json.error.message).toMatch(/^tool_calls\.0\.arguments: nested over 32 deep/);
      // None of that was a move: the episode still waits for the seller's opening, refused nothing so far.
      const health = await (await fetch(`${s.url}/health`)).json();
      expect(health.episodes).toEqual({ open: 1, done: 0 });
      // As text, the same 100,000-deep arguments are the model's answer: an invalid move, refused with its reason, retried.
      const first = await post(step, { tool_calls: [{ name: 'make_offer', arguments: deepArray(100_000) }] });
      expect(first.status).toBe(200);
      expect(first.json.messages[1].content).toMatch(/Your previous answer was refused: tool call make_offer: the arguments of make_offer are not JSON/);
      expect(first.json.messages[1].content).toContain('No moves yet: you open.');
      const second = await post(step, { completion: deepObject(30_000) });
      expect(second.status).toBe(200);
      expect(second.json.messages[1].content).toContain('Your previous answer was refused');
      const offered = await post(step, { tool_calls: [{ type: 'function', function: { name: 'make_offer', arguments: { price: 500 } } }] });
      expect(offered.status).toBe(200);
      expect(offered.json.messages[1].content).toContain('1. you: [binding offer: $500.00]');
    } finally {
      await s.close();
    }
  });

  it('a bug in a session fails that request with a 500 and ends the episode; the server carries on', async () => {
    // A move whose message cannot even be read makes the protocol throw: nothing an agent does should, so this stands for a bug.
    const poisoned = {
      kind: 'move',
      move: Object.defineProperty({}, 'message', {
        get: () => {
          throw new Error('boom');
        },
        enumerable: true,
      }),
    };
    const s = await startEnvServer({ makeAgent: (spec, role, ctx) => (spec === 'poison' ? { act: () => poisoned as never } : makeAgent(spec, role, ctx)) });
    try {
      // Seed 0: the seller opens. As the buyer, the policy meets the poisoned opener at once.
      const opened = await post(`${s.url}/episodes`, { game: 'bilateral', seat: 'buyer', opponent: 'poison', seed: 0 });
      expect([opened.status, opened.json.error.code]).toEqual([500, 'internal']);
      expect(opened.json.error.message).toContain('boom');
      // As the seller, the policy moves first; its step meets the poison.
      const c = await post(`${s.url}/episodes`, { game: 'bilateral', seat: 'seller', opponent: 'poison', seed: 0 });
      expect(c.status).toBe(201);
      const step = await post(`${s.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"offer","price":500}}' });
      expect([step.status, step.json.error.code]).toEqual([500, 'internal']);
      const again = await post(`${s.url}/episodes/${c.json.id}/step`, { completion: '{"action":{"type":"offer","price":500}}' });
      expect([again.status, again.json.error.code]).toEqual([409, 'episode-over']);
      expect((await post(`${s.url}/episodes`, { game: 'bilateral', seat: 'seller', opponent: 'boulware', seed: 0 })).status).toBe(201);
    } finally {
      await s.close();
    }
  });

  it('refuses requests from web pages, and a Host that names another server', async () => {
    const fromPage = await fetch(`${server.url}/episodes`, {
      method: 'POST',
      headers: { origin: 'https://example.com', 'content-type': 'text/plain' },
      body: JSON.stringify({ game: 'bilateral', seat: 'buyer', opponent: 'boulware', seed: 1 }),
    });
    expect(fromPage.status).toBe(403);
    expect((await fromPage.json()).error.code).toBe('forbidden');
    // A page that rebinds its own name to 127.0.0.1 still sends its name as the Host.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, path: '/health', headers: { host: `evil.example:${server.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
    expect((await fetch(`http://localhost:${server.port}/health`)).status).toBe(200);
  });

  it('listens on loopback alone by default', async () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    // Where the machine has another address, nothing answers on it.
    if (outside) await expect(fetch(`http://${outside.address}:${server.port}/health`)).rejects.toThrow();
  });
});
