import { ArenaSession } from './arena.svelte';
import { KeyRing } from './keys.svelte';
import { RunsStore } from './runs.svelte';
import { TournamentSession } from './tournament.svelte';
import { reportedInPlay } from './in-play';
import { connectivity } from './connectivity.svelte';
import { storageKeeper } from './storage.svelte';

/**
 * State that outlives page switches: a tournament keeps running while you read the Arena. App.svelte
 * loads it with the first page that needs it (Home needs none).
 */
export class AppState {
  readonly keys = new KeyRing();
  readonly arena = new ArenaSession(() => this.keys.remote());
  readonly tournament = new TournamentSession(() => this.keys.remote());
  readonly runs = new RunsStore();
  /** Asks for persistent storage on the first run stored; its note shows under the header. */
  readonly storage = storageKeeper;

  /** Reads the stored runs and keys, and watches for the first run stored; returns the undo. */
  start(): () => void {
    void this.runs.init();
    void this.keys.load();
    connectivity.start({ keys: this.keys });
    return this.storage.watch();
  }

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
