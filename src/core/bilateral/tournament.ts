import { createRng, deriveSeed, hashString, type Rng } from '../rng';
import { type Deadline, type FirstMoverChoice, type Preset, type Role, type Scenario } from '../scenario';
import { isThenable, playSession, type Agent, type RunOptions, type SessionRecord } from '../session';
import type { Clock } from '../clock';
import type { Move } from './moves';
import { bilateral, type BilateralObservation, type BilateralOutcome } from './protocol';
import type { BilateralEvent, BilateralResult } from './events';
import { computeMetrics, type NegotiationMetrics } from './metrics';
import { jobPosition, scenarioCount, scenarioOf } from './plan-job';

export type BilateralAgent = Agent<BilateralObservation, Move>;

/** What the factory is told about the seat it builds an agent for. */
export interface SeatInfo {
  /** The seat's own random stream (made only when read, so deterministic strategies never pay for it). */
  readonly rng: Rng;
  negotiationId: string;
  /** The seat's seed, from the run's seed, the negotiation and the role: a model's sampling seeds come from it. */
  readonly seed: number;
}

/** Builds the agent for one seat of one negotiation. */
export type AgentFactory = (spec: string, role: Role, ctx: SeatInfo) => BilateralAgent;

export interface TournamentConfig {
  /** Agent specs, e.g. `boulware:beta=0.2`; each is also the agent's name in the results. */
  agents: string[];
  scenariosPerPair: number;
  preset: Preset;
  seed: number;
  selfPlay: boolean;
  /** Default: uncertain, 16–24 turns. */
  deadline?: Deadline;
  /** Default: alternate (the seller opens even-numbered scenarios, the buyer odd ones). */
  firstMover?: FirstMoverChoice;
  /**
   * The scenarios to play instead of drawn ones (a scenario file): every pair meets each once, in
   * this order. `scenariosPerPair` is then their number; `preset`, `deadline` and `firstMover` do
   * not apply (each scenario has its own turn limit and opener); `seed` still seeds the seats.
   */
  scenarios?: readonly Scenario[];
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

type Played = { events: BilateralEvent[]; outcome: BilateralResult; metrics: NegotiationMetrics };

const scored = (scenario: Scenario, { events, outcome }: SessionRecord<Role, Move, BilateralOutcome>): Played => ({
  events,
  outcome,
  metrics: computeMetrics(scenario, events),
});

/** One negotiation: run it and score it. */
export async function playNegotiation(scenario: Scenario, agents: Record<Role, BilateralAgent>, opts: PlayOptions = {}): Promise<Played> {
  return playNow(scenario, agents, opts);
}

/** `playNegotiation` without a promise when every answer is synchronous. */
function playNow(scenario: Scenario, agents: Record<Role, BilateralAgent>, opts: PlayOptions): Played | Promise<Played> {
  const record = playSession(bilateral, scenario, agents, opts);
  return isThenable(record) ? record.then((r) => scored(scenario, r)) : scored(scenario, record);
}

/** The ordered (buyer, seller) pairs, as indexes into the agent list. */
function pairsOf(config: TournamentConfig): [number, number][] {
  const pairs: [number, number][] = [];
  config.agents.forEach((_, b) =>
    config.agents.forEach((_, s) => {
      if (b !== s || config.selfPlay) pairs.push([b, s]);
    }),
  );
  return pairs;
}

/** Plans larger than this are run only when the user confirms (the app's tick box, the CLI's --yes). */
export const CONFIRM_PLANS_OVER = 1_000_000;

/** How many negotiations a tournament plans, without planning them. */
export const plannedCount = (config: TournamentConfig): number => pairsOf(config).length * scenarioCount(config);

/**
 * Every ordered (buyer, seller) pair meets the same scenarios (common random numbers).
 * Jobs come scenario-major so that partial results cover every pair evenly, one scenario made at
 * a time: a plan of any size starts at once and holds only the scenario in hand.
 */
export function* planJobs(config: TournamentConfig): Generator<NegotiationJob> {
  const pairs = pairsOf(config).map(([b, s]) => ({ prefix: `${b}-${s}-`, buyer: config.agents[b] as string, seller: config.agents[s] as string }));
  let index = 0;
  const count = scenarioCount(config);
  for (let k = 0; k < count; k++) {
    const scenario = scenarioOf(config, k);
    for (const pair of pairs)
      yield { id: pair.prefix + k, index: index++, scenarioIndex: k, buyer: pair.buyer, seller: pair.seller, scenario };
  }
}

/** How many of `ids` name a job of this plan. */
function countInPlan(config: TournamentConfig, ids: ReadonlySet<string>): number {
  let count = 0;
  for (const id of ids) if (jobPosition(config, id) !== null) count++;
  return count;
}

/** The whole plan as a list (for small plans and tests; `planJobs` streams it). */
export const planTournament = (config: TournamentConfig): NegotiationJob[] => [...planJobs(config)];

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
export class SeatContext implements SeatInfo {
  private stream: Rng | null = null;
  private seatSeed: number | null = null;
  constructor(
    private readonly runSeed: number,
    readonly negotiationId: string,
    private readonly role: Role,
  ) {}
  get seed(): number {
    return (this.seatSeed ??= deriveSeed(this.runSeed, this.negotiationId, this.role));
  }
  get rng(): Rng {
    return (this.stream ??= createRng(this.seed));
  }
}

/**
 * The seeds of one Arena game's seats, from its id (the run's id): the game, its debrief's replays
 * and the import's check of a scripted seat all seed a seat this way.
 */
export function arenaSeat(gameId: string, role: Role): SeatInfo {
  const seed = hashString(gameId);
  return { rng: createRng(seed ^ (role === 'buyer' ? 1 : 2)), negotiationId: gameId, seed: deriveSeed(seed, gameId, role) };
}

/** Plays a round-robin, streaming each result in plan order; cancellable and resumable. */
export async function runTournament(
  config: TournamentConfig,
  makeAgent: AgentFactory,
  opts: TournamentOptions = {},
): Promise<TournamentSummary> {
  const planned = plannedCount(config);
  const skip = opts.skip;
  // The jobs still to play, made as they are needed.
  const todo =
    skip === undefined || skip.size === 0
      ? planJobs(config)
      : (function* () {
          for (const job of planJobs(config)) if (!skip.has(job.id)) yield job;
        })();
  const signal = opts.signal;
  const concurrency = Number.isFinite(opts.concurrency) ? Math.max(1, Math.floor(opts.concurrency as number)) : 1;
  const resultOf = (job: NegotiationJob, { events, outcome }: SessionRecord<Role, Move, BilateralOutcome>): NegotiationResult => ({
    id: job.id,
    index: job.index,
    scenarioIndex: job.scenarioIndex,
    buyer: job.buyer,
    seller: job.seller,
    scenario: job.scenario,
    events,
    outcome,
    metrics: computeMetrics(job.scenario, events),
  });
  const playSync = (job: NegotiationJob): NegotiationResult | Promise<NegotiationResult> => {
    const agents = {
      buyer: makeAgent(job.buyer, 'buyer', new SeatContext(config.seed, job.id, 'buyer')),
      seller: makeAgent(job.seller, 'seller', new SeatContext(config.seed, job.id, 'seller')),
    };
    const record = playSession(bilateral, job.scenario, agents, opts);
    return isThenable(record) ? record.then((r) => resultOf(job, r)) : resultOf(job, record);
  };
  const play = async (job: NegotiationJob): Promise<NegotiationResult> => playSync(job);

  let played = 0;
  let cancelled: boolean;
  if (concurrency === 1) {
    // Awaits only what is asynchronous: scripted negotiations and a synchronous onResult run
    // back to back without a trip through the microtask queue.
    for (const job of todo) {
      if (signal?.aborted) break;
      const now = playSync(job);
      const result = isThenable(now) ? await now : now;
      if (result.outcome.kind === 'cancelled') break;
      const handed = opts.onResult?.(result);
      if (handed !== undefined && isThenable(handed)) await handed;
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
    let upcoming = todo.next();
    let wake: (() => void) | null = null;
    const launch = () => {
      while (!stopped && running.size < concurrency && !upcoming.done && next - delivered < lookahead && !signal?.aborted) {
        const i = next++;
        const job = upcoming.value;
        upcoming = todo.next();
        const task: Promise<void> = play(job).then((result) => {
          done.set(i, result);
          running.delete(task);
          wake?.();
        });
        running.add(task);
      }
    };
    launch();
    while (!stopped) {
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
  return { planned, played, skipped: skip ? countInPlan(config, skip) : 0, cancelled };
}
