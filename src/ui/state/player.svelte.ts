/**
 * The name a student plays under in the Arena, kept in this browser: a game with a human seat is
 * stored as `<name>: human buys … from …`, so the teacher's class export can tell students apart.
 */
import { loadNegotiation, updateRun } from '../../storage/runs';
import { playerOf, playerRunName, type StoredGame } from '../class-export';
import { database } from './sim';

export const PLAYER_KEY = 'parley.player';
const MAX_NAME = 60;

function stored(): string {
  try {
    return localStorage.getItem(PLAYER_KEY) ?? '';
  } catch {
    return '';
  }
}

export class Player {
  name = $state(stored());

  set(name: string): void {
    this.name = name.slice(0, MAX_NAME);
    try {
      localStorage.setItem(PLAYER_KEY, this.name);
    } catch {
      // Storage refused (a private window): the name still holds for this tab.
    }
  }

  /** Stores a finished game with a human seat under the player's name (once; an empty name leaves it as it is). */
  async nameGame(runId: string): Promise<void> {
    const name = this.name.trim();
    if (!name) return;
    const db = database();
    const run = await db.runs.get(runId);
    if (run && playerOf(run.name) === null) await updateRun(db, runId, { name: playerRunName(name, run.name) });
  }
}

export const player = new Player();

/** Every finished Arena game stored in this browser, read for the class export. */
export async function storedGames(): Promise<StoredGame[]> {
  const db = database();
  const runs = (await db.runs.toArray()).filter((r) => r.config.kind === 'arena' && r.status === 'done');
  const games: StoredGame[] = [];
  for (const run of runs) {
    const row = await loadNegotiation(db, run.id, '0');
    if (row) games.push({ runId: run.id, runName: run.name, createdAt: run.createdAt, buyer: row.buyer, seller: row.seller, scenario: row.scenario, events: row.events });
  }
  return games;
}
