import Dexie, { type DexieOptions, type EntityTable } from 'dexie';
import type { StoredRun } from './games';
import { batchStoredRows, digestStoredRows, foldMarketTables, tablesOf } from './migrations';
import type { NegotiationRow } from './schema';
import type { BatchRow, DigestRow } from './tables';

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

/**
 * Version 2 adds digests: per written batch, the few fields the Runs page filters on, so that
 * filtering a run reads a few small rows instead of every negotiation's event log.
 */
export const SCHEMA_V2 = { digests: 'id, [runId+first]' } as const;

/** Version 3 adds keys: a provider's API key and base URL, only where the user asked to remember them. */
export const SCHEMA_V3 = { keys: 'provider' } as const;

/**
 * Version 4 stores negotiations in batch records of up to 500 instead of one row each (IndexedDB
 * costs per record, not per byte) and drops the old table; each digest now matches one batch.
 */
export const SCHEMA_V4 = { negotiations: null, batches: 'id, [runId+first]' } as const;

/**
 * Version 5 adds market runs: their run records apart from the bilateral ones (a different config
 * and standings), and their markets in batch records of a few hundred, as negotiations are kept.
 */
export const SCHEMA_V5 = { marketRuns: 'id, createdAt', marketBatches: 'id, [runId+first]' } as const;

/**
 * Version 6 keeps every game's runs in one store: market runs move into `runs` and their markets
 * into `batches` (with digests), and the market tables go; every run row and digest names its game.
 */
export const SCHEMA_V6 = { marketRuns: null, marketBatches: null } as const;

export interface KeyRow {
  provider: string;
  apiKey: string;
  baseUrl: string;
}

export class ParleyDb extends Dexie {
  // `declare`: a class field would be set to undefined after Dexie has created the table.
  declare runs: EntityTable<StoredRun, 'id'>;
  declare batches: EntityTable<BatchRow, 'id'>;
  declare settings: EntityTable<SettingRow, 'key'>;
  declare digests: EntityTable<DigestRow, 'id'>;
  declare keys: EntityTable<KeyRow, 'provider'>;

  /** `options.indexedDB` can place the database elsewhere, e.g. in a storage bucket. */
  constructor(name: string = DEFAULT_DB_NAME, options?: DexieOptions) {
    super(name, options);
    this.version(1).stores(SCHEMA_V1);
    this.version(2).stores(SCHEMA_V2).upgrade(digestStoredRows);
    this.version(3).stores(SCHEMA_V3);
    // Dexie drops a table only after the upgrade of the version that drops it, so this one reads it.
    this.version(4)
      .stores(SCHEMA_V4)
      .upgrade((tx) => batchStoredRows(tx.table<NegotiationRow, string>('negotiations'), tablesOf(tx)));
    // New tables only: nothing stored before is touched.
    this.version(5).stores(SCHEMA_V5);
    this.version(6).stores(SCHEMA_V6).upgrade(foldMarketTables);
    // To change the schema or the shape of stored rows, add the next version here, e.g.
    //   this.version(7).stores({ runs: 'id, createdAt, status' }).upgrade(async (tx) => {
    //     await tx.table('runs').toCollection().modify((run) => { run.tags ??= []; });
    //   });
    // Dexie runs every upgrade newer than the database's version, in order, inside the
    // version-change transaction; stores() lists only the tables that change (null drops one).
    // Test it as test/storage/db.browser.test.ts does: build a database at the old version with
    // the raw IndexedDB API, open it with ParleyDb and parse the migrated rows with schema.ts.
  }
}

export const openDb = (name: string = DEFAULT_DB_NAME, options?: DexieOptions): ParleyDb => new ParleyDb(name, options);
