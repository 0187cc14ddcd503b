// One market played live for the Market page (market tournaments are stored runs: tournament-run.ts).
import type { MarketRole } from '../games/market/moves';
import { planMarketJobs, playMarket, plannedMarkets, type MarketAgent } from '../games/market/tournament';
import { Seat } from '../engine/seat';
import { marketStandings } from '../storage/market-file';
import { createRun, updateRun } from '../storage/runs';
import { RunWriter } from '../storage/writer';
import { marketLine, tournamentOf, type MarketRunConfig } from '../storage/market-schema';
import { Pacer } from './arena';
import type { FromWorker, RemoteConfig } from './messages';

/** The runner's event as the message carries it: the runner only ever logs a seller's move for the seller. */
type LoggedEvent = Extract<FromWorker, { type: 'market.event' }>['event'];
import { remoteSettings } from './remote-settings';
import { useEngines } from '../runs/engines';
import { marketRuns, seatProblem, seatsOf } from '../runs/market';
import type { RunHost } from './tournament-run';

const paced = (agent: MarketAgent, pacer: Pacer): MarketAgent => ({
  act: async (observation, signal, retry) => {
    if (retry === undefined) await pacer.wait(signal);
    return agent.act(observation, signal, retry);
  },
});

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
      const makeAgent = marketRuns.makeAgent(config, remoteSettings(this.request.remote), engines.local);
      const seat = (role: MarketRole, spec: string) => paced(makeAgent(spec, role, new Seat(config.seed, job.id, role)), this.pacer);
      played = await playMarket(
        job.scenario,
        { seller: seat('seller', job.seller), buyer: seat('buyer', job.buyer) },
        {
          signal: this.controller.signal,
          optimalWelfare: job.optimalWelfare,
          onEvent: (event) => this.host.post({ type: 'market.event', gameId, event: event as LoggedEvent }),
        },
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
