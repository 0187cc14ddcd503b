/**
 * The games storage knows, by name. The built-in games are named in `STORE_GAMES`, whose keys make
 * the `Game` type the app's code switches on; a game from outside (a test's, a future game folder's)
 * joins at run time through `registerStore` (runs/index.ts's `registerGame` calls it), and is then
 * found by name through the same `storeOf` as the built-ins. Run rows and digests carry the name.
 */
import { bilateralStore } from './bilateral';
import { marketStore } from './market';
import type { GameFiles, GameStore, StoredRunBase } from './store';

export const STORE_GAMES = { bilateral: bilateralStore, market: marketStore } as const;

/** The built-in games, statically typed. */
export type Game = keyof typeof STORE_GAMES;
export const GAMES = Object.keys(STORE_GAMES) as Game[];

/** The name of a game the registry may know: a built-in one or one registered at run time. */
export type GameName = Game | (string & {});

// Each descriptor is filed under its own name.
const named: { [G in Game]: { game: G } } = STORE_GAMES;
void named;

/** A descriptor whose lines are `Line`, whatever its game (what the generic code holds). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any game's descriptor: TypeScript has no existential type, and each game's own is checked in STORE_GAMES above or where it is registered.
export type AnyGameStore<Line = any> = GameStore<GameName, any, Line, object>;

type StoreOf<G extends Game> = (typeof STORE_GAMES)[G];
/**
 * A stored run of game G, the line its batches hold, and a digest's columns: a built-in game's own
 * types, and for a registered game what the generic code knows of every game (it parses the rest).
 */
export type RunOf<G extends GameName> = G extends Game ? (StoreOf<G> extends GameStore<G, infer Run, infer _L, infer _C> ? Run : never) : StoredRunBase<G>;
export type LineOf<G extends GameName> = G extends Game ? (StoreOf<G> extends GameStore<G, infer _R, infer Line, infer _C> ? Line : never) : unknown;
export type ColumnsOf<G extends GameName> = G extends Game ? (StoreOf<G> extends GameStore<G, infer _R, infer _L, infer Columns> ? Columns : never) : object;

/** A stored run of any built-in game; its `game` says which. */
export type StoredRun = { [G in Game]: RunOf<G> }[Game];

const stores = new Map<string, AnyGameStore>(Object.entries(STORE_GAMES));

/** Adds a game's descriptor under its name, and returns what takes it away again; a name already known (a built-in one) is refused. */
export function registerStore(store: AnyGameStore): () => void {
  if (stores.has(store.game)) throw new Error(`a game named "${store.game}" is already registered`);
  stores.set(store.game, store);
  return () => void stores.delete(store.game);
}

/** The descriptor of a game, typed as the generic code uses it: a built-in game's own, a registered one's as any game's. */
export function storeOf<G extends Game>(game: G): GameStore<G, RunOf<G>, LineOf<G>, ColumnsOf<G>>;
export function storeOf(game: GameName): AnyGameStore;
export function storeOf(game: GameName): AnyGameStore {
  const store = stores.get(game);
  if (store === undefined) throw new Error(`no game "${game}" is registered`);
  return store;
}

/** Whether a value names a game storage knows, built in or registered. */
export const isKnownGame = (value: unknown): value is GameName => typeof value === 'string' && stores.has(value);

/** Every game storage knows, the built-in ones first. */
export const knownGames = (): GameName[] => [...stores.keys()];

/**
 * The game a stored row says it is of, or null where it says something else. A row without one is
 * bilateral: an older tab of Parley, which knows only that game, may still write runs.
 */
export function gameOfRow(raw: unknown): GameName | null {
  const game = typeof raw === 'object' && raw !== null ? (raw as { game?: unknown }).game : undefined;
  return game === undefined ? 'bilateral' : isKnownGame(game) ? game : null;
}

export type { GameFiles, GameStore, StoredRunBase };
