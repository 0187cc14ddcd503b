// What `parley tournament` and `parley market-tournament` share: the run controller's loop with
// Ctrl-C, progress on stderr, and the run written to --jsonl.
import { setMaxListeners } from 'node:events';
import type { PlannedJob } from '../engine/game';
import type { AgentFactory } from '../engine/seat';
import type { RunGame } from '../runs/game';
import { playPlan, type PlanSummary } from '../runs/play';
import { storeOf, type GameName, type RunOf } from '../storage/games';
import type { FileRecordOf } from '../storage/games/store';
import { usageError } from './args';
import type { Io } from './io';
import { RunJsonlWriter, type JsonlLines } from './jsonl';
import { sameFile } from './output-file';

/** Progress reaches stderr at most once a second. */
const REPORT_MS = 1000;

/** Lets timers and signals run: a tournament of scripted agents otherwise never yields to them. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What the run file's record holds besides its counts and status: its id, name and config. */
type Named<G extends GameName> = { id: string; name: string; config: RunOf<G>['config'] };

export interface CliRunOptions<G extends GameName, Role extends string, A, R, Tally> {
  io: Io;
  makeAgent: AgentFactory<Role, A>;
  tally: Tally;
  concurrency?: number;
  /** --jsonl's writer, opened before anything is played; finished here with the record `named` gives. */
  writer: RunJsonlWriter<G, R> | null;
  named: () => Named<G>;
}

/**
 * --jsonl's writer (null without the flag), opened before anything is played so that a path that
 * cannot be written costs no model call; `input`: a file the run reads, which --jsonl must not be.
 */
export async function openJsonlFlag<G extends GameName, R>(
  path: string | undefined,
  lines: JsonlLines<G, R>,
  input?: { flag: string; path: string },
): Promise<RunJsonlWriter<G, R> | null> {
  if (path === undefined) return null;
  if (path.trim() === '') throw usageError('needs-path', { flag: '--jsonl' });
  if (input !== undefined && (await sameFile(path, input.path)))
    throw usageError('output-is-input', { flag: '--jsonl', path, input: input.flag, what: 'the run' });
  return RunJsonlWriter.open(path, lines).catch((e: unknown) => {
    throw usageError('cannot-write', { flag: '--jsonl', path, reason: e instanceof Error ? e.message : String(e) });
  });
}

/** Plays a run of `runGame` from the command line; on a failure the --jsonl side files are removed and the error thrown. */
export async function playCliRun<G extends GameName, S, C extends { seed: number }, J extends PlannedJob, Role extends string, A, R, Tally, St>(
  runGame: RunGame<G, S, C, J, Role, A, R, Tally, St>,
  config: C,
  opts: CliRunOptions<G, Role, A, R, Tally>,
): Promise<PlanSummary> {
  const { io, writer } = opts;
  const { items } = storeOf(runGame.game);
  // Every open model call listens on this signal; Node warns past ten listeners unless told.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const cancel = () => stop.abort();
  if (io.signal?.aborted) cancel();
  io.signal?.addEventListener('abort', cancel, { once: true });
  let summary: PlanSummary;
  try {
    summary = await playPlan(runGame, config, {
      makeAgent: opts.makeAgent,
      tally: opts.tally,
      concurrency: opts.concurrency,
      stop,
      store: (r) => writer?.add(r),
      now: io.now,
      progressEveryMs: REPORT_MS,
      onProgress: ({ done, planned, ratePerS, etaS }) =>
        io.err(`parley: ${done}/${planned} ${items}, ${Math.round(ratePerS ?? 0)}/s, ${Math.ceil(etaS ?? 0)} s left\n`),
      ...(io.signal && { yieldToLoop: yieldToEventLoop }),
    });
  } catch (e) {
    await writer?.abandon();
    throw e;
  } finally {
    io.signal?.removeEventListener('abort', cancel);
  }
  const { status, done, planned, startedAt } = summary;
  const cancelled = status === 'cancelled';
  if (cancelled) io.err(`parley: stopped after ${done}/${planned} ${items}; the results below cover those\n`);
  else if (io.now() - startedAt >= REPORT_MS) io.err(`parley: ${planned}/${planned} ${items}; computing intervals\n`);
  if (writer !== null) {
    const run = {
      ...opts.named(),
      createdAt: startedAt,
      updatedAt: io.now(),
      status,
      planned,
      done: writer.written,
      message: cancelled ? `stopped from the command line after ${writer.written} of ${planned} ${items}` : null,
    } as FileRecordOf<RunOf<G>>;
    try {
      await writer.finish(run);
    } catch (e) {
      await writer.abandon();
      throw e;
    }
  }
  return summary;
}
