/**
 * The episodes the environment server holds, whichever front end started them (its own episode
 * routes, OpenEnv's HTTP routes or an OpenEnv WebSocket session): made from a request with its
 * defaults filled in, stepped one answer at a time, closed, and forgotten once idle.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { BilateralAgentFactory } from '../games/bilateral/tournament';
import type { MarketAgentFactory } from '../games/market/tournament';
import { makeMarketAgent } from '../games/market/specs';
import { MAX_SEED } from '../engine/rng';
import type { BilateralResult } from '../games/bilateral/events';
import type { RewardTerms } from '../games/bilateral/reward';
import type { MarketResult } from '../games/market/events';
import type { MarketRewardTerms } from '../games/market/reward';
import { Episode, OpponentError, type EpisodeEnd, type EpisodeTurn, type EpisodeView } from './episode-core';
import { EpisodeRequestSchema, startEpisode } from './episode';
import { StepRequestSchema, stepAnswer, type StepRequest } from './step-request';
import { MarketEpisodeRequestSchema, startMarketEpisode } from './market-episode';
import { endingOf, NOT_ENDED, type Ending } from './ending';
import { EnvError, isRecord, parseBody, refuse, type OpponentRefusal } from './env-problems';

export type EnvGame = 'bilateral' | 'market';

/**
 * What a request left out: the game is bilateral, the policy buys from `boulware`, and the seed is
 * drawn (and answered, so the episode can be played again).
 */
export const EPISODE_DEFAULTS = { game: 'bilateral', seat: 'buyer', opponent: 'boulware' } as const;

/** An episode id a client may choose (OpenEnv's `episode_id`): it is also a path segment of /episodes/{id}. */
export const EpisodeIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}$/, {
  message: 'an episode id is 1 to 255 letters, digits, "_", ".", ":" or "-", starting with a letter or digit',
});

/** What the server answers: a turn, or the end of an episode of either game. */
export type ServedEnd = EpisodeEnd<RewardTerms | MarketRewardTerms, BilateralResult | MarketResult>;
export type ServedView = EpisodeTurn | ServedEnd;

/** A view with Gymnasium's end split: neither before the end, exactly one of the two at it. */
export type GymView = ServedView & Ending;

// `done`, then the split, then the rest of the view, in that order on the wire. The episodes the
// server starts are the two games' (episode.ts, market-episode.ts), so an end's outcome is one of theirs.
export const withEnding = (episodeView: EpisodeView): GymView => {
  const view = episodeView as ServedView;
  const { done, ...rest } = view;
  return { done, ...(view.done ? endingOf(view.outcome) : NOT_ENDED), ...rest } as GymView;
};

export interface Held {
  readonly id: string;
  readonly episode: Episode;
  readonly game: EnvGame;
  readonly seat: string;
  readonly seed: number;
  lastActive: number;
  /** Steps answered so far (OpenEnv's `step_count`). */
  steps: number;
  /** The end, once it came. */
  end: ServedEnd | null;
}

export interface Started {
  held: Held;
  view: GymView;
}

export interface EpisodeTableOptions {
  makeAgent: BilateralAgentFactory;
  makeMarketAgent?: MarketAgentFactory;
  checkOpponent?: (spec: string, game: EnvGame) => OpponentRefusal | null;
  idleMs: number;
  maxEpisodes: number;
  now: () => number;
}

export class EpisodeTable {
  private readonly held = new Map<string, Held>();
  /** Episodes still starting (a model opponent may be answering its opening move) count toward the limit too. */
  private starting = 0;

  constructor(private readonly opts: EpisodeTableOptions) {}

  get size(): number {
    return this.held.size;
  }

  counts(): { open: number; done: number } {
    let done = 0;
    for (const h of this.held.values()) if (h.episode.state === 'done') done++;
    return { open: this.held.size - done, done };
  }

  get(id: string): Held {
    const found = this.held.get(id);
    if (!found) throw refuse('unknown-episode', { id, idleMs: this.opts.idleMs });
    return found;
  }

