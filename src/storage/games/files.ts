/**
 * Each game's file part (store.ts's `GameFiles`): how its runs are written to run files and read
 * back. Kept apart from index.ts so that only the worker and the command line load the checkers.
 */
import { bilateralFiles } from '../bilateral-file';
import { marketFiles } from '../market-file';
import type { Game, LineOf, RunOf } from './index';
import type { GameFiles } from './store';

// Every game index.ts names has its file part here.
export const FILE_GAMES: { [G in Game]: GameFiles<RunOf<G>, LineOf<G>, unknown> } = { bilateral: bilateralFiles, market: marketFiles };

/** A game's file part, typed as the generic code uses it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any game's part: TypeScript has no existential type, and each game's own is checked in FILE_GAMES above.
export type AnyGameFiles = GameFiles<any, any, any>;
export const filesOf = (game: Game): AnyGameFiles => FILE_GAMES[game];
