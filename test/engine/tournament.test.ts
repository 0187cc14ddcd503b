/**
 * The engine's one tournament runner, driven by a game it has never heard of: the ultimatum game of
 * test/support/games (its protocol, GameDef and strategies, and nothing else). Plan order, seats,
 * the synchronous fast path, resume by a set of ids, cancel, and concurrency with slots refilled
 * as jobs end and a bounded lookahead.
 */
import { describe, expect, it } from 'vitest';
import { Seat, type AgentFactory } from '../../src/engine/seat';
import { runTournament, type TournamentOptions, type TournamentSummary } from '../../src/engine/tournament';
import { createRng, deriveSeed } from '../../src/engine/rng';
import {
  makeUltimatumAgent,
  ultimatumGame,
  type UltimatumAgent,
  type UltimatumConfig,
  type UltimatumResult,
  type UltimatumRole,
} from '../support/games/ultimatum';

type Factory = AgentFactory<UltimatumRole, UltimatumAgent>;

const CONFIG: UltimatumConfig = { proposers: ['fair', 'greedy', 'random'], responders: ['accept', 'proud', 'random'], rounds: 6, seed: 5 };
const PLANNED = 6 * 3 * 3;
const PLAN = [...ultimatumGame.plan(CONFIG)];

async function collect(factory: Factory = makeUltimatumAgent, opts: TournamentOptions<UltimatumResult> = {}, config = CONFIG) {
  const results: UltimatumResult[] = [];
  const summary: TournamentSummary = await runTournament(ultimatumGame, config, factory, {
    ...opts,
    onResult: async (r) => {
      results.push(r);
      await opts.onResult?.(r);
    },
  });
  return { results, summary };
}

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The scripted agents, answering after `turnsOf(job)` event-loop turns. `flight` counts the jobs
 * started (a proposer's first answer asked for) and not yet finished (the responder's answer given).
 */
function delayed(turnsOf: (jobId: string) => number, flight = { now: 0, most: 0 }): Factory {
  return (spec, role, seat) => {
    const agent = makeUltimatumAgent(spec, role, seat);
    return {
      act: async (obs, signal, retry) => {
        if (role === 'proposer' && retry === undefined) flight.most = Math.max(flight.most, ++flight.now);
        for (let i = turnsOf(seat.jobId); i > 0; i--) await nextTurn();
        const reply = await agent.act(obs, signal, retry);
        if (role === 'responder') flight.now--;
        return reply;
      },
    };
  };
}

const unevenTurns = (jobId: string) => (Number(jobId.split('-')[0]) * 7 + jobId.length) % 4;

