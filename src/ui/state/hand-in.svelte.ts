/**
 * A student's hand-in of one finished game: the name it is handed in under (asked each game, so
 * that on a shared machine the next student does not hand in under the last one's name), then its
 * result link, made from the game as stored (storage/result-link.ts).
 */
import { HAND_IN_PATH, storedResultPayload } from '../../storage/result-link';
import { playerOf } from '../class-export';
import { absoluteLink } from '../share-link';
import { player } from './player.svelte';
import { database } from './sim';

export class HandInLink {
  status = $state<'asking' | 'making' | 'ready' | 'failed'>('asking');
  /** The name the game is handed in under, once confirmed. */
  name = $state('');
  link = $state<string | null>(null);
  error = $state<string | null>(null);

  /** `runId`: a stored, finished game (the Arena hands it over once the worker has written it). */
  constructor(readonly runId: string) {}

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
}
