/**
 * What the run controller needs from a game beyond its engine definition: how a stored run's config
 * becomes the engine's, which agents sit at it, and how its standings are kept. A game describes
 * itself once here (bilateral.ts, market.ts) and is named in index.ts; a game from outside hands
 * its descriptor to index.ts's `registerGame`.
 */
import type { LocalBackends } from '../games/bilateral/registry';
import type { RemoteSettings } from '../agents/remote';
import type { GameDef, PlannedJob } from '../engine/game';
import type { AgentFactory } from '../engine/seat';
import type { GameName, LineOf, RunOf } from '../storage/games';

/** A stored run's config, as a game's run row holds it. */
export type StoredConfigOf<G extends GameName> = RunOf<G>['config'];

/**
 * A game's run descriptor. `Settings` is a new run as the page asks for it, `Config` the engine's
 * tournament config, `Tally` what standings are kept in as lines arrive, `Standings` what it gives.
 */
export interface RunGame<G extends GameName, Settings, Config extends { seed: number }, Job extends PlannedJob, Role extends string, A, R, Tally, Standings> {
  readonly game: G;
  readonly engine: GameDef<Config, Job, Role, A, R>;
  /** A new run's stored config; throws, in words, why its seats cannot be played. */
  create(settings: Settings): StoredConfigOf<G>;
  /** The engine's config of a stored run; throws, in words, why that run cannot be played. */
  tournament(config: StoredConfigOf<G>): Config;
  /** Every seat's spec, each as given (the WebLLM models among them are loaded for the run). */
  seats(config: StoredConfigOf<G>): readonly string[];
  /** Whether some seat is a remote model (its negotiations wait on the network, so several play at once). */
  anyRemote(config: StoredConfigOf<G>): boolean;
  /** The run's agents: remote models with the settings given, WebLLM models on the local backends. */
  makeAgent(config: StoredConfigOf<G>, remote: RemoteSettings, local: LocalBackends): AgentFactory<Role, A>;
  /** The line a result is stored as. */
  line(result: R): LineOf<G>;
  tally(): Tally;
  /** Counts a stored line (a resume feeds them first, in plan order) and a fresh result. */
  addLine(tally: Tally, line: LineOf<G>): void;
  addResult(tally: Tally, result: R): void;
  /** Standings while the run plays (`final` false: no intervals) and once it stops. */
  standings(tally: Tally, config: StoredConfigOf<G>, final: boolean): Standings;
}

/** The run descriptor of game `G` over its engine definition `E`, whose config, jobs, seats, agents and results it takes. */
export type RunGameOver<G extends GameName, E, Settings, Tally, Standings> =
  E extends GameDef<infer Config, infer Job, infer Role, infer A, infer R> ? RunGame<G, Settings, Config, Job, Role, A, R, Tally, Standings> : never;

/** A run descriptor of any game, typed as the generic code uses it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any game's descriptor: TypeScript has no existential type, and each game's own is checked in RUN_GAMES (index.ts) or by registerGame's caller.
export type AnyRunGame = RunGame<GameName, any, any, any, any, any, any, any, any>;
