// Markets in the simulation worker: one market played live for the Market page, and market
// tournaments stored as they play.
import { MarketAggregator } from '../core/market/aggregate';
import type { MarketRole } from '../core/market/moves';
import { planMarketJobs, playMarket, plannedMarkets, type MarketAgent } from '../core/market/tournament';
import { marketGame } from '../core/market/game';
import { Seat } from '../core/engine/seat';
import { runTournament } from '../core/engine/tournament';
import { createMarketAgentFactory, parseMarketSpec, parseMarketSpecs } from '../agents/market';
import { withRunLock } from '../storage';
import { marketStandings } from '../storage/market-file';
import { createRun, getRun, loadLines, updateRun } from '../storage/runs';
import { RunWriter } from '../storage/writer';
import { computeMarketMetrics } from '../core/market/metrics';
import { marketLine, tournamentOf, type MarketRunConfig } from '../storage/market-schema';
import type { RunStatus } from '../storage/schema';
import { StorageFullError } from '../storage/errors';
import { Pacer } from './arena';
import type { FromWorker, RemoteConfig } from './messages';

/** The runner's event as the message carries it: the runner only ever logs a seller's move for the seller. */
type LoggedEvent = Extract<FromWorker, { type: 'market.event' }>['event'];
import { remoteSettings } from './remote-settings';
import { PROGRESS_INTERVAL_MS, REMOTE_CONCURRENCY, useEngines, type EngineUse, type RunHost } from './tournament-run';

/** A scripted tournament gives the worker's message loop a turn this often, so a cancel gets through. */
const YIELD_MS = 30;

const paced = (agent: MarketAgent, pacer: Pacer): MarketAgent => ({
  act: async (observation, signal, retry) => {
    if (retry === undefined) await pacer.wait(signal);
    return agent.act(observation, signal, retry);
  },
});

/** Why a run's seats cannot be played, or null. */
function seatProblem(config: MarketRunConfig): string | null {
  const sellers = parseMarketSpecs(config.sellers, 'seller');
  if (!sellers.ok) return sellers.error.message;
  const buyer = parseMarketSpecs([config.buyer], 'buyer');
  return buyer.ok ? null : buyer.error.message;
}

/** The run's agents: remote models with the page's keys, WebLLM models on the worker's engines. */
const factoryFor = (config: MarketRunConfig, remote: RemoteConfig | undefined, engines: EngineUse) =>
  createMarketAgentFactory(remoteSettings(remote), config.llm ?? {}, (spec) =>
    spec.webllm !== undefined ? engines.local.webllm?.(spec.webllm) : undefined,
  );

const seatsOf = (config: MarketRunConfig): string[] => [...config.sellers, config.buyer];

/** Whether some seat is a remote model and none a WebLLM one. */
function remoteOnly(config: MarketRunConfig): boolean {
  const specs = [...config.sellers.map((s) => parseMarketSpec(s, 'seller')), parseMarketSpec(config.buyer, 'buyer')];
  const parsed = specs.flatMap((p) => (p.ok ? [p.value] : []));
  return parsed.some((s) => s.remote !== undefined) && !parsed.some((s) => s.webllm !== undefined);
}

export interface MarketGameRequest {
  gameId: string;
  /** One seller, one configuration, one market. */
  config: MarketRunConfig;
  delayMs: number;
  paused: boolean;
  save: boolean;
  remote?: RemoteConfig;
}

/** One live market: its events stream to the page; the finished market is saved as a run. */
export class MarketGame {
  readonly pacer: Pacer;
  private readonly controller = new AbortController();

  constructor(
    private readonly host: RunHost,
    private readonly request: MarketGameRequest,
  ) {
    this.pacer = new Pacer(request.delayMs, request.paused);
  }

  cancel(): void {
    this.controller.abort(new Error('cancelled'));
  }

  async play(): Promise<string | null> {
    const { gameId, config, save } = this.request;
    const problem = seatProblem(config);
    if (problem) throw new Error(problem);
    if (plannedMarkets(tournamentOf(config)) !== 1) throw new Error('a live market is one seller, one configuration and one market');
    const job = planMarketJobs(tournamentOf(config)).next().value;
    if (!job) throw new Error('no market to play');
    const engines = useEngines(this.host.engines, seatsOf(config));
    let played;
    try {
      const makeAgent = factoryFor(config, this.request.remote, engines);
      const seat = (role: MarketRole, spec: string) => paced(makeAgent(spec, role, new Seat(config.seed, job.id, role)), this.pacer);
      played = await playMarket(
        job.scenario,
        { seller: seat('seller', job.seller), buyer: seat('buyer', job.buyer) },
        { signal: this.controller.signal, optimalWelfare: job.optimalWelfare, onEvent: (event) => this.host.post({ type: 'market.event', gameId, event: event as LoggedEvent }) },
      );
    } finally {
      engines.release();
    }
    if (!save || played.outcome.kind === 'cancelled') return null;
    const { db, now } = this.host;
    const named = job.config;
    await createRun(db, {
      game: 'market',
      id: gameId,
      name: `${job.seller} sells to ${job.scenario.buyers.length} buyers (${named.name})`.slice(0, 200),
      config: { ...config, game: true },
      planned: 1,
      createdAt: now(),
    });
    const line = marketLine({ ...job, ...played });
    const writer = new RunWriter(db, gameId, { game: 'market', now });
    await writer.add(line);
    await writer.flush();
    await updateRun(db, gameId, { status: 'done', standings: marketStandings(config, [line]), updatedAt: now() });
    return gameId;
  }
}

