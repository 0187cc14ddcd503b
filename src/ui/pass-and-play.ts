/**
 * Pass and play: two students on one device, one in each seat. Their game is stored under both
 * names, `Ada (buyer), Ben (seller): human buys … from human`, so a class export can credit each
 * seat to its student (`seatPlayers`); a one-player game keeps `Ada: …` (class-export.ts).
 */
import type { Role } from '../games/bilateral/scenario';
import { UNNAMED } from './player-names';
import { PLAYER_NAME, TOURNAMENT_LIMITS } from './state/limits';

const MAX_PLAYER = PLAYER_NAME.max;
/** The run name's limit (RunRecordSchema). */
const MAX_RUN_NAME = TOURNAMENT_LIMITS.name.max;
const PLAYERS = /^(.+) \(buyer\), (.+) \(seller\)$/;

/** The stored name of a pass-and-play game; a seat left unnamed is UNNAMED's. */
export function passAndPlayName(players: Record<Role, string>, runName: string): string {
  // ": " ends the players' part of the name, so a name cannot hold one.
  const name = (role: Role) => players[role].replaceAll(': ', ' ').trim().slice(0, MAX_PLAYER).trim() || UNNAMED;
  return `${name('buyer')} (buyer), ${name('seller')} (seller): ${runName}`.slice(0, MAX_RUN_NAME);
}

/** The students of a pass-and-play game's name, seat by seat; null for any other name. */
export function seatPlayers(runName: string): Record<Role, string> | null {
  const cut = runName.indexOf(': ');
  const match = cut > 0 ? PLAYERS.exec(runName.slice(0, cut)) : null;
  return match ? { buyer: (match[1] as string).trim(), seller: (match[2] as string).trim() } : null;
}
