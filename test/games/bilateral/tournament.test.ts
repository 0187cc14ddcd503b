import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/games/bilateral/metrics';
import { ACCEPT, offer, type Move } from '../../../src/games/bilateral/moves';
import { bilateralGame } from '../../../src/games/bilateral/game';
import {
  planJobs,
  plannedCount,
  planTournament,
  type BilateralAgentFactory,
  type NegotiationJob,
  type BilateralAgent,
  type NegotiationResult,
  type TournamentConfig,
} from '../../../src/games/bilateral/tournament';
import { runTournament, type TournamentOptions, type TournamentSummary } from '../../../src/engine/tournament';
import type { Rng } from '../../../src/engine/rng';
import { generateScenarios, type Role } from '../../../src/games/bilateral/scenario';
import type { AgentReply } from '../../../src/engine/session';

const CONFIG: TournamentConfig = {
  agents: ['tough:0.07', 'mid:0.12', 'soft:0.2'],
  scenariosPerPair: 4,
  preset: 'standard',
  seed: 17,
  selfPlay: false,
  deadline: { kind: 'fixed', turns: 10 },
};

/**
 * A tiny time-dependent concession strategy. The seat's rng sets a random opening, so results
 * depend on which stream each seat is handed.
 */
function concession(rate: number, role: Role, rng: Rng): BilateralAgent {
  const opening = rng.uniform(0, 0.05);
  return {
    act(obs): AgentReply<Move> {
      const L = obs.item.listPrice;
      const t = obs.ownTurn;
      if (role === 'seller') {
        const target = Math.max(obs.reservation, L * (1.25 - opening - rate * t));
        if (obs.pending !== null && obs.pending >= target) return { kind: 'move', move: ACCEPT };
        return { kind: 'move', move: offer(target) };
      }
      const target = Math.min(obs.reservation, L * (0.3 + opening + rate * t));
      if (obs.pending !== null && obs.pending <= target) return { kind: 'move', move: ACCEPT };
      return { kind: 'move', move: offer(target) };
    },
  };
}

const rateOf = (spec: string): number => Number(spec.split(':')[1]);

const syncFactory: BilateralAgentFactory = (spec, role, { rng }) => concession(rateOf(spec), role, rng);

/** Plays the whole tournament, collecting results in the order they are delivered. */
async function collect(
  config: TournamentConfig,
  makeAgent: BilateralAgentFactory,
  opts: TournamentOptions<NegotiationResult> = {},
): Promise<{ results: NegotiationResult[]; summary: TournamentSummary }> {
  const results: NegotiationResult[] = [];
  const user = opts.onResult;
  const summary = await runTournament(bilateralGame, config, makeAgent, {
    ...opts,
    onResult: async (r) => {
      results.push(r);
      await user?.(r);
    },
  });
  return { results, summary };
}

