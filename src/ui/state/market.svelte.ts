import type { MarketStandingRow } from '../../core/market/aggregate';
import type { MarketEvent } from '../../core/market/events';
import { generateMarket, type MarketScenario } from '../../core/market/scenario';
import type { MarketRunConfig } from '../../storage/market-schema';
import type { RunStatus } from '../../storage/schema';
import type { RemoteConfig } from '../../worker/messages';
import { database, newId, sim } from './sim';
import { getRun, markCutOff } from '../../storage/runs';
import { reportInPlay } from './in-play';

export type MarketGameStatus = 'idle' | 'playing' | 'finished' | 'failed';

/** The one market a configuration of one seller, one configuration and one market plays. */
export const scenarioOf = (config: MarketRunConfig): MarketScenario => {
  const named = config.configs[0] as MarketRunConfig['configs'][number];
  return generateMarket(named.config, config.seed, 0, named.name);
};

/** A market played live in the worker: its events as they come, and the run it was saved as. */
export class MarketGameSession {
  gameId = $state<string | null>(null);
  status = $state<MarketGameStatus>('idle');
  message = $state<string | null>(null);
  config = $state.raw<MarketRunConfig | null>(null);
  scenario = $state.raw<MarketScenario | null>(null);
  events = $state.raw<MarketEvent[]>([]);
  runId = $state<string | null>(null);
  delayMs = $state(200);
  paused = $state(false);
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {}

  play(config: MarketRunConfig): void {
    this.unsubscribe?.();
    const gameId = newId();
    this.gameId = gameId;
    this.config = config;
    this.scenario = scenarioOf(config);
    this.events = [];
    this.runId = null;
    this.message = null;
    this.status = 'playing';
    this.unsubscribe = sim().subscribe((m) => {
      if (m.type === 'worker.stopped') {
        if (this.status === 'playing') [this.status, this.message] = ['failed', m.message];
        return;
      }
      if (!('gameId' in m) || m.gameId !== gameId) return;
      if (m.type === 'market.event') this.events = [...this.events, m.event as MarketEvent];
      else if (m.type === 'market.end') {
        this.runId = m.runId;
        this.status = 'finished';
      } else if (m.type === 'failed') {
        this.status = 'failed';
        this.message = m.message;
      }
    });
    const remote = this.remote();
    sim().send({ type: 'market.play', gameId, config, delayMs: this.delayMs, paused: this.paused, save: true, ...(remote && { remote }) });
  }

  private control(change: { delayMs?: number; paused?: boolean; step?: boolean; cancel?: boolean }): void {
    if (this.gameId && this.status === 'playing') sim().send({ type: 'market.control', gameId: this.gameId, ...change });
  }

  setDelay(delayMs: number): void {
    this.delayMs = delayMs;
    this.control({ delayMs });
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.control({ paused });
  }

  step(): void {
    this.control({ step: true });
  }

  stop(): void {
    this.control({ cancel: true });
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

/** A market tournament as the page follows it: progress, live standings and status. */
export class MarketTournamentSession {
  runId = $state<string | null>(null);
  status = $state<RunStatus | null>(null);
  message = $state<string | null>(null);
  done = $state(0);
  planned = $state(0);
  standings = $state.raw<MarketStandingRow[]>([]);
  /**
   * Whether the run is stored, so that the page may link to it: true once the worker reports on it,
   * false when it failed before it was created (the page then says so and links to nothing).
   */
  stored = $state<boolean | null>(null);
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {}

  private follow(runId: string, stored: boolean | null): void {
    this.unsubscribe?.();
    Object.assign(this, { runId, status: 'running', message: null, stored });
    this.unsubscribe = sim().subscribe((m) => {
      if (m.type === 'worker.stopped') {
        // The worker playing it died: the run is interrupted, what it stored kept, and it can be resumed.
        if (m.runs.includes(runId)) {
          this.status = 'interrupted';
          this.message = `${m.message} The run is interrupted: every market it stored is kept; resume it from Runs to play the rest.`;
          void markCutOff(database(), runId).catch(() => undefined);
        } else if (this.status === 'running') [this.status, this.message] = ['failed', m.message];
        return;
      }
      if (!('runId' in m) || m.runId !== runId) return;
      if (m.type === 'market.progress' || m.type === 'market.status') this.stored = true;
      if (m.type === 'market.progress') {
        this.done = m.done;
        this.planned = m.planned;
        this.standings = m.standings;
      } else if (m.type === 'market.status') {
        this.status = m.status;
        this.message = m.message;
      } else if (m.type === 'failed') {
        this.status = 'failed';
        this.message = m.message;
        void this.checkStored(runId);
      }
    });
  }

  /** After a failure: is there a run to link to? (A start can fail before the run is created: a full disk, a bad seat.) */
  private async checkStored(runId: string): Promise<void> {
    const found = await getRun(database(), runId, 'market').then(
      (run) => run !== undefined,
      () => false,
    );
    if (this.runId === runId) this.stored = found;
  }

  start(name: string, config: MarketRunConfig): string {
    const runId = newId();
    Object.assign(this, { done: 0, planned: 0, standings: [] });
    this.follow(runId, null);
    const remote = this.remote();
    sim().send({ type: 'market.start', runId, name, config, ...(remote && { remote }) });
    return runId;
  }

  /** Plays what a stopped run still lacks; its stored markets are kept and not played again. */
  resume(runId: string): void {
    this.follow(runId, true);
    const remote = this.remote();
    sim().send({ type: 'market.resume', runId, ...(remote && { remote }) });
  }

  cancel(): void {
    if (this.runId) sim().send({ type: 'market.cancel', runId: this.runId });
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

let game: MarketGameSession | null = null;
let tournament: MarketTournamentSession | null = null;
let keys: () => RemoteConfig | undefined = () => undefined;

/** What this tab's market sessions are playing, in words, if anything. */
function marketInPlay(): string | null {
  if (game?.status === 'playing') return 'a market game';
  if (tournament?.status === 'running' && tournament.runId) return 'a market tournament';
  return null;
}

/**
 * The page's market sessions: they outlive the page, so a run keeps going while you read another.
 * `remote` (the Market page's keys) is read whenever a game or run starts.
 */
export function marketSessions(remote?: () => RemoteConfig | undefined) {
  if (remote) keys = remote;
  if (!game) reportInPlay(marketInPlay);
  game ??= new MarketGameSession(() => keys());
  tournament ??= new MarketTournamentSession(() => keys());
  return { game, tournament };
}
