/// <reference lib="webworker" />
// The simulation worker: every negotiation runs here, never on the page's thread.
import { isQuotaError, openDb } from '../storage';
import { exportRunJson, exportRunJsonl, importRunFile } from '../storage/transfer';
import { salvageRun } from '../storage/runs';
import { ArenaGame, compareInSeat } from './arena';
import { FromWorkerSchema, messageIds, ToWorkerSchema, type FromWorker, type ToWorker } from './messages';
import { WorkerRun, type RunHost } from './tournament-run';
import { assertNever } from '../engine/result';
import { EnginePool, type EngineStatus } from '../agents/backends/webllm/pool';
import { deleteCached, listModels } from '../agents/backends/webllm/engine';
// WebLLM in an engine worker; the e2e build swaps in its fake engine here (vite.config.ts).
import { engineLoader } from '../agents/backends/webllm/loader';
import { WEBLLM_MODEL_IDS } from '../agents/specs';
import { MarketGame } from './market';
import { handIn } from '../storage/hand-ins';
import { runLearnExperiment } from './learn';
import { buildSft } from './sft';
import { runCsv } from './csv';
import { classFile } from './class-files';
import { safeFileName } from './file-names';
import { customAppConfig, customModels, customModelsAppConfig, useCustomModels } from '../agents/backends/webllm/custom';
import { getCustomModels } from '../storage/custom-models';

declare const self: DedicatedWorkerGlobalScope;

const host: RunHost = {
  db: openDb(),
  post: (message: FromWorker) => self.postMessage(message),
  now: () => Date.now(),
  engines: new EnginePool(engineLoader, (modelId) => customAppConfig(modelId, self.location.origin)),
  // A macrotask, so that the page's messages (a cancel) are read between a scripted run's jobs.
  yieldToLoop: () => new Promise((resolve) => setTimeout(resolve, 0)),
};

// The user's own WebLLM models, from settings until the page says otherwise (webllm.custom).
let customToldByPage = false;
void getCustomModels(host.db)
  .then((models) => customToldByPage || useCustomModels(models))
  .catch(() => undefined);

/** Load progress reaches the page at most this often; every change of state at once. */
const ENGINE_PROGRESS_MS = 200;
const lastProgress = new Map<string, number>();
host.engines?.subscribe((status: EngineStatus) => {
  const t = Date.now();
  if (status.state === 'loading' && status.fraction !== 0 && t - (lastProgress.get(status.modelId) ?? 0) < ENGINE_PROGRESS_MS) return;
  lastProgress.set(status.modelId, t);
  host.post({ type: 'engine.status', ...status });
});
/** Stored runs of every game being played, by run id. */
const runs = new Map<string, WorkerRun>();
/** Loads asked for by the Models page, so that each can be cancelled. */
const loads = new Map<string, AbortController>();
const games = new Map<string, ArenaGame>();
const marketGames = new Map<string, MarketGame>();
/** Learn page experiments in flight, by request id, so that each can be stopped. */
const learning = new Map<string, AbortController>();
/** Fine-tuning exports being built, by request id, so that each can be stopped. */
const sftExports = new Map<string, AbortController>();

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The Web Lock this worker holds for as long as it lives (the page names it in its first ping).
 * The browser releases it when the worker ends, however it ends: the page's heartbeat reads a
 * released lock as a worker that is gone, a held one as a worker that is only busy.
 */
let lifeLock: string | null = null;
let lifeLockAsked = false;
function holdLifeLock(name: string): void {
  if (lifeLockAsked || !navigator.locks) return;
  lifeLockAsked = true;
  void navigator.locks.request(name, () => {
    lifeLock = name;
    return new Promise<never>(() => undefined);
  });
}

const FREE_SPACE = 'Delete or export old runs on the Runs page to free space';
/**
 * The browser refused a write for lack of space, said in words for what was being done (the error
 * itself names only QuotaExceededError). Runs that fill the disk mid-way pause with words of their own.
 */
function storageFull(type: ToWorker['type']): string {
  switch (type) {
    case 'arena.start':
    case 'market.play':
      return `Storage is full, so this game was played but could not be saved. ${FREE_SPACE}; the next game is saved as usual.`;
    case 'run.start':
    case 'market.start':
      return `Storage is full, so the run could not be created and nothing of it was stored. ${FREE_SPACE}, then start it again.`;
    case 'run.resume':
    case 'market.resume':
      return `Storage is full, so the run could not go on; nothing already saved was lost. ${FREE_SPACE}, then resume it.`;
    case 'import':
    case 'handin':
      return `storage is full, so nothing of the file was stored. ${FREE_SPACE}, then import it again.`;
    default:
      return `Storage is full. ${FREE_SPACE}, then try again.`;
  }
}

