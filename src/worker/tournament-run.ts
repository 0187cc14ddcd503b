// Stored runs of any game in the simulation worker: the run controller (runs/) plays them; this
// says its reports in the page's messages.
import type { Standings } from '../games/bilateral/aggregate';
import type { MarketStandingRow } from '../games/market/aggregate';
import { createStoredRun, RunController, type RunHost as ControllerHost, type RunReports } from '../runs/controller';
import type { Game } from '../storage/games';
import type { RunStatus } from '../storage/schema';
import type { FromWorker, RemoteConfig } from './messages';
import { remoteSettings } from './remote-settings';

export interface RunHost extends ControllerHost {
  post: (message: FromWorker) => void;
}

/** Each game's run reports as the page reads them: the bilateral ones carry a rate and an estimate of the time left. */
const REPORTS: { [G in Game]: (post: RunHost['post'], runId: string) => RunReports } = {
  bilateral: (post, runId) => ({
    progress: (p) => post({ type: 'run.progress', runId, ...p, standings: p.standings as Standings }),
    status: (s) => post({ type: 'run.status', runId, ...s }),
  }),
  market: (post, runId) => ({
    progress: ({ done, planned, standings }) => post({ type: 'market.progress', runId, done, planned, standings: standings as MarketStandingRow[] }),
    status: (s) => post({ type: 'market.status', runId, ...s }),
  }),
};

/** One stored run in the worker, of any game: plays, stores in batches, reports, and can resume. */
export class WorkerRun {
  private readonly controller: RunController;

  /** `remote`: keys and base URLs for remote agents, from the page; kept in memory only, never in the run row. */
  constructor(
    host: RunHost,
    game: Game,
    readonly runId: string,
    remote?: RemoteConfig,
  ) {
    this.controller = new RunController(host, game, runId, remoteSettings(remote), REPORTS[game](host.post, runId));
  }

  /** Creates the run row from the page's settings, then returns the run to play. */
  static async start(host: RunHost, game: Game, runId: string, name: string, settings: unknown, remote?: RemoteConfig): Promise<WorkerRun> {
    await createStoredRun(host, game, runId, name, settings);
    return new WorkerRun(host, game, runId, remote);
  }

  cancel(): void {
    this.controller.cancel();
  }

  /** Plays whatever the run still lacks; what is already stored is not played again. */
  async play(): Promise<RunStatus> {
    return (await this.controller.play()).status;
  }
}