/** One market tournament inside the worker: plays in plan order, stores in batches, reports. */
export class MarketTournamentRun {
  private readonly controller = new AbortController();

  constructor(
    private readonly host: RunHost,
    readonly runId: string,
    private readonly remote?: RemoteConfig,
  ) {}

  cancel(): void {
    this.controller.abort(new Error('cancelled'));
  }

  static async start(host: RunHost, runId: string, name: string, config: MarketRunConfig, remote?: RemoteConfig): Promise<MarketTournamentRun> {
    const problem = seatProblem(config);
    if (problem) throw new Error(problem);
    await createRun(host.db, { game: 'market', id: runId, name, config, planned: plannedMarkets(tournamentOf(config)), createdAt: host.now() });
    return new MarketTournamentRun(host, runId, remote);
  }

  /** The markets the run has stored, as its row counts them (the writer counts each batch it commits). */
  private async storedMarkets(): Promise<number> {
    return (await getRun(this.host.db, this.runId, 'market'))?.done ?? 0;
  }

  /** Plays what the run still lacks: a resumed run skips the markets it has stored. */
  async play(): Promise<RunStatus> {
    const { db, post, now } = this.host;
    const run = await getRun(db, this.runId, 'market');
    if (!run) throw new Error(`no market run ${this.runId}`);
    if (run.config.game) throw new Error('a market game is not resumed; play it again on the Market page');
    const { config, planned } = run;
    return withRunLock(this.runId, async () => {
      // Stored markets are the plan's first ones, in order: fed first, they keep a resumed run's results identical.
      const aggregator = new MarketAggregator();
      const stored = (await loadLines(db, this.runId, 'market')).lines;
      for (const m of stored) aggregator.add(m.config, m.heldOut, m.seller, computeMarketMetrics(m.scenario, m.events));
      await updateRun(db, this.runId, { status: 'running', message: null, done: stored.length, updatedAt: now() });
      const writer = new RunWriter(db, this.runId, { game: 'market', now });
      let done = stored.length;
      let lastPost = -Infinity;
      let lastYield = now();
      const report = (force: boolean) => {
        const t = now();
        if (!force && t - lastPost < PROGRESS_INTERVAL_MS) return;
        lastPost = t;
        post({ type: 'market.progress', runId: this.runId, done, planned, standings: aggregator.standings({ samples: 0, seed: config.seed }) });
      };
      post({ type: 'market.status', runId: this.runId, status: 'running', message: null, done, planned });
      report(true);
      let status: RunStatus = 'done';
      let message: string | null = null;
      const engines = useEngines(this.host.engines, seatsOf(config));
      try {
        const summary = await runTournament(marketGame, tournamentOf(config), factoryFor(config, this.remote, engines), {
          signal: this.controller.signal,
          skip: new Set(stored.map((m) => m.id)),
          // Remote models wait on the network; one GPU answers one request at a time.
          concurrency: remoteOnly(config) ? REMOTE_CONCURRENCY : 1,
          onResult: async (r) => {
            aggregator.add(r.config.name, r.config.heldOut, r.seller, r.metrics);
            await writer.add(marketLine(r));
            done++;
            report(false);
            if (now() - lastYield >= YIELD_MS) {
              await new Promise((resolve) => setTimeout(resolve, 0));
              lastYield = now();
            }
          },
        });
        await writer.flush();
        if (summary.cancelled) status = 'cancelled';
      } catch (e) {
        status = e instanceof StorageFullError ? 'paused' : 'failed';
        message =
          e instanceof StorageFullError
            ? `Storage is full, so the run stopped after ${await this.storedMarkets()} markets; nothing already saved was lost. Delete old runs to free space.`
            : e instanceof Error
              ? e.message
              : String(e);
      } finally {
        engines.release();
      }
      const kept = await this.storedMarkets();
      // The standings cover what is stored, in plan order: the same as an import of its export.
      const standings = kept === done ? aggregator.standings({ samples: config.samples, seed: config.seed }) : null;
      await updateRun(db, this.runId, { status, message, updatedAt: now() }).catch(() => undefined);
      await updateRun(db, this.runId, { standings }).catch(() => undefined);
      post({ type: 'market.progress', runId: this.runId, done: kept, planned, standings: standings ?? [] });
      post({ type: 'market.status', runId: this.runId, status, message, done: kept, planned });
      return status;
    });
  }
}
