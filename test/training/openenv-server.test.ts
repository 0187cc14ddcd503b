// OpenEnv's HTTP routes on the environment server (src/training/openenv.ts), Gymnasium's
// terminated/truncated split and the request defaults, on OpenEnv's routes and the server's own.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent } from '../../src/games/bilateral/registry';
import { makeMarketAgent } from '../../src/games/market/specs';
import { MAX_SEED } from '../../src/engine/rng';
import { EpisodeRequestSchema, playEpisode } from '../../src/training/episode';
import { playMarketEpisode } from '../../src/training/market-episode';
import { ObservationResponseSchema, StateSchema } from '../../src/training/openenv';
import { startEnvServer, type EnvServer } from '../../src/training/server';
import { policyAnswer, post, stepBody } from './helpers';

const agent = new http.Agent({ keepAlive: true });
/** GETs JSON, whatever its status. */
function get(url: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      })
      .on('error', reject);
  });
}

/** A policy that never moves off an offer no opponent takes: its episodes run to the turn limit. */
const STUBBORN = { completion: '{"action":{"type":"offer","price":1}}' };

/** How each outcome ends an episode for Gymnasium: the game's own ends terminate, the rest truncate. */
const TERMINAL = new Set(['deal', 'walk_away', 'sold_out', 'no_buyers']);
const CUT_SHORT = new Set(['turn_limit', 'budget_spent', 'cancelled', 'error']);

