import type { Clock } from '../../engine/clock';
import type { AgentFactory, SeatInfo } from '../../engine/seat';
import { createRng, deriveSeed, hashString } from '../../engine/rng';
import { scenarioAt, type Deadline, type FirstMoverChoice, type Preset, type Role, type Scenario } from './scenario';
import { playSession, type Agent, type RunOptions, type SessionRecord } from '../../engine/session';
import type { Move } from './moves';
import { bilateral, type BilateralObservation, type BilateralOutcome } from './protocol';
import type { BilateralEvent, BilateralResult } from './events';
import { computeMetrics, type NegotiationMetrics } from './metrics';

export type BilateralAgent = Agent<BilateralObservation, Move>;

/** Builds the agent for one seat of one negotiation. */
export type BilateralAgentFactory = AgentFactory<Role, BilateralAgent>;

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
  return scored(scenario, await playSession(bilateral, scenario, agents, opts));
}

/** How many scenarios each ordered pair meets: the config's own list, or `scenariosPerPair` drawn ones. */
export const scenarioCount = (config: TournamentConfig): number => config.scenarios?.length ?? config.scenariosPerPair;

/** Scenario k of a tournament: the config's own, or drawn from its preset and seed. */
export function scenarioOf(config: TournamentConfig, k: number): Scenario {
  if (config.scenarios === undefined) return scenarioAt(config, k);
  const scenario = config.scenarios[k];
  if (scenario === undefined) throw new Error(`scenario ${k} is beyond the config's ${config.scenarios.length}`);
  return scenario;
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
    for (const pair of pairs) yield { id: pair.prefix + k, index: index++, scenarioIndex: k, buyer: pair.buyer, seller: pair.seller, scenario };
  }
}

/** The whole plan as a list (for small plans and tests; `planJobs` streams it). */
export const planTournament = (config: TournamentConfig): NegotiationJob[] => [...planJobs(config)];

/**
 * The seeds of one Arena game's seats, from its id (the run's id): the game, its debrief's replays
 * and the import's check of a scripted seat all seed a seat this way.
 */
export function arenaSeat(gameId: string, role: Role): SeatInfo {
  const seed = hashString(gameId);
  return { rng: createRng(seed ^ (role === 'buyer' ? 1 : 2)), jobId: gameId, seed: deriveSeed(seed, gameId, role) };
}
