import Dexie, { type DexieOptions, type EntityTable } from 'dexie';
import type { NegotiationRow, RunRow } from './schema';

export interface SettingRow {
  key: string;
  value: unknown;
}

export const DEFAULT_DB_NAME = 'parley';

/**
 * The schema at each version, oldest first. A shipped version is never edited: a change is a new
 * version with its own `upgrade`, so a database at any older version can still be opened.
 */
export const SCHEMA_V1 = {
  runs: 'id, createdAt',
  // [runId+index] serves listing a run's negotiations in order, counting them and deleting them.
  negotiations: 'id, [runId+index]',
  settings: 'key',
} as const;

export class ParleyDb extends Dexie {
  // `declare`: a class field would be set to undefined after Dexie has created the table.
  declare runs: EntityTable<RunRow, 'id'>;
  declare negotiations: EntityTable<NegotiationRow, 'id'>;
  declare settings: EntityTable<SettingRow, 'key'>;

  /** `options.indexedDB` can place the database elsewhere, e.g. in a storage bucket. */
  constructor(name: string = DEFAULT_DB_NAME, options?: DexieOptions) {
    super(name, options);
    this.version(1).stores(SCHEMA_V1);
    // To change the schema or the shape of stored rows, add the next version here, e.g.
    //   this.version(2).stores({ runs: 'id, createdAt, status' }).upgrade(async (tx) => {
    //     await tx.table('runs').toCollection().modify((run) => { run.tags ??= []; });
    //   });
    // Dexie runs every upgrade newer than the database's version, in order, inside the
    // version-change transaction; stores() lists only the tables that change (null drops one).
    // Test it as test/storage/db.browser.test.ts does: build a database at the old version with
    // the raw IndexedDB API, open it with ParleyDb and parse the migrated rows with schema.ts.
  }
}

export const openDb = (name: string = DEFAULT_DB_NAME, options?: DexieOptions): ParleyDb => new ParleyDb(name, options);
