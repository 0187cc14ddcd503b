import { ArenaSession } from './arena.svelte';
import { KeyRing } from './keys.svelte';
import { Router } from './router.svelte';
import { RunsStore } from './runs.svelte';
import { TournamentSession } from './tournament.svelte';
import { reportedInPlay } from './in-play';

/** State that outlives page switches: a tournament keeps running while you read the Arena. */
export class AppState {
  readonly router = new Router();
  readonly keys = new KeyRing();
  readonly arena = new ArenaSession(() => this.keys.remote());
  readonly tournament = new TournamentSession(() => this.keys.remote());
  readonly runs = new RunsStore();

  /**
   * What this tab is playing, in words, or null: an Arena game (yours, where you hold a seat), a
   * tournament or a market running in this tab's worker. An update never reloads such a tab away.
   */
  inPlay(): string | null {
    if (this.arena.status === 'playing') return this.arena.human ? 'your Arena game' : 'an Arena game';
    if (this.tournament.status === 'running' && this.tournament.runId !== null) return 'a tournament';
    return reportedInPlay();
  }
}
