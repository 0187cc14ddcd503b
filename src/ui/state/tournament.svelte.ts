import type { Standings } from '../../games/bilateral/aggregate';
import type { FromWorker, RemoteConfig, TournamentSettings } from '../../worker/messages';
import { newId, sim } from './sim';
import { FollowedRun } from './followed-run.svelte';

export interface Progress {
  done: number;
  planned: number;
  ratePerS: number | null;
  etaS: number | null;
}

const STANDINGS_INTERVAL_MS = 1000;

/** A tournament run as the page sees it: progress, standings and status from the worker. */
export class TournamentSession extends FollowedRun {
  progress = $state.raw<Progress>({ done: 0, planned: 0, ratePerS: null, etaS: null });
  standings = $state.raw<Standings | null>(null);
  /** The agents of the run followed, where known: the page shows their WebLLM engines' loading. */
  agents = $state.raw<readonly string[]>([]);
  private standingsAt = -Infinity;

  /** `remote`: the user's keys and base URLs, read when a run starts or resumes. */
  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {
    super({ game: 'bilateral', cancel: 'run.cancel', interrupted: 'every negotiation it stored is kept; resume it to play the rest.' });
  }

  private remoteField(): { remote?: RemoteConfig } {
    const remote = this.remote();
    return remote ? { remote } : {};
  }

  protected take(m: FromWorker): boolean {
    if (m.type === 'run.progress') {
      this.progress = { done: m.done, planned: m.planned, ratePerS: m.ratePerS, etaS: m.etaS };
      // Live standings redraw tables at most once a second; the last one always lands.
      const now = performance.now();
      if (m.ratePerS === null || now - this.standingsAt >= STANDINGS_INTERVAL_MS) {
        this.standingsAt = now;
        this.standings = m.standings;
      }
      return true;
    }
    if (m.type !== 'run.status') return false;
    [this.status, this.message] = [m.status, m.message];
    return true;
  }

  start(name: string, config: TournamentSettings): string {
    const runId = newId();
    this.standings = null;
    this.progress = { done: 0, planned: 0, ratePerS: null, etaS: null };
    this.agents = config.agents;
    this.follow(runId, null);
    sim().send({ type: 'run.start', runId, name, config, ...this.remoteField() });
    return runId;
  }

  resume(runId: string, agents?: readonly string[]): void {
    if (agents) this.agents = agents;
    this.follow(runId, true);
    sim().send({ type: 'run.resume', runId, ...this.remoteField() });
  }
}
