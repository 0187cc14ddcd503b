/**
 * A class's games in one file: every Arena game stored in this browser (the teacher's own and the
 * students' games imported as runs), each with its scenario, moves, outcome and surplus split, and
 * a ranking of everyone who played, students and bots, by surplus share. Pure: the Runs page reads
 * the games from storage and hands them here; the worker writes the files (worker/class-files.ts).
 */
import { computeMetrics } from '../games/bilateral/metrics';
import type { BilateralEvent } from '../games/bilateral/events';
import type { Move } from '../games/bilateral/moves';
import { ROLES, type Role, type Scenario } from '../games/bilateral/scenario';
import { HUMAN_SPEC } from '../agents/specs';
import { seatPlayers } from './pass-and-play';
import { UNNAMED } from './player-names';
import { PLAYER_NAME } from './state/limits';
import { CLASS_FORMAT, CLASS_VERSION, type ClassExport, type ClassGame, type ClassMove, type RankingRow, type SkippedGame } from '../worker/class-files';

export { UNNAMED };
// The export's types are the schemas the worker checks it against when it builds its files.
export type { ClassExport, ClassGame, ClassMove, RankingRow, SkippedGame };
const PLAYER_SEPARATOR = ': ';
const MAX_PLAYER = PLAYER_NAME.max;

/** The name an Arena game is stored under when a named player took a seat: `Ada: human buys … from …`. */
export const playerRunName = (player: string, runName: string): string => `${player.trim().slice(0, MAX_PLAYER)}${PLAYER_SEPARATOR}${runName}`;

/** The player a game's name carries, if any. */
export function playerOf(runName: string): string | null {
  const cut = runName.indexOf(PLAYER_SEPARATOR);
  const player = cut > 0 ? runName.slice(0, cut).trim() : '';
  return player ? player : null;
}

/** A game's name without its player: `human buys … from …`. */
export function unplayered(runName: string): string {
  return playerOf(runName) === null ? runName : runName.slice(runName.indexOf(PLAYER_SEPARATOR) + PLAYER_SEPARATOR.length);
}

/**
 * How a stored run is called on the pages: an Arena game with a student's seat by the student's
 * name (`Ada buys a blender from linear`), never `human`; any other run by its own name.
 */
export function runTitle(run: { name: string; config: { kind: string; buyer?: string; seller?: string } }): string {
  const { kind, buyer, seller } = run.config;
  if (kind !== 'arena' || buyer === undefined || seller === undefined || (buyer !== HUMAN_SPEC && seller !== HUMAN_SPEC)) return run.name;
  const player = playerOf(run.name) ?? UNNAMED;
  const players = seatPlayers(run.name);
  const rest = unplayered(run.name);
  const match = /^(.+) buys (.+) from (.+)$/.exec(rest);
  if (!match || match[1] !== buyer || match[3] !== seller) return run.name;
  const seat = (role: Role, spec: string) => (spec === HUMAN_SPEC ? (players?.[role] ?? player) : spec);
  return `${seat('buyer', buyer)} buys ${match[2]} from ${seat('seller', seller)}`;
}

/** One stored Arena game, as the Runs page reads it. */
export interface StoredGame {
  runId: string;
  runName: string;
  createdAt: number;
  buyer: string;
  seller: string;
  scenario: Scenario;
  events: readonly BilateralEvent[];
}

function movesOf(events: readonly BilateralEvent[]): ClassMove[] {
  return events.flatMap((event): ClassMove[] => {
    if (event.type !== 'move') return [];
    const move: Move = event.move;
    const action = move.action ?? null;
    return [
      {
        turn: event.turn + 1,
        by: event.actor,
        action: action?.type ?? null,
        price: action?.type === 'offer' ? action.price : null,
        message: move.message ?? null,
      },
    ];
  });
}

/**
 * Who played a game's seats: a seat's student where a person took it, else its agent spec. Pass and
 * play names each seat's own student (`Ada (buyer), Ben (seller): …`); one student is the name's.
 */
export function seatNames(game: Pick<StoredGame, 'runName' | 'buyer' | 'seller'>): Record<Role, string> {
  const player = playerOf(game.runName) ?? UNNAMED;
  const players = seatPlayers(game.runName);
  const seat = (role: Role, spec: string) => (spec === HUMAN_SPEC ? (players?.[role] ?? player) : spec);
  return { buyer: seat('buyer', game.buyer), seller: seat('seller', game.seller) };
}

