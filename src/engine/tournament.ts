/**
 * The one tournament runner: plays a game's plan, streams each result in plan order, and can be
 * cancelled and resumed. Every game runs through it (see docs/games.md).
 */
import { isThenable } from './session';
import type { GameDef, PlannedJob, SessionOptions } from './game';
import { Seat, type AgentFactory } from './seat';

export interface TournamentOptions<R> extends SessionOptions {
  /** Ids of jobs already finished (resume): they are not played again, wherever they stand in the plan. */
  skip?: ReadonlySet<string>;
  /** Jobs in flight at once (for remote models); results still arrive in plan order. */
  concurrency?: number;
  /** Awaited before the next result is delivered, so a slow store holds the tournament back. */
  onResult?: (result: R) => void | Promise<void>;
}

export interface TournamentSummary {
  planned: number;
  played: number;
  /** How many of the skipped ids name a job of the plan. */
  skipped: number;
  cancelled: boolean;
}

/** Plays a game's plan, streaming each result in plan order; cancellable and resumable. */
export async function runTournament<Config extends { seed: number }, Job extends PlannedJob, Role extends string, A, R>(
  game: GameDef<Config, Job, Role, A, R>,
  config: Config,
  makeAgent: AgentFactory<Role, A>,
  opts: TournamentOptions<R> = {},
): Promise<TournamentSummary> {
  const planned = game.plannedCount(config);
  const { skip, signal, onResult } = opts;
  const session: SessionOptions = { signal, clock: opts.clock, moveTimeoutMs: opts.moveTimeoutMs, maxRetries: opts.maxRetries };
  // The jobs still to play, made as they are needed.
  const todo: Iterator<Job> =
    skip === undefined || skip.size === 0
      ? game.plan(config)[Symbol.iterator]()
      : (function* () {
          for (const job of game.plan(config)) if (!skip.has(job.id)) yield job;
        })();
  const concurrency = Number.isFinite(opts.concurrency) ? Math.max(1, Math.floor(opts.concurrency as number)) : 1;
  const playNow = (job: Job): R | Promise<R> => {
    const agents = {} as Record<Role, A>;
    for (const role of game.roles) agents[role] = makeAgent(game.seatSpec(job, role), role, new Seat(config.seed, job.id, role));
    return game.play(job, agents, session);
  };
  // Starts a job at once (its agents are built in the call) and settles when it ends.
  const play = async (job: Job): Promise<R> => playNow(job);

  let played = 0;
  if (concurrency === 1) {
    // Awaits only what is asynchronous: scripted jobs and a synchronous onResult run back to back
    // without a trip through the microtask queue.
    for (let next = todo.next(); !next.done; next = todo.next()) {
      if (signal?.aborted) break;
      const now = playNow(next.value);
      const result = isThenable(now) ? await now : now;
      if (game.isCancelled(result)) break;
      const handed = onResult?.(result);
      if (handed !== undefined && isThenable(handed)) await handed;
      played++;
    }
  } else {
    // `concurrency` jobs play at once; a slot is refilled as soon as its job ends, not when its
    // result is handed on, so one long job never holds the others back. Results wait in `done`
    // until every earlier one has been handed on, in plan order; the lookahead bounds how far play
    // may run ahead of delivery.
    const lookahead = concurrency * 8;
    const done = new Map<number, R>();
    const running = new Set<Promise<void>>();
    let next = 0;
    let delivered = 0;
    let stopped = false;
    let upcoming = todo.next();
    let wake: (() => void) | null = null;
    // A job that throws (an agent its factory refuses) fails the tournament, as it does one job at a time.
    const failures: unknown[] = [];
    const launch = () => {
      while (!stopped && running.size < concurrency && !upcoming.done && next - delivered < lookahead && !signal?.aborted) {
        const i = next++;
        const job = upcoming.value;
        upcoming = todo.next();
        const task: Promise<void> = play(job).then(
          (result) => {
            done.set(i, result);
            running.delete(task);
            wake?.();
          },
          (error: unknown) => {
            failures.push(error);
            stopped = true;
            running.delete(task);
            wake?.();
          },
        );
        running.add(task);
      }
    };
    launch();
    while (!stopped) {
      const result = done.get(delivered);
      if (result === undefined) {
        if (running.size === 0) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        launch();
        continue;
      }
      done.delete(delivered);
      if (game.isCancelled(result)) {
        stopped = true;
        break;
      }
      await onResult?.(result);
      delivered++;
      played++;
      launch();
    }
    await Promise.allSettled(running);
    if (failures.length > 0) throw failures[0];
  }
  let skipped = 0;
  if (skip !== undefined) for (const id of skip) if (game.inPlan(config, id)) skipped++;
  return { planned, played, skipped, cancelled: signal?.aborted ?? false };
}
