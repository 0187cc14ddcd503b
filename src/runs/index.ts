/**
 * The games the run controller plays, by name: the one place a game is registered with it. The
 * compiler asks for one descriptor for every game storage knows (storage/games/index.ts).
 */
import type { Game } from '../storage/games';
import { bilateralRuns } from './bilateral';
import type { AnyRunGame } from './game';
import { marketRuns } from './market';

export const RUN_GAMES = { bilateral: bilateralRuns, market: marketRuns } as const satisfies { [G in Game]: { game: G } };

export const runGameOf = (game: Game): AnyRunGame => RUN_GAMES[game];
