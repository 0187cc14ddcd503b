/**
 * The games storage knows, by name: the one place a game is registered with storage. Run rows and
 * digests carry the name; every generic reader and writer finds the game's descriptor here (and
 * run files its file part, in files.ts, which the compiler asks for every game named here).
 */
import { bilateralStore } from './bilateral';
import { marketStore } from './market';
import type { GameFiles, GameStore, StoredRunBase } from './store';

export const STORE_GAMES = { bilateral: bilateralStore, market: marketStore } as const;

export type Game = keyof typeof STORE_GAMES;
export const GAMES = Object.keys(STORE_GAMES) as Game[];

// Each descriptor is filed under its own name.
const named: { [G in Game]: { game: G } } = STORE_GAMES;
void named;

/** A descriptor whose lines are `Line`, whatever its game (what the generic code holds). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any game's descriptor: TypeScript has no existential type, and each game's own is checked in STORE_GAMES above.
export type AnyGameStore<Line = any> = GameStore<Game, any, Line, object>;

type StoreOf<G extends Game> = (typeof STORE_GAMES)[G];
/** A stored run of game G, the line its batches hold, and a digest's columns. */
export type RunOf<G extends Game> = StoreOf<G> extends GameStore<G, infer Run, infer _L, infer _C> ? Run : never;
export type LineOf<G extends Game> = StoreOf<G> extends GameStore<G, infer _R, infer Line, infer _C> ? Line : never;
export type ColumnsOf<G extends Game> = StoreOf<G> extends GameStore<G, infer _R, infer _L, infer Columns> ? Columns : never;

/** A stored run of any game; its `game` says which. */
export type StoredRun = { [G in Game]: RunOf<G> }[Game];

/** The descriptor of a game, typed as the generic code uses it. */
export const storeOf = <G extends Game>(game: G): GameStore<G, RunOf<G>, LineOf<G>, ColumnsOf<G>> =>
  STORE_GAMES[game] as unknown as GameStore<G, RunOf<G>, LineOf<G>, ColumnsOf<G>>;

export const isGame = (value: unknown): value is Game => typeof value === 'string' && Object.hasOwn(STORE_GAMES, value);

/**
 * The game a stored row says it is of, or null where it says something else. A row without one is
 * bilateral: an older tab of Parley, which knows only that game, may still write runs.
 */
export function gameOfRow(raw: unknown): Game | null {
  const game = typeof raw === 'object' && raw !== null ? (raw as { game?: unknown }).game : undefined;
  return game === undefined ? 'bilateral' : isGame(game) ? game : null;
}

export type { GameFiles, GameStore, StoredRunBase };