/** The students of a game, each once: none for a game of agents alone, two for pass and play. */
export function studentsOf(game: Pick<StoredGame, 'runName' | 'buyer' | 'seller'>): string[] {
  const names = seatNames(game);
  const students = ROLES.filter((role) => game[role] === HUMAN_SPEC).map((role) => names[role]);
  return [...new Set(students)];
}

export function classGame(game: StoredGame): ClassGame {
  const metrics = computeMetrics(game.scenario, game.events);
  const seats = seatNames(game);
  return {
    runId: game.runId,
    runName: game.runName,
    playedAt: new Date(game.createdAt).toISOString(),
    buyer: seats.buyer,
    seller: seats.seller,
    buyerIsHuman: game.buyer === HUMAN_SPEC,
    sellerIsHuman: game.seller === HUMAN_SPEC,
    item: game.scenario.item.name,
    listPrice: game.scenario.item.listPrice,
    buyerValue: game.scenario.buyerValue,
    sellerCost: game.scenario.sellerCost,
    turnLimit: game.scenario.turnLimit,
    firstMover: game.scenario.firstMover,
    outcome: metrics.outcome,
    price: metrics.price,
    turnsUsed: metrics.turnsUsed,
    buyerShare: metrics.buyer.share,
    sellerShare: metrics.seller.share,
    buyerIrViolation: metrics.buyer.irViolation,
    sellerIrViolation: metrics.seller.irViolation,
    moves: movesOf(game.events),
  };
}

/** Everyone who played, best expected surplus share first; a game that ended in an error counts for no one. */
export function ranking(games: readonly ClassGame[]): RankingRow[] {
  type Tally = Omit<RankingRow, 'rank' | 'meanShare' | 'expectedShare'> & { shareSum: number; gftDeals: number };
  const rows = new Map<string, Tally>();
  for (const game of games) {
    if (game.outcome === 'error' || game.outcome === 'cancelled') continue;
    const gft = game.buyerValue > game.sellerCost;
    for (const role of ROLES) {
      const name = game[role];
      const human = role === 'buyer' ? game.buyerIsHuman : game.sellerIsHuman;
      const key = `${human ? 'student' : 'bot'}\u0000${name}`;
      const row: Tally = rows.get(key) ?? { name, kind: human ? 'student' : 'bot', games: 0, gftGames: 0, deals: 0, irViolations: 0, shareSum: 0, gftDeals: 0 };
      const share = role === 'buyer' ? game.buyerShare : game.sellerShare;
      row.games += 1;
      if (game.price !== null) row.deals += 1;
      if (gft) row.gftGames += 1;
      if (gft && share !== null) {
        row.gftDeals += 1;
        row.shareSum += share;
      }
      if (role === 'buyer' ? game.buyerIrViolation : game.sellerIrViolation) row.irViolations += 1;
      rows.set(key, row);
    }
  }
  return [...rows.values()]
    .map(({ shareSum, gftDeals, ...row }) => ({
      ...row,
      rank: 0,
      meanShare: gftDeals > 0 ? shareSum / gftDeals : null,
      expectedShare: row.gftGames > 0 ? shareSum / row.gftGames : null,
    }))
    .sort((a, b) => (b.expectedShare ?? -Infinity) - (a.expectedShare ?? -Infinity) || a.name.localeCompare(b.name))
    .map((row, i) => ({ ...row, rank: i + 1 }));
}

/** The class's games and ranking; a game that cannot be scored is left out and named in `skipped`, beside those `unread`. */
export function classExport(stored: readonly StoredGame[], unread: readonly SkippedGame[] = []): ClassExport {
  const games: ClassGame[] = [];
  const skipped = [...unread];
  for (const game of stored) {
    try {
      games.push(classGame(game));
    } catch (e) {
      skipped.push({ runId: game.runId, runName: game.runName, problem: e instanceof Error ? e.message : String(e) });
    }
  }
  games.sort((a, b) => a.playedAt.localeCompare(b.playedAt) || a.runId.localeCompare(b.runId));
  return { format: CLASS_FORMAT, version: CLASS_VERSION, games, ranking: ranking(games), skipped };
}