describe('planTournament', () => {
  it('plays every ordered pair of distinct agents on the same scenarios (common random numbers)', () => {
    const jobs = planTournament(CONFIG);
    expect(jobs).toHaveLength(6 * 4);
    const scenarios = generateScenarios({ preset: 'standard', seed: 17, count: 4, deadline: { kind: 'fixed', turns: 10 } });
    const byPair = new Map<string, unknown[]>();
    for (const j of jobs) {
      expect(j.buyer).not.toBe(j.seller);
      const key = `${j.buyer} vs ${j.seller}`;
      byPair.set(key, [...(byPair.get(key) ?? []), j.scenario]);
    }
    expect(byPair.size).toBe(6);
    for (const b of CONFIG.agents) {
      for (const s of CONFIG.agents) {
        if (b !== s) expect(byPair.get(`${b} vs ${s}`)).toEqual(scenarios);
      }
    }
  });

  it('passes the deadline and first mover on to the scenarios', () => {
    const jobs = planTournament({ ...CONFIG, deadline: { kind: 'fixed', turns: 7 }, firstMover: 'buyer' });
    expect(jobs.every((j) => j.scenario.turnLimit === 7 && j.scenario.firstMover === 'buyer' && !j.scenario.turnRange)).toBe(true);
    const byDefault = planTournament({ ...CONFIG, deadline: undefined, firstMover: undefined });
    expect(byDefault.every((j) => j.scenario.turnRange?.min === 16 && j.scenario.turnRange.max === 24)).toBe(true);
    expect(byDefault.every((j) => j.scenario.turnLimit >= 16 && j.scenario.turnLimit <= 24)).toBe(true);
    // alternate: the seller opens even-numbered scenarios, the buyer odd ones
    expect(byDefault.every((j) => j.scenario.firstMover === (j.scenarioIndex % 2 === 0 ? 'seller' : 'buyer'))).toBe(true);
  });

  it('adds self-play only when asked', () => {
    const jobs = planTournament({ ...CONFIG, selfPlay: true });
    expect(jobs).toHaveLength(9 * 4);
    const selfGames = jobs.filter((j) => j.buyer === j.seller);
    expect(selfGames).toHaveLength(3 * 4);
    expect(new Set(selfGames.map((j) => j.buyer))).toEqual(new Set(CONFIG.agents));
  });

  it('gives unique, stable ids and consecutive indexes', () => {
    const jobs = planTournament(CONFIG);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(jobs.length);
    expect(jobs.map((j) => j.index)).toEqual(jobs.map((_, i) => i));
    expect(planTournament(CONFIG).map((j) => j.id)).toEqual(jobs.map((j) => j.id));
    // More scenarios per pair keep the ids (and scenarios) of the ones already planned.
    const bigger = planTournament({ ...CONFIG, scenariosPerPair: 6 });
    for (const j of jobs) {
      const same = bigger.find((k) => k.id === j.id);
      expect(same).toMatchObject({ buyer: j.buyer, seller: j.seller, scenarioIndex: j.scenarioIndex, scenario: j.scenario });
    }
  });

  it('orders jobs scenario-major, so any prefix covers the pairs evenly', () => {
    const jobs = planTournament(CONFIG);
    jobs.forEach((j, i) => expect(j.scenarioIndex).toBe(Math.floor(i / 6)));
    const firstRound = jobs.slice(0, 6).map((j) => `${j.buyer}/${j.seller}`);
    expect(new Set(firstRound).size).toBe(6);
  });

  it('plans nothing without scenarios or without opponents', () => {
    expect(planTournament({ ...CONFIG, scenariosPerPair: 0 })).toEqual([]);
    expect(planTournament({ ...CONFIG, agents: ['only:0.1'] })).toEqual([]);
    expect(planTournament({ ...CONFIG, agents: ['only:0.1'], selfPlay: true })).toHaveLength(4);
  });
});