/** Keeps `value` under `key` while `work` runs, so that a later message (control, cancel) finds it. */
async function whileLive<V>(live: Map<string, V>, key: string, value: V, work: (value: V) => Promise<unknown>): Promise<void> {
  live.set(key, value);
  try {
    await work(value);
  } finally {
    live.delete(key);
  }
}

/** The page's say over a game it watches: cancel it, set its pace, let it take one step. */
function control(game: ArenaGame | MarketGame | undefined, message: Extract<ToWorker, { type: 'arena.control' | 'market.control' }>): void {
  if (!game) return;
  if (message.cancel) game.cancel();
  game.pacer.set(message.delayMs, message.paused);
  if (message.step) game.pacer.release();
}

/** A stored run's file for the page to save, named `{prefix}-{its name, made safe}-{its id's start}.{format}`. */
function postExport(request: Extract<ToWorker, { type: 'export' }>, prefix: string, run: { id: string; name: string }, unnamed: string, text: string): void {
  host.post({
    type: 'exported',
    requestId: request.requestId,
    fileName: `${prefix}-${safeFileName(run.name, unnamed)}-${run.id.slice(0, 8)}.${request.format}`,
    blob: new Blob([text], { type: request.format === 'json' ? 'application/json' : 'application/x-ndjson' }),
  });
}

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case 'run.start': {
      const run = await WorkerRun.start(host, 'bilateral', message.runId, message.name, message.config, message.remote);
      return whileLive(runs, run.runId, run, (r) => r.play());
    }
    case 'run.resume':
      if (runs.has(message.runId)) return;
      return whileLive(runs, message.runId, new WorkerRun(host, 'bilateral', message.runId, message.remote), (r) => r.play());
    case 'run.cancel':
      runs.get(message.runId)?.cancel();
      return;
    case 'arena.start':
      return whileLive(games, message.gameId, new ArenaGame(host, message), async (game) => {
        const runId = await game.play();
        host.post({ type: 'arena.end', gameId: message.gameId, runId });
      });
    case 'arena.control':
      return control(games.get(message.gameId), message);
    case 'arena.move':
      games.get(message.gameId)?.answer(message.turn, message.attempt, message.move);
      return;
    case 'arena.compare': {
      const played = await compareInSeat(host, message);
      host.post({ type: 'arena.compared', requestId: message.requestId, games: played });
      return;
    }
    case 'learn.run': {
      const { requestId } = message;
      return whileLive(learning, requestId, new AbortController(), async (controller) => {
        const outcome = await runLearnExperiment(message.experiment, {
          signal: controller.signal,
          now: () => Date.now(),
          onProgress: (done, planned) => host.post({ type: 'learn.progress', requestId, done, planned }),
        });
        host.post({ type: 'learn.done', requestId, ...outcome });
      });
    }
    case 'learn.cancel':
      learning.get(message.running)?.abort(new Error('stopped'));
      return;
    case 'market.play':
      return whileLive(marketGames, message.gameId, new MarketGame(host, message), async (game) => {
        const runId = await game.play();
        host.post({ type: 'market.end', gameId: message.gameId, runId });
      });
    case 'market.control':
      return control(marketGames.get(message.gameId), message);
    case 'market.start': {
      const run = await WorkerRun.start(host, 'market', message.runId, message.name, message.config, message.remote);
      return whileLive(runs, run.runId, run, (r) => r.play());
    }
    case 'market.resume':
      if (runs.has(message.runId)) return;
      return whileLive(runs, message.runId, new WorkerRun(host, 'market', message.runId, message.remote), (r) => r.play());
    case 'market.cancel':
      runs.get(message.runId)?.cancel();
      return;
    case 'engines.unload':
      return host.engines?.unloadUnused();
    case 'engines.load': {
      const engines = host.engines;
      if (loads.has(message.modelId) || !engines) return;
      // How it went reaches the page as engine.status (ready, or failed with the reason).
      await whileLive(loads, message.modelId, new AbortController(), (controller) =>
        engines.preload(message.modelId, controller.signal).catch(() => undefined),
      );
      return;
    }
    case 'engines.cancel':
      loads.get(message.modelId)?.abort(new Error('cancelled'));
      return;
    case 'export': {
      const run = await host.db.runs.get(message.runId);
      if (!run) throw new Error('that run is no longer stored');
      const text = message.format === 'json' ? await exportRunJson(host.db, run.id) : await exportRunJsonl(host.db, run.id);
      return run.game === 'market' ? postExport(message, 'parley-market', run, 'market', text) : postExport(message, 'parley', run, 'run', text);
    }
    case 'salvage': {
      const salvaged = await salvageRun(host.db, message.runId);
      if (!salvaged) throw new Error('that run is no longer stored');
      host.post({
        type: 'exported',
        requestId: message.requestId,
        fileName: `parley-salvage-${safeFileName(salvaged.name)}-${message.runId.slice(0, 8)}.json`,
        blob: new Blob([salvaged.text], { type: 'application/json' }),
      });
      return;
    }
    case 'csv': {
      const { requestId } = message;
      const file = await runCsv(host.db, message.runId, message.table, (done) => host.post({ type: 'csv.progress', requestId, done }));
      host.post({ type: 'exported', requestId, ...file });
      return;
    }
    case 'class.file':
      host.post({ type: 'exported', requestId: message.requestId, ...classFile(message.data, message.file, host.now()) });
      return;
    case 'import': {
      const result = await importRunFile(host.db, message.file, { now: host.now(), game: 'any' });
      if (!result.ok) throw new Error(result.error.message);
      host.post({ type: 'imported', requestId: message.requestId, runId: result.value.id });
      return;
    }
    case 'handin': {
      const report = await handIn(host.db, message.source, host.now());
      host.post({ type: 'handed-in', requestId: message.requestId, report });
      return;
    }
    case 'models.list': {
      const ids = [...WEBLLM_MODEL_IDS, ...customModels().map((m) => m.name)];
      const { models, cached } = await listModels(ids, {}, customModelsAppConfig(self.location.origin));
      host.post({ type: 'models.listed', requestId: message.requestId, models, cached });
      return;
    }
    case 'models.delete':
      await deleteCached(message.modelId, {}, customAppConfig(message.modelId, self.location.origin));
      host.post({ type: 'models.deleted', requestId: message.requestId, modelId: message.modelId });
      return;
    case 'sft.export': {
      const { requestId, type: _, ...request } = message;
      return whileLive(sftExports, requestId, new AbortController(), async (controller) => {
        const built = await buildSft(host.db, request, {
          signal: controller.signal,
          onProgress: (done, total) => host.post({ type: 'sft.progress', requestId, done, total }),
        });
        host.post({ type: 'sft.exported', requestId, ...built });
      });
    }
    case 'sft.cancel':
      sftExports.get(message.running)?.abort(new Error('stopped'));
      return;
    case 'ping':
      holdLifeLock(message.lock);
      host.post({ type: 'pong', beat: message.beat, lock: lifeLock });
      return;
    case 'webllm.custom':
      customToldByPage = true;
      useCustomModels(message.models);
      return;
    default:
      assertNever(message);
  }
}

