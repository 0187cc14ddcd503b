import type { MarketStandingRow } from '../../games/market/aggregate';
import type { MarketEvent } from '../../games/market/events';
import { generateMarket, type MarketScenario } from '../../games/market/scenario';
import type { MarketRunConfig } from '../../storage/market-schema';
import type { FromWorker, RemoteConfig } from '../../worker/messages';
import { newId, sim } from './sim';
import { reportInPlay } from './in-play';
import { FollowedRun } from './followed-run.svelte';
import { LiveGame } from './live-game.svelte';

/** The one market a configuration of one seller, one configuration and one market plays. */
export const scenarioOf = (config: MarketRunConfig): MarketScenario => {
  const named = config.configs[0] as MarketRunConfig['configs'][number];
  return generateMarket(named.config, config.seed, 0, named.name);
};

/** A market played live in the worker: its events as they come, and the run it was saved as. */
export class MarketGameSession extends LiveGame {
  message = $state<string | null>(null);
  config = $state.raw<MarketRunConfig | null>(null);
  scenario = $state.raw<MarketScenario | null>(null);
  events = $state.raw<MarketEvent[]>([]);
  runId = $state<string | null>(null);
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {
    super('market.control', 200);
  }

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

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

/** A market tournament as the page follows it: progress, live standings and status. */
export class MarketTournamentSession extends FollowedRun {
  done = $state(0);
  planned = $state(0);
  standings = $state.raw<MarketStandingRow[]>([]);

  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {
    super({ game: 'market', cancel: 'market.cancel', interrupted: 'every market it stored is kept; resume it from Runs to play the rest.' });
  }

  protected take(m: FromWorker): boolean {
    if (m.type === 'market.progress') {
      [this.done, this.planned, this.standings] = [m.done, m.planned, m.standings];
      return true;
    }
    if (m.type !== 'market.status') return false;
    [this.status, this.message] = [m.status, m.message];
    return true;
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
