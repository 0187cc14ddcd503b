/**
 * The rows of the tables a run's lines lie in, and the tables that code below db.ts reads: named
 * here, apart from db.ts, because db.ts's upgrades import that code (batches.ts, the games' store
 * parts), and a type they took from db.ts would close a circle of imports.
 */
import type { EntityTable, Table } from 'dexie';

/**
 * A few hundred lines of one run in one record: IndexedDB costs per record, not per byte. Each line
 * is kept as its export JSON, so one can be read without parsing the others.
 */
export interface BatchRow {
  /** `${runId}:${first}`. */
  id: string;
  runId: string;
  /** The batch's smallest plan index. */
  first: number;
  count: number;
  /**
   * Each line's JSON (a negotiation, a market: its game's `json`), in ascending plan index. The field
   * keeps the first game's name, so that no batch stored before markets joined the table is rewritten.
   */
  negotiations: string[];
}

/**
 * One batch's digest: its game, where each of its lines is (the batch record with the same id holds
 * the line at the same position) and, per game, the columns its run's lists filter and count on.
 */
export type DigestRow<Columns extends object = object> = {
  /** `${runId}:${first}`, the id of its batch. */
  id: string;
  runId: string;
  first: number;
  /** A GameName (games/index.ts): built in or registered. */
  game: string;
  jobIds: string[];
  /** Plan indexes (a batch holds them in ascending order). */
  indexes: number[];
} & Columns;

/** The tables a run's lines lie in: its batch records and their digests (db.ts's ParleyDb has them). */
export interface BatchTables {
  batches: EntityTable<BatchRow, 'id'>;
  digests: EntityTable<DigestRow, 'id'>;
}

/** What an import reads to find a run already stored: the runs, as stored (each is checked before use), and their lines. */
export interface RunTables extends BatchTables {
  runs: Table<unknown, string>;
}