describe("OpenEnv's HTTP routes", () => {
  let server: EnvServer;
  beforeAll(async () => {
    server = await startEnvServer({ makeAgent });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers /health, /schema and /metadata as OpenEnv does', async () => {
    const health = await get(`${server.url}/health`);
    expect([health.status, health.json.status, health.json.ok]).toEqual([200, 'healthy', true]);
    const schema = await get(`${server.url}/schema`);
    expect(schema.status).toBe(200);
    expect(Object.keys(schema.json).sort()).toEqual(['action', 'observation', 'state']);
    expect(Object.keys(schema.json.action.properties).sort()).toEqual(['completion', 'finish_reason', 'metadata', 'tool_calls']);
    expect(schema.json.observation.properties).toHaveProperty('terminated');
    expect(schema.json.observation.properties).toHaveProperty('truncated');
    expect(schema.json.state.required).toEqual(['episode_id', 'step_count']);
    const meta = await get(`${server.url}/metadata`);
    expect([meta.status, meta.json.name]).toEqual([200, 'parley']);
    // Before any reset, a state as OpenEnv's fresh environment answers it.
    expect(await get(`${server.url}/state`)).toEqual({ status: 200, json: { episode_id: null, step_count: 0 } });
  });

  it('a reset with no body plays the defaults (bilateral, the buyer against boulware, the tools) on a drawn seed it answers', async () => {
    const r = await post(`${server.url}/reset`, '');
    expect(r.status).toBe(200);
    const { observation, reward, done } = ObservationResponseSchema.parse(r.json);
    expect([reward, done, observation.game, observation.seat, observation.step_count]).toEqual([null, false, 'bilateral', 'buyer', 0]);
    expect(observation.seed).toBeGreaterThanOrEqual(0);
    expect(observation.seed).toBeLessThanOrEqual(MAX_SEED);
    expect(observation.tools?.map((t) => t.function.name)).toEqual(['make_offer', 'respond_to_offer', 'send_message', 'walk_away']);
    // The same seed, spelled out on the server's own route, is the same negotiation.
    const spelled = await post(`${server.url}/episodes`, { game: 'bilateral', seat: 'buyer', opponent: 'boulware', seed: observation.seed });
    expect(spelled.status).toBe(201);
    expect(spelled.json.messages).toEqual(observation.messages);
    // So is an empty object on the server's own route, which answers the seed it drew.
    const bare = await post(`${server.url}/episodes`, {});
    expect(bare.status).toBe(201);
    expect(bare.json).toMatchObject({ game: 'bilateral', seat: 'buyer', done: false, terminated: false, truncated: false });
    const again = await post(`${server.url}/reset`, { seed: bare.json.seed });
    expect(again.json.observation.messages).toEqual(bare.json.messages);
  });

  it('plays episodes of both games to the end as in-process runs of the same requests, each end terminated or truncated by its outcome', async () => {
    const requests = Array.from({ length: 36 }, (_, i) =>
      i % 6 === 5
        ? // The test policy's bilateral moves are refused in a market: the seller's answers cost it adherence, the same over HTTP and in-process.
          { game: 'market', seed: 300 + i, interface: i % 4 === 1 ? 'json' : 'tools' }
        : {
            seat: i % 2 === 0 ? 'buyer' : 'seller',
            opponent: ['boulware', 'hardliner', 'conceder', 'tit-for-tat'][i % 4] as string,
            seed: 100 + i,
            interface: i % 3 === 0 ? 'json' : 'tools',
          },
    );
    const stubborn = (i: number) => i % 6 === 3;
    const ends = await Promise.all(
      requests.map(async (request, i) => {
        let r = await post(`${server.url}/reset`, request);
        expect(r.status).toBe(200);
        const first = ObservationResponseSchema.parse(r.json);
        const id = first.observation.episode_id;
        const tools = first.observation.tools !== undefined;
        let steps = 0;
        while (!r.json.done) {
          const action = stubborn(i) ? STUBBORN : stepBody(policyAnswer(r.json.observation.messages, tools));
          r = await post(`${server.url}/step`, { episode_id: id, action, timeout_s: 30, request_id: `r${steps}` });
          expect(r.status).toBe(200);
          const answer = ObservationResponseSchema.parse(r.json);
          steps++;
          expect(answer.observation.step_count).toBe(steps);
          if (!answer.done) {
            expect([answer.reward, answer.observation.terminated, answer.observation.truncated]).toEqual([0, false, false]);
            // The tools never change: the first observation carries them.
            expect(answer.observation.tools).toBeUndefined();
          }
        }
        const state = await get(`${server.url}/state?episode_id=${id}`);
        expect(state.status).toBe(200);
        return { end: ObservationResponseSchema.parse(r.json), steps, state: StateSchema.parse(state.json) };
      }),
    );
    const kinds = new Set<string>();
    for (const [i, { end, steps, state }] of ends.entries()) {
      const request = requests[i] as Record<string, unknown>;
      const local =
        request.game === 'market'
          ? await playMarketEpisode(request as never, makeMarketAgent, (q) => policyAnswer(q.messages, q.tools !== undefined))
          : await playEpisode(EpisodeRequestSchema.parse({ game: 'bilateral', ...request }), makeAgent, (q) =>
              stubborn(i) ? { text: STUBBORN.completion, tokensIn: 0, tokensOut: 0 } : policyAnswer(q.messages, q.tools !== undefined),
            );
      const kind = local.record.outcome.kind;
      kinds.add(kind);
      expect(end.done).toBe(true);
      expect(end.reward).toBe(local.reward.total);
      expect(end.observation.outcome).toEqual(local.record.outcome);
      expect(end.observation.terms).toEqual(local.reward.terms);
      expect([end.observation.terminated, end.observation.truncated]).toEqual([TERMINAL.has(kind), CUT_SHORT.has(kind)]);
      expect(state).toMatchObject({ step_count: steps, done: true, reward: end.reward, terminated: TERMINAL.has(kind), truncated: CUT_SHORT.has(kind) });
      expect(state.outcome).toEqual(local.record.outcome);
    }
    // The suite reaches both kinds of end: deals, and negotiations run out of turns.
    expect(kinds.has('deal')).toBe(true);
    expect(kinds.has('turn_limit')).toBe(true);
  }, 60_000);

  it('names an episode by the episode_id a reset chose, on both route families; a reset under a held id starts it afresh', async () => {
    const r = await post(`${server.url}/reset`, { episode_id: 'run-1:ep.0', seed: 3, interface: 'json' });
    expect([r.status, r.json.observation.episode_id]).toEqual([200, 'run-1:ep.0']);
    const own = await post(`${server.url}/episodes/run-1:ep.0/step`, { completion: '{"action":{"type":"offer","price":10}}' });
    expect(own.status).toBe(200);
    expect((await get(`${server.url}/state?episode_id=run-1:ep.0`)).json.step_count).toBe(1);
    const size = server.size;
    const again = await post(`${server.url}/reset`, { episode_id: 'run-1:ep.0', seed: 4 });
    expect([again.status, again.json.observation.seed, again.json.observation.step_count]).toEqual([200, 4, 0]);
    expect(server.size).toBe(size);
  });

  it('refuses what OpenEnv would, with its statuses (422 for a body its schema refuses) and the codes beside them', async () => {
    const started = await post(`${server.url}/reset`, { seed: 5 });
    const id = started.json.observation.episode_id;
    const refused = async (r: Promise<{ status: number; json: any }>, status: number, code: string) => {
      const { status: s, json } = await r;
      expect([s, json.error?.code]).toEqual([status, code]);
      expect(json.detail).toBe(json.error.message);
    };
    await refused(post(`${server.url}/step`, { action: { completion: 'x' } }), 422, 'no-episode');
    await refused(post(`${server.url}/step`, { episode_id: id, action: { answer: 'x' } }), 422, 'bad-body');
    await refused(post(`${server.url}/step`, { episode_id: id }), 422, 'bad-body');
    await refused(post(`${server.url}/step`, { episode_id: id, action: {} }), 422, 'bad-body');
    await refused(post(`${server.url}/step`, '{"action": '), 422, 'bad-json');
    await refused(post(`${server.url}/step`, { episode_id: 'no-such-episode', action: { completion: 'x' } }), 404, 'unknown-episode');
    await refused(post(`${server.url}/reset`, { seed: -1 }), 422, 'bad-body');
    await refused(post(`${server.url}/reset`, { episode_id: '../x' }), 422, 'bad-body');
    await refused(post(`${server.url}/reset`, [1]), 422, 'bad-body');
    await refused(post(`${server.url}/reset`, { game: 'chess' }), 400, 'unknown-game');
    await refused(post(`${server.url}/reset`, { opponent: 'boulware:beta=nope' }), 400, 'bad-opponent');
    await refused(get(`${server.url}/state?episode_id=no-such-episode`), 404, 'unknown-episode');
    await refused(post(`${server.url}/state`, {}), 405, 'method');
    await refused(get(`${server.url}/reset`), 405, 'method');
    // The server's own routes keep their statuses and bodies.
    const own = await post(`${server.url}/episodes/${id}/step`, { answer: 'x' });
    expect([own.status, own.json.error.code, own.json.detail]).toEqual([400, 'bad-body', undefined]);
    // A metadata field rides along with the action, as OpenEnv's Action allows.
    const step = await post(`${server.url}/step`, { episode_id: id, action: { completion: '{"action":{"type":"offer","price":50}}', metadata: { k: 1 } } });
    expect(step.status).toBe(200);
  });
});