  /**
   * Starts an episode from a request (either game's, defaults filled in) under `id`, or a fresh id;
   * an episode already held under that id is closed first (a reset).
   */
  async create(body: unknown, id: string = randomUUID()): Promise<Started> {
    if (!isRecord(body)) throw refuse('bad-body', { body: 'not-an-object' });
    const game = body.game ?? EPISODE_DEFAULTS.game;
    if (game !== 'bilateral' && game !== 'market') throw refuse('unknown-game', { game: String(JSON.stringify(game)).slice(0, 60) });
    const seeded = { ...body, game, seed: body.seed ?? randomInt(0, MAX_SEED + 1) };
    let launch: () => Promise<{ episode: Episode; view: EpisodeView }>;
    let seat: string;
    let seed: number;
    if (game === 'market') {
      const req = parseBody(MarketEpisodeRequestSchema, seeded);
      this.check(req.opponent, 'market');
      ({ seat, seed } = req);
      launch = () => startMarketEpisode(id, req, this.opts.makeMarketAgent ?? makeMarketAgent);
    } else {
      const req = parseBody(EpisodeRequestSchema, { seat: EPISODE_DEFAULTS.seat, opponent: EPISODE_DEFAULTS.opponent, ...seeded });
      this.check(req.opponent, 'bilateral');
      ({ seat, seed } = req);
      launch = () => startEpisode(id, req, this.opts.makeAgent);
    }
    this.close(id);
    if (this.held.size + this.starting >= this.opts.maxEpisodes) this.expireIdle();
    if (this.held.size + this.starting >= this.opts.maxEpisodes) throw refuse('full', { max: this.opts.maxEpisodes });
    let started: { episode: Episode; view: EpisodeView };
    this.starting++;
    try {
      started = await launch();
    } catch (e) {
      if (e instanceof OpponentError) throw refuse('bad-opponent', { reason: e.message });
      throw e;
    } finally {
      this.starting--;
    }
    // Two resets under one id at once: the later one stands, the other is closed.
    this.close(id);
    const held: Held = {
      id,
      episode: started.episode,
      game,
      seat,
      seed,
      lastActive: this.opts.now(),
      steps: 0,
      end: started.view.done ? (started.view as ServedEnd) : null,
    };
    this.held.set(id, held);
    return { held, view: withEnding(started.view) };
  }

  /** Gives the policy's answer (`body`, read by `schema`) to a waiting episode; answers its next turn (without the tools, which never change) or its end. */
  async step(id: string, body: unknown, schema: z.ZodType<StepRequest> = StepRequestSchema): Promise<GymView> {
    const h = this.get(id);
    if (h.episode.state === 'done') throw refuse('episode-over', { id });
    if (h.episode.state === 'busy') throw refuse('step-in-progress', { id });
    const step = parseBody(schema, body);
    h.lastActive = this.opts.now();
    try {
      const view = await h.episode.step(stepAnswer(step));
      h.steps++;
      if (view.done) {
        h.end = view as ServedEnd;
        return withEnding(view);
      }
      return withEnding({ done: false, messages: view.messages });
    } finally {
      h.lastActive = this.opts.now();
    }
  }

  /** Closes and forgets an episode; whether one was held. */
  close(id: string): boolean {
    const h = this.held.get(id);
    if (!h) return false;
    h.episode.cancel();
    this.held.delete(id);
    return true;
  }

  closeAll(): void {
    for (const h of this.held.values()) h.episode.cancel();
    this.held.clear();
  }

  /** Closes every episode idle past idleMs (none busy); returns how many. */
  expireIdle(): number {
    const cutoff = this.opts.now() - this.opts.idleMs;
    let closed = 0;
    for (const [id, h] of this.held)
      if (h.lastActive <= cutoff && h.episode.state !== 'busy') {
        h.episode.cancel();
        this.held.delete(id);
        closed++;
      }
    return closed;
  }

  private check(spec: string, game: EnvGame): void {
    const refused = this.opts.checkOpponent?.(spec, game);
    if (refused) throw new EnvError(refused);
  }
}
