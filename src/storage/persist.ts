import type { ParleyDb } from './db';

/** The settings row that records that Parley has asked for persistent storage (once, ever). */
const ASKED = 'storage.persist-asked';

/** Whether the browser keeps this origin's storage until the user clears it; null where it cannot say. */
export async function isPersisted(storage: StorageManager | undefined = globalThis.navigator?.storage): Promise<boolean | null> {
  if (typeof storage?.persisted !== 'function') return null;
  try {
    return await storage.persisted();
  } catch {
    return null;
  }
}

/** Asks for persistent storage; the browser's answer, or null where it has no such request. */
export async function requestPersistence(storage: StorageManager | undefined = globalThis.navigator?.storage): Promise<boolean | null> {
  if (typeof storage?.persist !== 'function') return null;
  try {
    return await storage.persist();
  } catch {
    return null;
  }
}

/**
 * On the first stored run, asks once for persistent storage (a browser may show a prompt, so never
 * twice). Returns the answer when it asked now, and null when it had asked before, storage is
 * already persistent, or the browser has no such request.
 */
export async function askPersistenceOnce(db: ParleyDb, storage: StorageManager | undefined = globalThis.navigator?.storage): Promise<boolean | null> {
  if ((await db.settings.get(ASKED)) !== undefined) return null;
  if ((await isPersisted(storage)) !== false) return null;
  await db.settings.put({ key: ASKED, value: true });
  return requestPersistence(storage);
}
