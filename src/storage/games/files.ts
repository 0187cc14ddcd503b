/**
 * Each game's file part (store.ts's `GameFiles`): how its runs are written to run files and read
 * back. Kept apart from index.ts so that only the worker and the command line load the checkers.
 */
import { bilateralFiles } from '../bilateral-file';
import { marketFiles } from '../market-file';
import type { Game, GameName, LineOf, RunOf } from './index';
import type { GameFiles } from './store';

// Every built-in game index.ts names has its file part here.
export const FILE_GAMES: { [G in Game]: GameFiles<RunOf<G>, LineOf<G>, unknown> } = { bilateral: bilateralFiles, market: marketFiles };

/** A game's file part, typed as the generic code uses it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any game's part: TypeScript has no existential type, and each game's own is checked in FILE_GAMES above or where it is registered.
export type AnyGameFiles = GameFiles<any, any, any>;

const files = new Map<string, AnyGameFiles>(Object.entries(FILE_GAMES));

/** Adds a registered game's file part under its name, and returns what takes it away again (runs/index.ts's `registerGame` calls it). */
export function registerFiles(game: string, part: AnyGameFiles): () => void {
  if (files.has(game)) throw new Error(`a game named "${game}" already has its file part`);
  files.set(game, part);
  return () => void files.delete(game);
}

export function filesOf(game: GameName): AnyGameFiles {
  const part = files.get(game);
  if (part === undefined) throw new Error(`no game "${game}" has a file part`);
  return part;
}
