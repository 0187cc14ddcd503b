import { ArenaSession } from './arena.svelte';
import { KeyRing } from './keys.svelte';
import { Router } from './router.svelte';
import { RunsStore } from './runs.svelte';
import { TournamentSession } from './tournament.svelte';

/** State that outlives page switches: a tournament keeps running while you read the Arena. */
export class AppState {
  readonly router = new Router();
  readonly keys = new KeyRing();
  readonly arena = new ArenaSession(() => this.keys.remote());
  readonly tournament = new TournamentSession(() => this.keys.remote());
  readonly runs = new RunsStore();
}
