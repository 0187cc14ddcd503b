/**
 * The name a student plays under in the Arena, kept in this browser: a game with a human seat is
 * stored as `<name>: human buys … from …`, so the teacher's class export can tell students apart.
 */
import { err } from '../../engine/result';
import { loadNegotiation, rawRuns, updateRun } from '../../storage/runs';
import { checkNegotiation, checkRunRow } from '../../storage/stored-records';
import { playerOf, playerRunName, unplayered, type SkippedGame, type StoredGame } from '../class-export';
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
  /** The renames in flight, in order: a hand-in waits for them. */
  private naming: Promise<void> = Promise.resolve();

  set(name: string): void {
    this.name = name.slice(0, MAX_NAME);
    try {
      localStorage.setItem(PLAYER_KEY, this.name);
    } catch {
      // Storage refused (a private window): the name still holds for this tab.
    }
  }

  /**
   * Stores a finished game with a human seat under the player's name (once; an empty name leaves it
   * as it is). Where that cannot be written (a full disk), the game stays stored under its own name.
   */
  nameGame(runId: string): Promise<void> {
    const name = this.name.trim();
    if (!name) return this.naming;
    return this.queue(async () => {
      const db = database();
      const run = await db.runs.get(runId);
      if (run && typeof run.name === 'string' && playerOf(run.name) === null) await updateRun(db, runId, { name: playerRunName(name, run.name) });
    });
  }

  /**
   * The name confirmed for one game at its hand-in ("not you?" on a shared machine): the game is
   * stored under it, whoever's name the browser remembered, and the browser remembers it next.
   * False where the game could not be renamed (it is not stored, or the disk is full).
   */
  async renameGame(runId: string, name: string): Promise<boolean> {
    this.set(name);
    const trimmed = this.name.trim();
    let renamed = false;
    await this.queue(async () => {
      const db = database();
      const run = await db.runs.get(runId);
      if (!run || typeof run.name !== 'string') return;
      const base = unplayered(run.name);
      const next = trimmed ? playerRunName(trimmed, base) : base;
      if (next !== run.name) await updateRun(db, runId, { name: next });
      renamed = true;
    });
    return renamed;
  }

  private queue(write: () => Promise<void>): Promise<void> {
    // Nothing to undo on a failure: each rename is one small write, made or not.
    this.naming = this.naming.then(write).catch(() => undefined);
    return this.naming;
  }
}

export const player = new Player();

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Every finished Arena game stored in this browser, read for the class export, and apart the ones
 * that could not be read (a damaged run record that may be a game, or a game's damaged negotiation),
 * each named with why: one bad record leaves the others exported.
 */
export async function storedGames(db = database()): Promise<{ games: StoredGame[]; skipped: SkippedGame[] }> {
  const games: StoredGame[] = [];
  const skipped: SkippedGame[] = [];
  for (const raw of await rawRuns(db)) {
    const checked = checkRunRow(raw);
    if (!checked.ok) {
      // A record too damaged to tell its kind may be a game; one that says it is a tournament is not.
      const kind = (raw as { config?: { kind?: unknown } | null }).config?.kind;
      if (kind !== 'tournament') skipped.push({ runId: checked.error.id, runName: checked.error.name, problem: checked.error.problem });
      continue;
    }
    const { run } = checked.value;
    if (run.config.kind !== 'arena' || run.status !== 'done') continue;
    try {
      const stored = await loadNegotiation(db, run.id, '0');
      const row = stored ? checkNegotiation(stored) : err('its negotiation is not stored');
      if (row.ok)
        games.push({
          runId: run.id,
          runName: run.name,
          createdAt: run.createdAt,
          buyer: row.value.buyer,
          seller: row.value.seller,
          scenario: row.value.scenario,
          events: row.value.events,
        });
      else skipped.push({ runId: run.id, runName: run.name, problem: `its negotiation cannot be read (${row.error})` });
    } catch (e) {
      skipped.push({ runId: run.id, runName: run.name, problem: `its negotiation cannot be read (${reason(e)})` });
    }
  }
  return { games, skipped };
}