describe('runTournament', () => {
  it('streams one scored result per job, in plan order', async () => {
    const plan = planTournament(CONFIG);
    const { results, summary } = await collect(CONFIG, syncFactory);
    expect(summary).toEqual({ planned: 24, played: 24, skipped: 0, cancelled: false });
    expect(results.map((r) => r.id)).toEqual(plan.map((j) => j.id));
    for (const r of results) {
      expect(r.events.at(-1)).toEqual({ type: 'end', turn: expect.any(Number), outcome: r.outcome });
      expect(r.metrics).toEqual(computeMetrics(r.scenario, r.events));
      expect(['deal', 'walk_away', 'turn_limit']).toContain(r.outcome.kind);
    }
    // The strategies do reach deals, so the comparisons below are not about empty logs.
    const kinds = results.map((r) => r.outcome.kind);
    expect(kinds.filter((k) => k === 'deal').length).toBeGreaterThanOrEqual(5);
    expect(kinds.filter((k) => k !== 'deal').length).toBeGreaterThan(0);
  });

  it('builds each seat with its spec, role, the job id and its own seeded stream', async () => {
    const seen: { spec: string; role: Role; id: string; draw: number }[] = [];
    const factory: BilateralAgentFactory = (spec, role, ctx) => {
      seen.push({ spec, role, id: ctx.jobId, draw: ctx.rng.next() });
      return concession(rateOf(spec), role, ctx.rng);
    };
    await runTournament(bilateralGame, CONFIG, factory);
    const plan = planTournament(CONFIG);
    expect(seen).toHaveLength(2 * plan.length);
    for (const j of plan) {
      expect(
        seen
          .filter((s) => s.id === j.id)
          .map((s) => [s.role, s.spec])
          .sort(),
      ).toEqual([
        ['buyer', j.buyer],
        ['seller', j.seller],
      ]);
    }
    // Every seat of every negotiation gets a different stream …
    expect(new Set(seen.map((s) => s.draw)).size).toBe(seen.length);
    // … and the same one on a second run.
    const again: number[] = [];
    await runTournament(bilateralGame, CONFIG, (spec, role, ctx) => {
      again.push(ctx.rng.next());
      return concession(rateOf(spec), role, ctx.rng);
    });
    expect(again).toEqual(seen.map((s) => s.draw));
  });

  it('is reproducible: the same config gives the same results', async () => {
    const a = await collect(CONFIG, syncFactory);
    const b = await collect(CONFIG, syncFactory);
    expect(b.results).toEqual(a.results);
    const other = await collect({ ...CONFIG, seed: 18 }, syncFactory);
    expect(other.results.map((r) => r.events)).not.toEqual(a.results.map((r) => r.events));
  });

  it('skips finished ids on resume, and the rest equal the uninterrupted run', async () => {
    const full = (await collect(CONFIG, syncFactory)).results;
    const done = new Set(full.filter((_, i) => i < 7 || i % 5 === 0).map((r) => r.id));
    const { results, summary } = await collect(CONFIG, syncFactory, { skip: done });
    expect(summary).toEqual({ planned: 24, played: 24 - done.size, skipped: done.size, cancelled: false });
    expect(results).toEqual(full.filter((r) => !done.has(r.id)));
  });

  it('stops when the signal is aborted between negotiations, and a resume completes the run', async () => {
    const full = (await collect(CONFIG, syncFactory)).results;
    const controller = new AbortController();
    const first = await collect(CONFIG, syncFactory, {
      signal: controller.signal,
      onResult: (r) => {
        if (r.index === 4) controller.abort();
      },
    });
    expect(first.summary).toEqual({ planned: 24, played: 5, skipped: 0, cancelled: true });
    expect(first.results).toEqual(full.slice(0, 5));
    const rest = await collect(CONFIG, syncFactory, { skip: new Set(first.results.map((r) => r.id)) });
    expect([...first.results, ...rest.results]).toEqual(full);
  });

  it('stops in the middle of a negotiation, without delivering the cancelled one', async () => {
    const plan = planTournament(CONFIG);
    const controller = new AbortController();
    const factory: BilateralAgentFactory = (spec, role, ctx) => {
      if (ctx.jobId !== plan[3]!.id || role !== 'buyer') return syncFactory(spec, role, ctx);
      return {
        act: () => {
          setTimeout(() => controller.abort(), 0);
          return new Promise<AgentReply<Move>>(() => {});
        },
      };
    };
    const { results, summary } = await collect(CONFIG, factory, { signal: controller.signal });
    expect(summary).toMatchObject({ planned: 24, played: 3, cancelled: true });
    expect(results.map((r) => r.id)).toEqual(plan.slice(0, 3).map((j) => j.id));
    expect(results.every((r) => r.outcome.kind !== 'cancelled')).toBe(true);
  });

  it('plays nothing when cancelled before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    let built = 0;
    const { results, summary } = await collect(
      CONFIG,
      (spec, role, ctx) => {
        built++;
        return syncFactory(spec, role, ctx);
      },
      { signal: controller.signal },
    );
    expect(summary).toMatchObject({ planned: 24, played: 0, cancelled: true });
    expect(results).toEqual([]);
    expect(built).toBe(0);
  });

  it('waits for a slow onResult before delivering the next result', async () => {
    let busy = false;
    let overlapped = false;
    await collect({ ...CONFIG, scenariosPerPair: 1 }, syncFactory, {
      concurrency: 3,
      onResult: async () => {
        if (busy) overlapped = true;
        busy = true;
        await new Promise((r) => setTimeout(r, 2));
        busy = false;
      },
    });
    expect(overlapped).toBe(false);
  });
});

