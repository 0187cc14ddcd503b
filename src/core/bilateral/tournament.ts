import { createRng, deriveSeed, type Rng } from '../rng';
import { generateScenarios, type Deadline, type FirstMoverChoice, type Preset, type Role, type Scenario } from '../scenario';
import { runSession, type Agent, type RunOptions } from '../session';
import type { Clock } from '../clock';
import type { Move } from './moves';
import { bilateral, type BilateralObservation } from './protocol';
import type { BilateralEvent, BilateralResult } from './events';
import { computeMetrics, type NegotiationMetrics } from './metrics';

export type BilateralAgent = Agent<BilateralObservation, Move>;

/** Builds a fresh agent for one seat of one negotiation; the rng is that seat's own stream. */
export type AgentFactory = (spec: string, role: Role, ctx: { rng: Rng; negotiationId: string }) => BilateralAgent;

export interface TournamentConfig {
  /** Agent specs, e.g. `boulware:beta=0.2`; each is also the agent's name in the results. */
  agents: string[];
  scenariosPerPair: number;
  preset: Preset;
  seed: number;
  selfPlay: boolean;
  /** Default: uncertain, 16–24 turns. */
  deadline?: Deadline;
  /** Default: random per scenario. */
  firstMover?: FirstMoverChoice;
}

export interface NegotiationJob {
  id: string;
  index: number;
  scenarioIndex: number;
  buyer: string;
  seller: string;
  scenario: Scenario;
}

export interface NegotiationResult extends NegotiationJob {
  events: BilateralEvent[];
  outcome: BilateralResult;
  metrics: NegotiationMetrics;
}

export interface PlayOptions {
  signal?: AbortSignal;
  clock?: Clock;
  moveTimeoutMs?: number;
  maxRetries?: number;
  onEvent?: RunOptions<Role, Move, BilateralResult>['onEvent'];
}

/** One negotiation: run it and score it. */
export async function playNegotiation(
  scenario: Scenario,
  agents: Record<Role, BilateralAgent>,
  opts: PlayOptions = {},
): Promise<{ events: BilateralEvent[]; outcome: BilateralResult; metrics: NegotiationMetrics }> {
  const { events, outcome } = await runSession(bilateral, scenario, agents, opts);
  return { events, outcome, metrics: computeMetrics(scenario, events) };
}

/**
 * Every ordered (buyer, seller) pair meets the same scenarios (common random numbers).
 * Jobs are ordered scenario-major so that partial results cover every pair evenly.
 */
export function planTournament(config: TournamentConfig): NegotiationJob[] {
  const scenarios = generateScenarios({
    preset: config.preset,
    seed: config.seed,
    count: config.scenariosPerPair,
    deadline: config.deadline,
    firstMover: config.firstMover,
  });
  const pairs: [number, number][] = [];
  config.agents.forEach((_, b) =>
    config.agents.forEach((_, s) => {
      if (b !== s || config.selfPlay) pairs.push([b, s]);
    }),
  );
  const jobs: NegotiationJob[] = [];
  scenarios.forEach((scenario, k) => {
    for (const [b, s] of pairs) {
      jobs.push({
        id: `${b}-${s}-${k}`,
        index: jobs.length,
        scenarioIndex: k,
        buyer: config.agents[b] as string,
        seller: config.agents[s] as string,
        scenario,
      });
    }
  });
  return jobs;
}

export interface TournamentOptions extends Omit<PlayOptions, 'onEvent'> {
  /** Ids of negotiations already finished (resume): they are not played again. */
  skip?: ReadonlySet<string>;
  /** Negotiations in flight at once (for remote models); results still arrive in plan order. */
  concurrency?: number;
  /** Awaited before the next result is delivered, so a slow store holds the tournament back. */
  onResult?: (result: NegotiationResult) => void | Promise<void>;
}

export interface TournamentSummary {
  planned: number;
  played: number;
  skipped: number;
  cancelled: boolean;
}

/** Each seat of each negotiation draws from its own stream, so results never depend on play order. */
const seatContext = (seed: number, negotiationId: string, role: Role) => ({
  rng: createRng(deriveSeed(seed, negotiationId, role)),
  negotiationId,
});

/** Plays a round-robin, streaming each result in plan order; cancellable and resumable. */
export async function runTournament(
  config: TournamentConfig,
  makeAgent: AgentFactory,
  opts: TournamentOptions = {},
): Promise<TournamentSummary> {
  const jobs = planTournament(config);
  const todo = opts.skip ? jobs.filter((j) => !opts.skip?.has(j.id)) : jobs;
  const signal = opts.signal;
  const concurrency = Number.isFinite(opts.concurrency) ? Math.max(1, Math.floor(opts.concurrency as number)) : 1;
  const play = async (job: NegotiationJob): Promise<NegotiationResult> => {
    const agents = {
      buyer: makeAgent(job.buyer, 'buyer', seatContext(config.seed, job.id, 'buyer')),
      seller: makeAgent(job.seller, 'seller', seatContext(config.seed, job.id, 'seller')),
    };
    const { events, outcome, metrics } = await playNegotiation(job.scenario, agents, opts);
    return {
      id: job.id,
      index: job.index,
      scenarioIndex: job.scenarioIndex,
      buyer: job.buyer,
      seller: job.seller,
      scenario: job.scenario,
      events,
      outcome,
      metrics,
    };
  };

  let played = 0;
  let cancelled = false;
  if (concurrency === 1) {
    for (const job of todo) {
      if (signal?.aborted) break;
      const result = await play(job);
      if (result.outcome.kind === 'cancelled') break;
      await opts.onResult?.(result);
      played++;
    }
    cancelled = signal?.aborted ?? false;
  } else {
    // `concurrency` negotiations play at once; a slot is refilled as soon as its negotiation ends,
    // not when its result is handed on, so one long negotiation never holds the others back.
    // Results wait in `done` until every earlier one has been handed on, in plan order; the
    // lookahead bounds how far play may run ahead of delivery.
    const lookahead = concurrency * 8;
    const done = new Map<number, NegotiationResult>();
    const running = new Set<Promise<void>>();
    let next = 0;
    let delivered = 0;
    let stopped = false;
    let wake: (() => void) | null = null;
    const launch = () => {
      while (!stopped && running.size < concurrency && next < todo.length && next - delivered < lookahead && !signal?.aborted) {
        const i = next++;
        const task: Promise<void> = play(todo[i] as NegotiationJob).then((result) => {
          done.set(i, result);
          running.delete(task);
          wake?.();
        });
        running.add(task);
      }
    };
    launch();
    while (!stopped && delivered < todo.length) {
      const result = done.get(delivered);
      if (!result) {
        if (running.size === 0) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        launch();
        continue;
      }
      done.delete(delivered);
      if (result.outcome.kind === 'cancelled') {
        stopped = true;
        break;
      }
      await opts.onResult?.(result);
      delivered++;
      played++;
      launch();
    }
    cancelled = signal?.aborted ?? false;
    await Promise.allSettled(running);
  }
  return { planned: jobs.length, played, skipped: jobs.length - todo.length, cancelled };
}
