import { runBatches } from './batches';
import type { ParleyDb } from './db';

const IMPORTED_SUFFIX = ' (imported)';
const MAX_ID_TRIES = 10;

/** The tables `importedIdentity` reads: a transaction that calls it must include them. */
export const idTables = (db: ParleyDb) => [db.runs, db.batches] as const;

/**
 * The id and name an imported run is stored under: its own, or, when any stored run (of any game:
 * they share the `#/runs/<id>` address) or its batches already use that id, a fresh id from `newId`
 * and the name marked as imported. Called inside the import's transaction.
 */
export async function importedIdentity(db: ParleyDb, run: { id: string; name: string }, newId: () => string): Promise<{ id: string; name: string }> {
  const taken = async (id: string) => (await db.runs.where('id').equals(id).count()) > 0 || (await runBatches(db, id).count()) > 0;
  if (!(await taken(run.id))) return { id: run.id, name: run.name };
  const name = run.name.slice(0, 200 - IMPORTED_SUFFIX.length) + IMPORTED_SUFFIX;
  for (let tries = 0; tries < MAX_ID_TRIES; tries++) {
    const id = newId();
    if (!(await taken(id))) return { id, name };
  }
  throw new Error('import: newId() keeps returning ids that are taken');
}
