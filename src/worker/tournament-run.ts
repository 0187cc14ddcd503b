import { Aggregator } from '../core/bilateral/aggregate';
import { OracleScorer, scoredMetrics } from '../agents/oracle';
import { plannedCount } from '../core/bilateral/tournament';
import { createAgentFactory, everyModelThinks, parseAgentSpecs, webllmModels, type LocalBackends } from '../agents/registry';
import type { EnginePool } from '../agents/backends/webllm/pool';
import { createRun, forEachNegotiation, getRun, withRunLock, updateRun, type ParleyDb } from '../storage';
import { RunWriter, StorageFullError } from '../storage/writer';
import { negotiationRow, type RunStatus } from '../storage/schema';
import type { FromWorker, RemoteConfig, TournamentSettings } from './messages';
import { remoteSettings } from './remote-settings';
import { runTournament } from '../core/engine/tournament';
import { bilateralGame } from '../core/bilateral/game';

/** Progress reaches the page at most this often, however fast the tournament runs. */
export const PROGRESS_INTERVAL_MS = 250;
/** Bootstrap resamples for the intervals computed when a run stops. */
export const FINAL_SAMPLES = 1000;

/** Negotiations in flight at once in a run with remote models (each provider also has its own limit). */
export const REMOTE_CONCURRENCY = 8;

export interface RunHost {
  db: ParleyDb;
  post: (message: FromWorker) => void;
  now: () => number;
  /** The worker's WebLLM engines; without them a WebLLM agent ends its negotiations as errors. */
  engines?: EnginePool;
}

/** What a run or game needs from the engine pool: the backends, and a way to hear of trouble. */
export interface EngineUse {
  /** The WebLLM models in use, each once. */
  models: readonly string[];
  local: LocalBackends;
  /** Why a model this run uses stopped working (GPU lost, load failed), once it has. */
  trouble: () => string | null;
  release: () => void;
}

/** Marks the WebLLM models among `agents` as in use, and watches them for trouble until released. */
export function useEngines(engines: EnginePool | undefined, agents: readonly string[]): EngineUse {
  const models = webllmModels(agents);
  if (!engines || models.length === 0) return { models, local: {}, trouble: () => null, release: () => {} };
  let trouble: string | null = null;
  const unsubscribe = engines.subscribe((s) => {
    if (models.includes(s.modelId) && (s.state === 'lost' || s.state === 'failed')) trouble ??= s.text ?? `${s.modelId} stopped working.`;
  });
  const unuse = engines.use(models);
  return {
    models,
    local: { webllm: (id) => engines.backend(id) },
    trouble: () => trouble,
    release: () => {
      unsubscribe();
      unuse();
    },
  };
}

/** One tournament run inside the worker: plays, stores in batches, reports, and can resume. */
export class TournamentRun {
  private readonly controller = new AbortController();

  /** `remote`: keys and base URLs for remote agents, from the page; kept in memory only, never in the run row. */
  constructor(
    private readonly host: RunHost,
    readonly runId: string,
    private readonly remote?: RemoteConfig,
  ) {}

