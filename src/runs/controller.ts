/**
 * The run controller for stored runs, of any game: creates a run, plays what it still lacks
 * (resuming by the set of stored job ids), stores through the one writer, reports progress and
 * status, and pauses on a lost GPU or a full disk keeping what is stored. The worker drives it.
 */
import type { EnginePool } from '../agents/backends/webllm/pool';
import type { RemoteSettings } from '../agents/remote';
import type { ParleyDb } from '../storage/db';
import { scanJson } from '../storage/batches';
import { storeOf, type GameName } from '../storage/games';
import { createRun, getRun, updateRun, withRunLock } from '../storage/runs';
import type { RunStatus } from '../storage/schema';
import { RunWriter, StorageFullError } from '../storage/writer';
import { useEngines } from './engines';
import type { AnyRunGame } from './game';
import { runGameOf } from './index';
import { playPlan, type Progress } from './play';

/** Jobs in flight at once in a run with remote models (each provider also has its own limit). */
export const REMOTE_CONCURRENCY = 8;

export interface RunHost {
  db: ParleyDb;
  now: () => number;
  /** The WebLLM engines; without them a WebLLM agent ends its jobs as errors. */
  engines?: EnginePool;
  /** Gives the host's event loop a turn now and then, so that a cancel reaches a scripted run. */
  yieldToLoop?: () => Promise<void>;
}

export interface RunStatusReport {
  status: RunStatus;
  message: string | null;
  done: number;
  planned: number;
}

/** How a run stopped, and its standings over what is stored (the same as an import of its export). */
export interface RunSummary extends RunStatusReport {
  standings: unknown;
}

export interface RunReports {
  progress: (progress: Progress & { standings: unknown }) => void;
  status: (status: RunStatusReport) => void;
}

/** Creates the row of a new run of `game` from its settings; throws, in words, when its seats cannot play. */
export async function createStoredRun(host: RunHost, game: GameName, runId: string, name: string, settings: unknown): Promise<void> {
  const runGame = runGameOf(game);
  const config = runGame.create(settings);
  const planned = runGame.engine.plannedCount(runGame.tournament(config)) as number;
  await createRun(host.db, { game, id: runId, name, config, planned, createdAt: host.now() });
}

/** Feeds a run's stored lines, in plan order, to `tally`; returns their job ids. */
async function readStored(db: ParleyDb, runId: string, runGame: AnyRunGame, tally: unknown): Promise<Set<string>> {
  const store = storeOf(runGame.game);
  const ids = new Set<string>();
  await db.transaction('r', db.batches, db.digests, () =>
    scanJson(db, runId, (json) => {
      for (const j of json) {
        const line: unknown = JSON.parse(j);
        ids.add(store.jobId(line as never));
        runGame.addLine(tally, line as never);
      }
    }),
  );
  return ids;
}

/** One stored run being played: `play` plays what it lacks, `cancel` stops it with what is stored kept. */
export class RunController {
  private readonly controller = new AbortController();

  constructor(
    private readonly host: RunHost,
    readonly game: GameName,
    readonly runId: string,
    private readonly remote: RemoteSettings,
    private readonly reports: RunReports,
  ) {}

  cancel(): void {
    this.controller.abort(new Error('cancelled'));
  }

  async play(): Promise<RunSummary> {
    const { db, now } = this.host;
    const { game, runId, reports } = this;
    const runGame = runGameOf(game);
    const run = await getRun(db, runId, game);
    if (!run) throw new Error(`no run ${runId}`);
    const config = runGame.tournament(run.config);
    const planned = run.planned;
    const { item, items } = storeOf(game);
    return withRunLock(runId, async () => {
      // Stored lines are fed first, in plan order: a resumed run's results stay identical.
      let tally = runGame.tally();
      const skip = await readStored(db, runId, runGame, tally);
      await updateRun(db, runId, { status: 'running', message: null, done: skip.size, updatedAt: now() });
      const writer = new RunWriter(db, runId, { game, now });
      reports.status({ status: 'running', message: null, done: skip.size, planned });
      reports.progress({ done: skip.size, planned, ratePerS: null, etaS: null, standings: runGame.standings(tally, run.config, false) });
      const engines = useEngines(this.host.engines, runGame.seats(run.config));
      let status: RunStatus;
      let message: string | null;
      try {
        const played = await playPlan(runGame, config, {
          makeAgent: runGame.makeAgent(run.config, this.remote, engines.local),
          tally,
          skip,
          stop: this.controller,
          // One GPU answers one request at a time, and a lost GPU must stop the run at one job.
          concurrency: runGame.anyRemote(run.config) && engines.models.length === 0 ? REMOTE_CONCURRENCY : 1,
          store: (r) => writer.add(runGame.line(r)),
          now,
          onProgress: (p) => reports.progress({ ...p, standings: runGame.standings(tally, run.config, false) }),
          yieldToLoop: this.host.yieldToLoop,
          trouble: engines.trouble,
        });
        await writer.flush();
        ({ status, message } = played);
      } catch (e) {
        if (e instanceof StorageFullError) {
          status = 'paused';
          // The batch that did not fit is not stored: the standings must not count it either.
          tally = runGame.tally();
          const kept = (await readStored(db, runId, runGame, tally)).size;
          message = `Storage is full, so the run was paused after ${kept} ${kept === 1 ? item : items}; nothing already saved was lost. Delete old runs to free space, then resume.`;
        } else {
          status = 'failed';
          message = e instanceof Error ? e.message : String(e);
        }
      } finally {
        engines.release();
      }
      const done = (await getRun(db, runId, game))?.done ?? 0;
      const standings = runGame.standings(tally, run.config, true);
      // On a full disk even these writes may not fit: the small status goes first, on its own.
      await updateRun(db, runId, { status, message, updatedAt: now() }).catch(() => undefined);
      await updateRun(db, runId, { standings } as never).catch(() => undefined);
      reports.progress({ done, planned, ratePerS: null, etaS: null, standings });
      reports.status({ status, message, done, planned });
      return { status, message, done, planned, standings };
    });
  }
}