describe('runTournament over a game of its own (the ultimatum game)', () => {
  it('plays every proposer against every responder on the same pie each round, in plan order', async () => {
    const { results, summary } = await collect();
    expect(summary).toEqual({ planned: PLANNED, played: PLANNED, skipped: 0, cancelled: false });
    expect(ultimatumGame.plannedCount(CONFIG)).toBe(PLANNED);
    expect(results.map((r) => [r.id, r.index])).toEqual(PLAN.map((j, i) => [j.id, i]));
    for (let round = 0; round < CONFIG.rounds; round++) expect(new Set(results.filter((r) => r.round === round).map((r) => r.pie)).size).toBe(1);
    expect(new Set(results.map((r) => r.pie)).size).toBeGreaterThan(1);
    for (const r of results) {
      expect(r.events.map((e) => [e.type, e.turn])).toEqual([
        ['move', 0],
        ['move', 1],
        ['end', 2],
      ]);
      expect(r.events.at(-1)).toEqual({ type: 'end', turn: 2, outcome: r.outcome });
      const half = Math.floor(r.pie / 2);
      if (r.proposer === 'fair' && r.responder === 'accept') expect(r.outcome).toEqual({ kind: 'split', proposer: r.pie - half, responder: half, turn: 2 });
      if (r.proposer === 'greedy' && r.responder === 'proud') expect(r.outcome).toEqual({ kind: 'no_deal', turn: 2 });
    }
    // What a store or a file will keep: the results survive JSON as they are.
    expect(JSON.parse(JSON.stringify(results))).toEqual(results);
  });

  it('builds each seat from its spec, seeded from the run, the job and the role, and replays the same', async () => {
    const seen: { jobId: string; role: UltimatumRole; spec: string; seed: number }[] = [];
    const factory: Factory = (spec, role, seat) => {
      seen.push({ jobId: seat.jobId, role, spec, seed: seat.seed });
      return makeUltimatumAgent(spec, role, seat);
    };
    const first = await collect(factory);
    expect(seen).toHaveLength(2 * PLANNED);
    for (const s of seen) {
      const job = PLAN.find((j) => j.id === s.jobId)!;
      expect(s.spec).toBe(job[s.role]);
      expect(s.seed).toBe(deriveSeed(CONFIG.seed, s.jobId, s.role));
    }
    expect(new Set(seen.map((s) => s.seed)).size).toBe(seen.length);
    expect((await collect()).results).toEqual(first.results);
    // The random strategies draw from their seats' streams, so another run seed plays them otherwise.
    const otherSeed = await collect(makeUltimatumAgent, {}, { ...CONFIG, seed: 6 });
    const randomEvents = (rs: UltimatumResult[]) => rs.filter((r) => r.proposer === 'random').map((r) => r.events);
    expect(randomEvents(otherSeed.results)).not.toEqual(randomEvents(first.results));
  });

  it('hands a seat one stream, from its seed, however often it is read', () => {
    const seat = new Seat(5, '0-0-0', 'proposer');
    expect(seat.seed).toBe(deriveSeed(5, '0-0-0', 'proposer'));
    expect(seat.rng).toBe(seat.rng);
    const fresh = createRng(seat.seed);
    expect([seat.rng.next(), seat.rng.next()]).toEqual([fresh.next(), fresh.next()]);
  });

  it('plays synchronously, with no promise to wait on, when every agent and onResult are synchronous', async () => {
    const results: UltimatumResult[] = [];
    const pending = runTournament(ultimatumGame, CONFIG, makeUltimatumAgent, { onResult: (r) => void results.push(r) });
    expect(results).toHaveLength(PLANNED);
    expect((await pending).played).toBe(PLANNED);
  });

  it('records an invalid move, retries it and forfeits the turn, by the runner’s rules for every game', async () => {
    const overreach: Factory = (spec, role, seat) =>
      spec === 'greedy' ? { act: (obs) => ({ kind: 'move', move: { offer: obs.pie + 1 } }) } : makeUltimatumAgent(spec, role, seat);
    const { results } = await collect(overreach);
    const r = results.find((x) => x.proposer === 'greedy')!;
    expect(r.events.map((e) => (e.type === 'invalid' ? `invalid ${e.attempt}` : e.type))).toEqual(['invalid 0', 'invalid 1', 'invalid 2', 'forfeit', 'end']);
    expect(r.outcome).toEqual({ kind: 'no_deal', turn: 1 });
  });

  it.each([1, 4])('skips a set of finished ids wherever they stand in the plan, the rest as the unbroken run (concurrency %i)', async (concurrency) => {
    const whole = (await collect()).results;
    const done = new Set(whole.filter((r) => r.index % 4 === 1 || r.index > 40).map((r) => r.id));
    const skip = new Set([...done, '6-0-0', '0-3-0', '00-0-0', 'nothing']);
    const { results, summary } = await collect(delayed(unevenTurns), { concurrency, skip });
    expect(summary).toEqual({ planned: PLANNED, played: PLANNED - done.size, skipped: done.size, cancelled: false });
    expect(results).toEqual(whole.filter((r) => !done.has(r.id)));
  });

  it.each([1, 3])('stops on the signal with an unbroken prefix of the plan, and a resume completes it (concurrency %i)', async (concurrency) => {
    const whole = (await collect()).results;
    const stop = new AbortController();
    const first = await collect(delayed(unevenTurns), {
      concurrency,
      signal: stop.signal,
      onResult: (r) => {
        if (r.index === 10) stop.abort();
      },
    });
    expect(first.summary).toMatchObject({ planned: PLANNED, played: first.results.length, cancelled: true });
    expect(first.results.length).toBeGreaterThanOrEqual(11);
    expect(first.results.length).toBeLessThan(PLANNED);
    expect(first.results).toEqual(whole.slice(0, first.results.length));
    const rest = await collect(delayed(unevenTurns), { concurrency, skip: new Set(first.results.map((r) => r.id)) });
    expect([...first.results, ...rest.results]).toEqual(whole);
  });

  it('refills a slot as soon as its job ends, runs at most 8 × concurrency jobs ahead of delivery, and delivers in plan order', async () => {
    const whole = (await collect()).results;
    const flight = { now: 0, most: 0 };
    const firstJob = PLAN[0]!.id;
    let started = 0;
    let startedWhileFirstWaited = 0;
    const slowFirst = delayed((id) => (id === firstJob ? 0 : 1), flight);
    const factory: Factory = (spec, role, seat) => {
      if (role === 'proposer') started++;
      const agent = slowFirst(spec, role, seat);
      if (seat.jobId !== firstJob || role !== 'proposer') return agent;
      return {
        act: async (obs, signal, retry) => {
          // Long enough for every job the runner would start to have started.
          for (let i = 0; i < 200; i++) await nextTurn();
          startedWhileFirstWaited = started;
          return agent.act(obs, signal, retry);
        },
      };
    };
    const { results, summary } = await collect(factory, { concurrency: 2 });
    // A runner that waited on its oldest job would have started only the second one meanwhile.
    expect(startedWhileFirstWaited).toBeGreaterThan(2);
    expect(startedWhileFirstWaited).toBeLessThanOrEqual(16);
    expect(flight.most).toBe(2);
    expect(summary).toEqual({ planned: PLANNED, played: PLANNED, skipped: 0, cancelled: false });
    expect(results).toEqual(whole);
  });

  it.each([1, 3])('fails with the error of a seat its factory refuses, rather than hang (concurrency %i)', async (concurrency) => {
    const config = { ...CONFIG, responders: ['accept', 'nobody'] };
    await expect(collect(delayed(unevenTurns), { concurrency }, config)).rejects.toThrow('no responder strategy "nobody"');
  });
});