// An error no handler caught is reported and the worker goes on, as it always has: an error event
// that reaches the page (which then replaces the worker) is one the worker could not report itself.
self.addEventListener('error', (event) => {
  event.preventDefault();
  host.post({ type: 'failed', message: `the simulation worker hit an error: ${event.message || 'unknown error'}` });
});

self.onmessage = (e: MessageEvent<unknown>) => {
  const parsed = ToWorkerSchema.safeParse(e.data);
  if (!parsed.success) {
    // A malformed request is still answered by its ids (request, run, game), so the page that
    // waits on it (a request, the Arena's game, a tournament) is told instead of waiting forever.
    host.post({
      type: 'failed',
      ...messageIds(e.data),
      message: `the worker was sent a malformed message: ${parsed.error.issues[0]?.message ?? ''}`,
    });
    return;
  }
  const message = parsed.data;
  handle(message).catch((error: unknown) => {
    const ids = {
      ...('requestId' in message ? { requestId: message.requestId } : {}),
      ...('runId' in message ? { runId: message.runId } : {}),
      ...('gameId' in message ? { gameId: message.gameId } : {}),
    };
    host.post({ type: 'failed', ...ids, message: isQuotaError(error) ? storageFull(message.type) : describe(error) });
  });
};

// Outgoing messages are checked in development builds only; the schema is the contract either way.
if (import.meta.env.DEV) {
  const post = host.post;
  host.post = (message) => {
    FromWorkerSchema.parse(message);
    post(message);
  };
}
host.post({ type: 'ready' });