describe('runTournament with concurrency', () => {
  const config: TournamentConfig = { ...CONFIG, scenariosPerPair: 3 };
  const plan = planTournament(config);
  const indexOf = new Map(plan.map((j) => [j.id, j.index]));

  /**
   * The same strategies, answering asynchronously: every third negotiation is slow, so later ones
   * finish first. Logs when each negotiation starts and when each answer arrives.
   */
  function asyncFactory(log: { id: string; what: 'start' | 'answer' }[]): BilateralAgentFactory {
    return (spec, role, ctx) => {
      const inner = syncFactory(spec, role, ctx);
      const slow = (indexOf.get(ctx.jobId) ?? 0) % 3 === 0;
      return {
        act: (obs, signal, retry) => {
          if (obs.turn === 0) log.push({ id: ctx.jobId, what: 'start' });
          const reply = inner.act(obs, signal, retry) as AgentReply<Move>;
          const answer = () => {
            log.push({ id: ctx.jobId, what: 'answer' });
            return reply;
          };
          return slow ? new Promise((r) => setTimeout(() => r(answer()), 3)) : Promise.resolve().then(answer);
        },
      };
    };
  }

  it('delivers results in plan order, equal to a sequential run, with several in flight', async () => {
    const sequential = (await collect(config, syncFactory)).results;
    const log: { id: string; what: 'start' | 'answer' }[] = [];
    const { results, summary } = await collect(config, asyncFactory(log), { concurrency: 4 });
    expect(summary).toEqual({ planned: plan.length, played: plan.length, skipped: 0, cancelled: false });
    expect(results.map((r) => r.id)).toEqual(plan.map((j) => j.id));
    expect(results).toEqual(sequential);

    // Negotiations really overlapped, never more than 4 at once, and finished out of plan order.
    const lastAnswer = new Map<string, number>();
    const start = new Map<string, number>();
    log.forEach((e, i) => (e.what === 'start' ? start.set(e.id, start.get(e.id) ?? i) : lastAnswer.set(e.id, i)));
    let maxInFlight = 0;
    log.forEach((_, i) => {
      const live = [...start.keys()].filter((id) => start.get(id)! <= i && lastAnswer.get(id)! >= i).length;
      maxInFlight = Math.max(maxInFlight, live);
    });
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    const finishOrder = [...lastAnswer.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
    expect(finishOrder).not.toEqual(plan.map((j) => j.id));
  });

  it('honours skip with concurrency', async () => {
    const sequential = (await collect(config, syncFactory)).results;
    const done = new Set(plan.filter((j) => j.index % 2 === 1).map((j) => j.id));
    const { results, summary } = await collect(config, asyncFactory([]), { concurrency: 3, skip: done });
    expect(summary).toMatchObject({ played: plan.length - done.size, skipped: done.size, cancelled: false });
    expect(results).toEqual(sequential.filter((r) => !done.has(r.id)));
  });

  it('stops on the signal, delivering only an uninterrupted prefix of the plan', async () => {
    const sequential = (await collect(config, syncFactory)).results;
    const controller = new AbortController();
    const { results, summary } = await collect(config, asyncFactory([]), {
      concurrency: 3,
      signal: controller.signal,
      // Job 3 is slow and still being played when job 2 is delivered, so it ends cancelled.
      onResult: (r) => {
        if (r.index === 2) controller.abort();
      },
    });
    expect(summary.cancelled).toBe(true);
    expect(summary.played).toBeLessThan(summary.planned);
    expect(summary.played).toBe(results.length);
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.every((r) => r.outcome.kind !== 'cancelled')).toBe(true);
    expect(results).toEqual(sequential.slice(0, results.length));
    // And resuming from what was delivered completes the run exactly.
    const rest = await collect(config, asyncFactory([]), { concurrency: 3, skip: new Set(results.map((r) => r.id)) });
    expect([...results, ...rest.results]).toEqual(sequential);
  });
});

describe('plans of any size', () => {
  const HUGE: TournamentConfig = { ...CONFIG, agents: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], selfPlay: true, scenariosPerPair: 1_000_000 };

  it('counts a 49-million-negotiation plan without making it, and streams its first jobs', () => {
    expect(plannedCount(HUGE)).toBe(49_000_000);
    const jobs = planJobs(HUGE);
    const first = Array.from({ length: 100 }, () => jobs.next().value as NegotiationJob);
    expect(first.map((j) => j.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // 49 ordered pairs (self-play included) meet scenario 0, then scenario 1.
    expect(first[48]!.scenarioIndex).toBe(0);
    expect(first[48]!.id).toBe('6-6-0');
    expect(first[49]!.scenarioIndex).toBe(1);
    expect(first[49]!.id).toBe('0-0-1');
  });

  it('streams the same jobs as the whole plan, in the same order', () => {
    expect([...planJobs(CONFIG)]).toEqual(planTournament(CONFIG));
    expect(planTournament(CONFIG)).toHaveLength(plannedCount(CONFIG));
  });

  it('starts a huge tournament at once and stops it when cancelled, counting skipped jobs of the plan only', async () => {
    const controller = new AbortController();
    let seen = 0;
    const summary = await runTournament(bilateralGame, HUGE, (spec, role, ctx) => concession(0.2, role, ctx.rng), {
      signal: controller.signal,
      skip: new Set(['0-0-0', '6-6-999999', 'not-a-job', '7-0-0', '0-0-1000000']),
      onResult: async () => {
        if (++seen === 20) controller.abort();
        await Promise.resolve();
      },
    });
    expect(summary).toEqual({ planned: 49_000_000, played: 20, skipped: 2, cancelled: true });
  });
});
