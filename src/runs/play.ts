/**
 * The one loop every run plays through, stored or not: the engine's tournament, each result counted
 * in the game's tally and handed to a sink (the database's writer, a run file), progress at most
 * every `progressEveryMs`, and a pause when a model the run uses stops working.
 */
import { runTournament } from '../engine/tournament';
import type { AgentFactory } from '../engine/seat';
import { storeOf } from '../storage/games';
import type { RunGame } from './game';
import type { GameName } from '../storage/games';
import type { PlannedJob } from '../engine/game';

/** Progress reaches the page at most this often, however fast the tournament runs. */
export const PROGRESS_INTERVAL_MS = 250;
/** A loop that gives way (`yieldToLoop`) does so this often, so that a cancel gets through. */
export const YIELD_MS = 30;

export interface Progress {
  done: number;
  planned: number;
  /** Lines a second since this play began, and seconds still to go; null until one has played. */
  ratePerS: number | null;
  etaS: number | null;
}

export interface PlanOptions<Role extends string, A, R, Tally> {
  makeAgent: AgentFactory<Role, A>;
  tally: Tally;
  /** Job ids already played (a resume): not played again, and counted as done. */
  skip?: ReadonlySet<string>;
  concurrency?: number;
  /** Stops the run: the caller's cancel, and this loop's own when a model stops working. */
  stop: AbortController;
  /** Called once each result is in the tally; awaited, so a slow sink holds the tournament back. */
  store: (result: R) => void | Promise<void>;
  now: () => number;
  onProgress?: (progress: Progress) => void;
  progressEveryMs?: number;
  /** Gives the host's event loop a turn (a scripted run never waits on anything otherwise). */
  yieldToLoop?: () => Promise<void>;
  /** Why a model the run uses stopped working, once it has: the run stops after the result in hand. */
  trouble?: () => string | null;
}

/** How a play ended: done, cancelled with jobs still to play, or paused because a model stopped working. */
export interface PlanSummary {
  status: 'done' | 'cancelled' | 'paused';
  message: string | null;
  done: number;
  planned: number;
  /** When this play began, by `now`. */
  startedAt: number;
}

/** Plays what `config`'s plan still lacks. A sink's error (a full disk) is thrown as it is. */
export async function playPlan<G extends GameName, S, C extends { seed: number }, J extends PlannedJob, Role extends string, A, R, Tally, St>(
  runGame: RunGame<G, S, C, J, Role, A, R, Tally, St>,
  config: C,
  opts: PlanOptions<Role, A, R, Tally>,
): Promise<PlanSummary> {
  const { now, trouble, stop } = opts;
  const planned = runGame.engine.plannedCount(config);
  const started = now();
  const startDone = opts.skip?.size ?? 0;
  let done = startDone;
  let lastProgress = started;
  let lastYield = started;
  const interval = opts.progressEveryMs ?? PROGRESS_INTERVAL_MS;
  await runTournament(runGame.engine, config, opts.makeAgent, {
    skip: opts.skip,
    signal: stop.signal,
    concurrency: opts.concurrency,
    onResult: async (r) => {
      runGame.addResult(opts.tally, r);
      const stored = opts.store(r);
      if (stored !== undefined) await stored;
      done++;
      const t = now();
      if (opts.onProgress && t - lastProgress >= interval) {
        lastProgress = t;
        const elapsed = (t - started) / 1000;
        const ratePerS = elapsed > 0 && done > startDone ? (done - startDone) / elapsed : null;
        opts.onProgress({ done, planned, ratePerS, etaS: ratePerS ? (planned - done) / ratePerS : null });
      }
      if (opts.yieldToLoop && t - lastYield >= YIELD_MS) {
        await opts.yieldToLoop();
        lastYield = t;
      }
      if (trouble?.() != null) stop.abort(new Error('paused: a model stopped working'));
    },
  });
  const lost = trouble?.() ?? null;
  if (lost !== null) {
    const { item, items } = storeOf(runGame.game);
    const message = `${lost} The run was paused after ${done} ${done === 1 ? item : items}; nothing saved was lost. Resume it to go on (the model loads again).`;
    return { status: 'paused', message, done, planned, startedAt: started };
  }
  // A stop after the last job changes nothing.
  return { status: stop.signal.aborted && done < planned ? 'cancelled' : 'done', message: null, done, planned, startedAt: started };
}
