/**
 * A student's hand-in of one finished game: the name it is handed in under (asked each game, so
 * that on a shared machine the next student does not hand in under the last one's name), then its
 * result link, made from the game as stored (storage/result-link.ts).
 */
import type { BilateralEvent } from '../../core/bilateral/events';
import { canonicalJson } from '../../storage/content';
import { HAND_IN_PATH, storedResultPayload } from '../../storage/result-link';
import { loadNegotiation } from '../../storage/runs';
import { playerOf } from '../class-export';
import { absoluteLink } from '../share-link';
import { player } from './player.svelte';
import { database } from './sim';

/** How long a hand-in waits for the game's last write: 20 × 150 ms. */
const STORE_TRIES = 20;
const STORE_WAIT_MS = 150;

export class HandInLink {
  status = $state<'asking' | 'making' | 'ready' | 'failed'>('asking');
  /** The name the game is handed in under, once confirmed. */
  name = $state('');
  link = $state<string | null>(null);
  error = $state<string | null>(null);

  /** `events`: the game as the page shows it, to check the stored game is that one. */
  constructor(
    readonly runId: string,
    private readonly events: readonly BilateralEvent[] | null = null,
  ) {}

  /** The name to offer: the one the game is stored under, else the one this browser remembers. */
  async suggestion(): Promise<string> {
    try {
      const run = await database().runs.get(this.runId);
      return (typeof run?.name === 'string' ? playerOf(run.name) : null) ?? player.name;
    } catch {
      return player.name;
    }
  }

  /** `name` null: the game keeps the names it is stored under (pass and play names both seats). */
  async make(name: string | null): Promise<void> {
    this.status = 'making';
    this.error = null;
    try {
      if (this.events && !(await this.stored(this.events))) return this.fail('this game could not be saved in this browser, so it has no result link');
      if (name !== null && !(await player.renameGame(this.runId, name))) return this.fail('this game is not stored in this browser');
      const payload = await storedResultPayload(database(), this.runId);
      if (!payload.ok) return this.fail(payload.error);
      this.name = name?.trim() ?? '';
      this.link = absoluteLink(`${HAND_IN_PATH}${payload.value}`);
      this.status = 'ready';
    } catch (e) {
      this.fail(e instanceof Error ? e.message : String(e));
    }
  }

  /** Back to the name ("not you?"): the link made under the other name is put away. */
  ask(): void {
    this.link = null;
    this.status = 'asking';
  }

  private fail(problem: string): void {
    this.error = problem;
    this.status = 'failed';
  }

  /** Whether the game shown is the one stored, finished; the worker's last write may still be on its way. */
  private async stored(events: readonly BilateralEvent[]): Promise<boolean> {
    const want = canonicalJson(events);
    for (let tries = 0; tries < STORE_TRIES; tries++) {
      const [run, row] = await Promise.all([database().runs.get(this.runId), loadNegotiation(database(), this.runId, '0')]);
      if (run?.status === 'done' && row !== undefined && canonicalJson(row.events) === want) return true;
      await new Promise((resolve) => setTimeout(resolve, STORE_WAIT_MS));
    }
    return false;
  }
}
