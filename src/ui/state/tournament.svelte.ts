import type { Standings } from '../../core/bilateral/aggregate';
import type { RemoteConfig, TournamentSettings } from '../../worker/messages';
import type { RunStatus } from '../../storage/schema';
import { database, newId, sim } from './sim';
import { getRun, markCutOff } from '../../storage/runs';

export interface Progress {
  done: number;
  planned: number;
  ratePerS: number | null;
  etaS: number | null;
}

const STANDINGS_INTERVAL_MS = 1000;

/** A tournament run as the page sees it: progress, standings and status from the worker. */
export class TournamentSession {
  runId = $state<string | null>(null);
  status = $state<RunStatus | null>(null);
  message = $state<string | null>(null);
  progress = $state.raw<Progress>({ done: 0, planned: 0, ratePerS: null, etaS: null });
  standings = $state.raw<Standings | null>(null);
  /** The agents of the run followed, where known: the page shows their WebLLM engines' loading. */
  agents = $state.raw<readonly string[]>([]);
  /**
   * Whether the run is stored, so that the page may link to it: true once the worker reports on it,
   * false when it failed before it was created (the page then says so and links to nothing).
   */
  stored = $state<boolean | null>(null);
  private unsubscribe: (() => void) | null = null;
  private standingsAt = -Infinity;

  /** `remote`: the user's keys and base URLs, read when a run starts or resumes. */
  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {}

  private remoteField(): { remote?: RemoteConfig } {
    const remote = this.remote();
    return remote ? { remote } : {};
  }

  private follow(runId: string): void {
    this.unsubscribe?.();
    this.runId = runId;
    this.unsubscribe = sim().subscribe((m) => {
      if (m.type === 'worker.stopped') {
        if (m.runs.includes(runId)) this.cutOff(runId, m.message);
        return;
      }
      if (!('runId' in m) || m.runId !== runId) return;
      if (m.type === 'run.progress' || m.type === 'run.status') this.stored = true;
      if (m.type === 'run.progress') {
        this.progress = { done: m.done, planned: m.planned, ratePerS: m.ratePerS, etaS: m.etaS };
        // Live standings redraw tables at most once a second; the last one always lands.
        const now = performance.now();
        if (m.ratePerS === null || now - this.standingsAt >= STANDINGS_INTERVAL_MS) {
          this.standingsAt = now;
          this.standings = m.standings;
        }
      } else if (m.type === 'run.status') {
        this.status = m.status;
        this.message = m.message;
      } else if (m.type === 'failed') {
        this.status = 'failed';
        this.message = m.message;
        void this.checkStored(runId);
      }
    });
  }

  /** The worker playing the run died: the run is interrupted, not failed; what it stored is kept and it can be resumed. */
  private cutOff(runId: string, reason: string): void {
    this.status = 'interrupted';
    this.message = `${reason} The run is interrupted: every negotiation it stored is kept; resume it to play the rest.`;
    void markCutOff(database(), runId).catch(() => undefined);
  }

  /** After a failure: is there a run to link to? (A start can fail before the run is created: a full disk, a bad agent.) */
  private async checkStored(runId: string): Promise<void> {
    const found = await getRun(database(), runId).then(
      (run) => run !== undefined,
      () => false,
    );
    if (this.runId === runId) this.stored = found;
  }

  start(name: string, config: TournamentSettings): string {
    const runId = newId();
    this.status = 'running';
    this.message = null;
    this.standings = null;
    this.progress = { done: 0, planned: 0, ratePerS: null, etaS: null };
    this.agents = config.agents;
    this.stored = null;
    this.follow(runId);
    sim().send({ type: 'run.start', runId, name, config, ...this.remoteField() });
    return runId;
  }

  resume(runId: string, agents?: readonly string[]): void {
    if (agents) this.agents = agents;
    this.status = 'running';
    this.message = null;
    this.stored = true;
    this.follow(runId);
    sim().send({ type: 'run.resume', runId, ...this.remoteField() });
  }

  cancel(): void {
    if (this.runId) sim().send({ type: 'run.cancel', runId: this.runId });
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
