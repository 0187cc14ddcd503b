// OpenEnv's WebSocket session at /ws, spoken as OpenEnv's EnvClient speaks it
// (src/openenv/core/env_client.py: {"type": "reset"|"step"|"state"|"close", "data"}), over `ws`.
import http from 'node:http';
import { once } from 'node:events';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent } from '../../src/games/bilateral/registry';
import { EpisodeRequestSchema, playEpisode } from '../../src/training/episode';
import { ObservationResponseSchema, StateSchema } from '../../src/training/openenv';
import { startEnvServer, type EnvServer } from '../../src/training/server';
import { policyAnswer, stepBody } from './helpers';

/** A session whose replies are read in order: `call` sends one message and waits for the next reply. */
async function session(
  url: string,
): Promise<{ ws: WebSocket; call: (message: unknown) => Promise<any>; send: (message: unknown) => void; next: () => Promise<any> }> {
  const ws = new WebSocket(`${url.replace('http://', 'ws://')}/ws`);
  const replies: any[] = [];
  const waiting: ((reply: any) => void)[] = [];
  ws.on('message', (data) => {
    const reply = JSON.parse(String(data));
    const w = waiting.shift();
    if (w) w(reply);
    else replies.push(reply);
  });
  await once(ws, 'open');
  const next = () => (replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise<any>((resolve) => waiting.push(resolve)));
  const send = (message: unknown) => ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  return { ws, send, next, call: (message) => (send(message), next()) };
}

const stateOverHttp = (url: string, id: string): Promise<number> =>
  new Promise((resolve, reject) => http.get(`${url}/state?episode_id=${id}`, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject));

/** The status with which an upgrade is refused. */
function refusedUpgrade(url: string, options: WebSocket.ClientOptions, path = '/ws'): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http://', 'ws://')}${path}`, options);
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
  });
}

