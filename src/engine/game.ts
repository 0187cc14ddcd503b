/**
 * What a game gives the engine so that the one tournament runner can plan, play and resume it.
 * The game keeps its protocol, scenarios, metrics and job shapes; the engine knows only this.
 */
import type { RunOptions } from './session';

/** One entry of a plan: `id` is stable across runs of the same config (resume skips by it), `index` its place in plan order. */
export interface PlannedJob {
  readonly id: string;
  readonly index: number;
}

/** What a tournament passes on to every session it plays. */
export type SessionOptions = Pick<RunOptions<string, unknown, unknown>, 'signal' | 'clock' | 'moveTimeoutMs' | 'maxRetries'>;

/**
 * A game as the engine plays it. `Config` is the game's tournament config (its `seed` seeds every
 * seat), `Job` one planned session, `Role` its seats, `A` an agent of those seats and `R` the
 * scored result of a job, handed to the caller as it is.
 */
export interface GameDef<Config extends { seed: number }, Job extends PlannedJob, Role extends string, A, R> {
  /** The game's name, as runs and files will record it. */
  readonly name: string;
  /** Every seat of a job, in the order their agents are built. */
  readonly roles: readonly Role[];
  /** The jobs, made lazily in plan order (`index` 0, 1, 2, …): a plan of any size starts at once. */
  plan(config: Config): Iterable<Job>;
  /** How many jobs `plan` makes, without making them. */
  plannedCount(config: Config): number;
  /** Whether `id` names a job of this plan (how a resume counts the ids it skipped). */
  inPlan(config: Config, id: string): boolean;
  /** The spec of the agent that plays `role` in `job`. */
  seatSpec(job: Job, role: Role): string;
  /** Plays one job with its agents and scores it; synchronous when every agent answers synchronously. */
  play(job: Job, agents: Record<Role, A>, opts: SessionOptions): R | Promise<R>;
  /** Whether a result ended cancelled (never handed on: a resume plays that job again). */
  isCancelled(result: R): boolean;
}
