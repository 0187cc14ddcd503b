import { ArenaSession } from './arena.svelte';
import { Router } from './router.svelte';
import { RunsStore } from './runs.svelte';
import { TournamentSession } from './tournament.svelte';

/** State that outlives page switches: a tournament keeps running while you read the Arena. */
export class AppState {
  readonly router = new Router();
  readonly arena = new ArenaSession();
  readonly tournament = new TournamentSession();
  readonly runs = new RunsStore();
}
