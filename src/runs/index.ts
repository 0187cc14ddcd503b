/**
 * The games the run controller plays, by name. The built-in ones are named in `RUN_GAMES`, and the
 * compiler asks for one descriptor for every game storage knows (storage/games/index.ts). A game
 * from outside joins every layer at once with `registerGame`: its store descriptor, its file part
 * and its run descriptor (which holds its engine `GameDef`), all under the one name.
 */
import type { GameName } from '../storage/games';
import { registerStore, type AnyGameStore, type Game } from '../storage/games';
import { registerFiles, type AnyGameFiles } from '../storage/games/files';
import { bilateralRuns } from './bilateral';
import type { AnyRunGame } from './game';
import { marketRuns } from './market';

export const RUN_GAMES = { bilateral: bilateralRuns, market: marketRuns } as const satisfies { [G in Game]: { game: G } };

const runGames = new Map<string, AnyRunGame>(Object.entries(RUN_GAMES));

export function runGameOf(game: GameName): AnyRunGame {
  const runGame = runGames.get(game);
  if (runGame === undefined) throw new Error(`no game "${game}" is registered`);
  return runGame;
}

/** What a game registers: its store descriptor, its run files' part, and its run descriptor with its `GameDef`. */
export interface GameBundle {
  store: AnyGameStore;
  files: AnyGameFiles;
  runs: AnyRunGame;
}

/**
 * Registers a game with storage, run files and the run controller in one call, and returns what
 * takes it away again (a test's Node workers share one module graph between files). Its parts must
 * all name it (the engine's `name` too, as its run files will record it); a name already registered
 * is refused, so a built-in game cannot be replaced.
 */
export function registerGame({ store, files, runs }: GameBundle): () => void {
  const name = store.game;
  if (runs.game !== name || runs.engine.name !== name)
    throw new Error(`a game's parts must share its name: store "${name}", runs "${runs.game}", engine "${runs.engine.name}"`);
  if (runGames.has(name)) throw new Error(`a game named "${name}" is already registered`);
  const unregister = [registerStore(store), registerFiles(name, files)];
  runGames.set(name, runs);
  return () => {
    for (const undo of unregister) undo();
    runGames.delete(name);
  };
}