describe("OpenEnv's WebSocket session at /ws", () => {
  let server: EnvServer;
  beforeAll(async () => {
    server = await startEnvServer({ makeAgent });
  });
  afterAll(async () => {
    await server.close();
  });

  it('plays episodes to the end, one session each, as in-process runs of the same requests; a reset closes the episode before it', async () => {
    const requests = Array.from({ length: 16 }, (_, i) => ({
      seat: i % 2 === 0 ? 'seller' : 'buyer',
      opponent: ['boulware', 'conceder', 'tit-for-tat', 'random'][i % 4] as string,
      seed: 40 + i,
      interface: i % 3 === 0 ? 'json' : 'tools',
    }));
    const played = await Promise.all(
      requests.map(async (request) => {
        const s = await session(server.url);
        // Before any reset: OpenEnv's fresh state, and a step has no episode to go to.
        expect(await s.call({ type: 'state' })).toEqual({ type: 'state', data: { episode_id: null, step_count: 0 } });
        const early = await s.call({ type: 'step', data: { completion: 'x' } });
        expect([early.type, early.data.code, early.data.error.code]).toEqual(['error', 'EXECUTION_ERROR', 'no-episode']);
        let reply = await s.call({ type: 'reset', data: request });
        expect(reply.type).toBe('observation');
        let result = ObservationResponseSchema.parse(reply.data);
        expect([result.reward, result.observation.seed, result.observation.seat]).toEqual([null, request.seed, request.seat]);
        const id = result.observation.episode_id;
        const tools = result.observation.tools !== undefined;
        let steps = 0;
        while (!result.done) {
          reply = await s.call({ type: 'step', data: stepBody(policyAnswer(result.observation.messages ?? [], tools)) });
          expect(reply.type).toBe('observation');
          result = ObservationResponseSchema.parse(reply.data);
          steps++;
        }
        const state = await s.call({ type: 'state' });
        expect(state.type).toBe('state');
        // A step after the end is refused; the session goes on.
        const late = await s.call({ type: 'step', data: { completion: 'x' } });
        expect([late.data.code, late.data.error.code]).toEqual(['EXECUTION_ERROR', 'episode-over']);
        // A second reset in the session: a new episode, and the one before is closed.
        const second = await s.call({ type: 'reset', data: { seed: request.seed + 1000 } });
        expect(second.data.observation.episode_id).not.toBe(id);
        expect(await stateOverHttp(server.url, id)).toBe(404);
        const secondId = second.data.observation.episode_id;
        // `close` ends the session: the server closes the socket, and the episode with it.
        s.send({ type: 'close' });
        const [code] = (await once(s.ws, 'close')) as [number];
        expect(code).toBe(1000);
        return { end: result, steps, state: StateSchema.parse(state.data), secondId };
      }),
    );
    for (const [i, { end, steps, state }] of played.entries()) {
      const local = await playEpisode(EpisodeRequestSchema.parse({ game: 'bilateral', ...requests[i] }), makeAgent, (q) =>
        policyAnswer(q.messages, q.tools !== undefined),
      );
      expect(end.reward).toBe(local.reward.total);
      expect(end.observation.outcome).toEqual(local.record.outcome);
      expect(state).toMatchObject({ step_count: steps, done: true, reward: local.reward.total });
      expect(end.observation.terminated).toBe(local.record.outcome.kind !== 'turn_limit');
      expect(end.observation.truncated).toBe(local.record.outcome.kind === 'turn_limit');
    }
    // Closed sessions leave no episodes behind (the server closed each when its socket went).
    await expect.poll(async () => Promise.all(played.map((p) => stateOverHttp(server.url, p.secondId)))).toEqual(played.map(() => 404));
  }, 60_000);

  it('answers messages in the order they came, refuses what OpenEnv refuses with its error codes, and goes on', async () => {
    const s = await session(server.url);
    // Sent at once, answered in turn: the state after the reset knows its episode.
    s.send({ type: 'reset', data: { seed: 9, opponent: 'hardliner' } });
    s.send({ type: 'state' });
    s.send('{"type": "step", ');
    s.send({ type: 'mcp', data: {} });
    s.send({ type: 'state', data: {} });
    s.send({ type: 'reset', data: { seed: -1 } });
    s.send({ type: 'reset', data: { game: 'chess' } });
    s.send({ type: 'step', data: { answer: 'x' } });
    s.send({ type: 'step' });
    s.send([]);
    const replies = await Promise.all(Array.from({ length: 10 }, () => s.next()));
    const [reset, state, ...errors] = replies;
    expect(reset.type).toBe('observation');
    expect(state.data).toMatchObject({ episode_id: reset.data.observation.episode_id, step_count: 0, seed: 9 });
    expect(errors.map((e) => [e.type, e.data.code, e.data.error.code])).toEqual([
      ['error', 'INVALID_JSON', 'bad-json'],
      ['error', 'UNKNOWN_TYPE', 'unknown-message'],
      ['error', 'VALIDATION_ERROR', 'bad-body'],
      ['error', 'VALIDATION_ERROR', 'bad-body'],
      ['error', 'VALIDATION_ERROR', 'unknown-game'],
      ['error', 'VALIDATION_ERROR', 'bad-body'],
      ['error', 'VALIDATION_ERROR', 'bad-body'],
      ['error', 'UNKNOWN_TYPE', 'unknown-message'],
    ]);
    for (const e of errors) expect(e.data.message).toBe(e.data.error.message);
    // The refused reset left the session's episode as it was.
    const after = await s.call({ type: 'step', data: { completion: '{"action":{"type":"offer","price":1}}' } });
    expect([after.type, after.data.observation.episode_id, after.data.observation.step_count]).toEqual(['observation', reset.data.observation.episode_id, 1]);
    // A socket dropped without `close` takes its episode too.
    s.ws.terminate();
    await expect.poll(() => stateOverHttp(server.url, reset.data.observation.episode_id)).toBe(404);
  });

  it('refuses upgrades from web pages, for another Host, and at other paths', async () => {
    expect(await refusedUpgrade(server.url, { origin: 'http://example.com' })).toBe(403);
    expect(await refusedUpgrade(server.url, { headers: { host: `rebound.example:${server.port}` } })).toBe(403);
    expect(await refusedUpgrade(server.url, {}, '/episodes')).toBe(404);
    // A plain GET of /ws is told to upgrade.
    const plain = await new Promise<number>((resolve, reject) =>
      http.get(`${server.url}/ws`, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject),
    );
    expect(plain).toBe(405);
  });
});