  /** Rebuilds the aggregate from what is stored, in plan order, noting the stored job ids. */
  private async storedAggregate(ids: Set<string>): Promise<Aggregator> {
    const aggregator = new Aggregator();
    const scorer = new OracleScorer();
    // Stored negotiations are a prefix of the plan: feeding them first keeps resumed results identical.
    await forEachNegotiation(this.host.db, this.runId, (row) => {
      ids.add(row.jobId);
      aggregator.add(row.buyer, row.seller, row.scenario, scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer));
    });
    return aggregator;
  }

  cancel(): void {
    this.controller.abort(new Error('cancelled'));
  }

  /** Creates the run row, then plays it. */
  static async start(
    host: RunHost,
    runId: string,
    name: string,
    config: TournamentSettings,
    remote?: RemoteConfig,
  ): Promise<TournamentRun> {
    const specs = parseAgentSpecs(config.agents);
    if (!specs.ok) throw new Error(specs.error.message);
    const reachable = config.llm.thinking ? everyModelThinks(specs.value) : null;
    if (reachable && !reachable.ok) throw new Error(reachable.error.message);
    const planned = plannedCount(config);
    await createRun(host.db, {
      id: runId,
      name,
      config: { kind: 'tournament', tournament: config },
      planned,
      createdAt: host.now(),
    });
    return new TournamentRun(host, runId, remote);
  }

  /** Plays whatever the run still lacks; the negotiations already stored are not played again. */
  async play(): Promise<RunStatus> {
    const { db, post, now } = this.host;
    const run = await getRun(db, this.runId);
    if (!run) throw new Error(`no run ${this.runId}`);
    if (run.config.kind !== 'tournament') throw new Error('only tournament runs can be resumed');
    const config = run.config.tournament;
    return withRunLock(this.runId, async () => {
      await updateRun(db, this.runId, { status: 'running', message: null, updatedAt: now() });
      const skip = new Set<string>();
      let aggregator = await this.storedAggregate(skip);
      const planned = run.planned;
      const writer = new RunWriter(db, this.runId, { now });
      const started = now();
      const startDone = skip.size;
      let done = skip.size;
      let lastPost = -Infinity;
      const report = (force: boolean) => {
        const t = now();
        if (!force && t - lastPost < PROGRESS_INTERVAL_MS) return;
        lastPost = t;
        const elapsed = (t - started) / 1000;
        const ratePerS = elapsed > 0 && done > startDone ? (done - startDone) / elapsed : null;
        const etaS = ratePerS ? (planned - done) / ratePerS : null;
        post({ type: 'run.progress', runId: this.runId, done, planned, ratePerS, etaS, standings: aggregator.standings({ samples: 0 }) });
      };
      post({ type: 'run.status', runId: this.runId, status: 'running', message: null, done, planned });
      report(true);
      let status: RunStatus = 'done';
      let message: string | null = null;
      const specs = parseAgentSpecs(config.agents);
      const anyRemote = specs.ok && specs.value.some((s) => s.remote !== undefined);
      const engines = useEngines(this.host.engines, config.agents);
      const anyLocal = engines.models.length > 0;
      const scorer = new OracleScorer();
      try {
        const summary = await runTournament(bilateralGame, config, createAgentFactory(remoteSettings(this.remote), engines.local, config.llm), {
          skip,
          signal: this.controller.signal,
          // One GPU answers one request at a time, and a lost GPU must stop the run at one negotiation.
          concurrency: anyRemote && !anyLocal ? REMOTE_CONCURRENCY : 1,
          onResult: async (r) => {
            aggregator.add(r.buyer, r.seller, r.scenario, scorer.score(r.buyer, r.seller, r.scenario, r.metrics));
            await writer.add(negotiationRow(this.runId, r));
            done++;
            report(false);
            if (engines.trouble() !== null) this.controller.abort(new Error('paused: a model stopped working'));
          },
        });
        await writer.flush();
        const trouble = engines.trouble();
        if (trouble !== null) {
          status = 'paused';
          message = `${trouble} The run was paused after ${done} negotiation${done === 1 ? '' : 's'}; nothing saved was lost. Resume it to go on (the model loads again).`;
        } else if (summary.cancelled) status = 'cancelled';
      } catch (e) {
        if (e instanceof StorageFullError) {
          status = 'paused';
          // The batch that did not fit is not stored: the standings must not count it either.
          aggregator = await this.storedAggregate(new Set());
          message = `Storage is full, so the run was paused after ${aggregator.count} negotiations; nothing already saved was lost. Delete old runs to free space, then resume.`;
        } else {
          status = 'failed';
          message = e instanceof Error ? e.message : String(e);
        }
      } finally {
        engines.release();
      }
      const stored = (await getRun(db, this.runId))?.done ?? done;
      const standings = aggregator.standings({ samples: FINAL_SAMPLES, seed: config.seed });
      // On a full disk even these writes may not fit: the small status goes first, on its own.
      await updateRun(db, this.runId, { status, message, updatedAt: now() }).catch(() => undefined);
      await updateRun(db, this.runId, { standings }).catch(() => undefined);
      post({ type: 'run.progress', runId: this.runId, done: stored, planned, ratePerS: null, etaS: null, standings });
      post({ type: 'run.status', runId: this.runId, status, message, done: stored, planned });
      return status;
    });
  }
}
