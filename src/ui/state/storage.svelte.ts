import { storageUsage } from '../../storage';
import { askPersistenceOnce, isPersisted, requestPersistence } from '../../storage/persist';
import type { ParleyDb } from '../../storage/db';
import { database, sim } from './sim';

/**
 * The one line shown after Parley asks for persistent storage, with the browser's answer. Calm, as a
 * student reads it after their first game: the game is saved either way; how long the browser keeps
 * it, and the button to ask again, are on the Runs page, for the teacher.
 */
export const persistNote = (granted: boolean): string =>
  granted
    ? 'Saved: this browser keeps your games and runs until you delete them.'
    : 'Saved in this browser. To keep a copy for good, export it from the Runs page.';

/**
 * This origin's storage as the browser sees it: how much is used and allowed, and whether it is
 * persistent. On the first run stored, asks once for persistent storage (the one line above says
 * why and what came of it).
 */
export class StorageKeeper {
  estimate = $state.raw<{ usage: number; quota: number } | null>(null);
  /** null until asked, or where the browser cannot say. */
  persisted = $state<boolean | null>(null);
  /** The line shown after asking for persistent storage, until dismissed. */
  note = $state<string | null>(null);
  private asking: Promise<void> | null = null;

  constructor(private readonly db: () => ParleyDb = database) {}

  /** Reads the estimate and the persistence state again. */
  async refresh(): Promise<void> {
    const [estimate, persisted] = await Promise.all([storageUsage(), isPersisted()]);
    this.estimate = estimate;
    this.persisted = persisted;
  }

  /** Watches the worker for the first stored run (a game saved, a tournament begun); returns the undo. */
  watch(): () => void {
    return sim().subscribe((m) => {
      if ((m.type === 'arena.end' && m.runId !== null) || (m.type === 'run.status' && m.status !== 'failed')) void this.onRunStored();
    });
  }

  /** Asks for persistent storage the first time a run is stored; never twice, not even in another session. */
  onRunStored(): Promise<void> {
    this.asking ??= askPersistenceOnce(this.db())
      .then(async (granted) => {
        if (granted !== null) this.note = persistNote(granted);
        await this.refresh();
      })
      .catch(() => undefined);
    return this.asking;
  }

  /** The Runs page's button: asks again, when the user chooses to. */
  async request(): Promise<void> {
    const granted = await requestPersistence();
    if (granted !== null) this.note = persistNote(granted);
    await this.refresh();
  }

  dismiss(): void {
    this.note = null;
  }
}

export const storageKeeper = new StorageKeeper();
