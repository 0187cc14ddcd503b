import Dexie, { type Collection, type Table } from 'dexie';
import type { ParleyDb } from './db';
import { digestOf } from './digest';
import { negotiationId, type BatchRow, type DigestRow, type ExportedNegotiation, type NegotiationRow } from './schema';

/**
 * How a run's negotiations lie in IndexedDB: batch records of a few hundred, each negotiation kept
 * as its export JSON, and beside each batch its digest (same id), which says what the batch holds
 * and is all that counting, filtering and finding one negotiation read.
 */

/** Negotiations per batch when rows are stored in bulk (an import or a migration). */
export const BATCH_SIZE = 500;

/** A negotiation as an export file holds it, with its keys in the file's order. */
export const exported = (row: ExportedNegotiation): ExportedNegotiation => ({
  jobId: row.jobId,
  index: row.index,
  buyer: row.buyer,
  seller: row.seller,
  tier: row.tier,
  outcome: row.outcome,
  scenario: row.scenario,
  events: row.events,
});

/** A batch record of one run's rows, and its digest; both list the rows in plan order. */
export function batchOf(runId: string, rows: readonly ExportedNegotiation[]): { batch: BatchRow; digest: DigestRow } {
  const sorted = [...rows].sort((a, b) => a.index - b.index);
  const digest = digestOf(runId, sorted);
  const negotiations = sorted.map((r) => JSON.stringify(exported(r)));
  return { batch: { id: digest.id, runId, first: digest.first, count: sorted.length, negotiations }, digest };
}

export type BatchTables = Pick<ParleyDb, 'batches' | 'digests'>;

/**
 * Stores rows of one run, none of them stored yet, in batches of BATCH_SIZE taken in plan order.
 * Call it inside a read-write transaction on both tables. A batch's id is its first index, so a
 * row stored twice fails the write (add, not put) rather than silently replacing a batch.
 */
export async function addBatches(tables: BatchTables, runId: string, rows: readonly ExportedNegotiation[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => a.index - b.index);
  const made = [];
  for (let i = 0; i < sorted.length; i += BATCH_SIZE) made.push(batchOf(runId, sorted.slice(i, i + BATCH_SIZE)));
  await tables.batches.bulkAdd(made.map((m) => m.batch));
  await tables.digests.bulkAdd(made.map((m) => m.digest));
}

const ofRun = (runId: string) => [[runId, Dexie.minKey], [runId, Dexie.maxKey], true, true] as const;

/** A run's batch records, in plan order. */
export const runBatches = (db: BatchTables, runId: string) =>
  db.batches.where('[runId+first]').between(...ofRun(runId));

/** A run's digests, in plan order. */
export const runDigests = (db: BatchTables, runId: string) =>
  db.digests.where('[runId+first]').between(...ofRun(runId));

/** Where one stored negotiation is: its place in the digest, and in the batch of the same id. */
export interface Slot {
  digest: DigestRow;
  at: number;
}

const indexAt = (s: Slot): number => s.digest.indexes[s.at] as number;

/** A run's stored negotiations in plan order, as slots, read from its digests alone. */
export async function runSlots(db: ParleyDb, runId: string): Promise<Slot[]> {
  const slots: Slot[] = [];
  for (const digest of await runDigests(db, runId).toArray())
    for (let at = 0; at < digest.jobIds.length; at++) slots.push({ digest, at });
  // Batches written in plan order follow one another; only rows written out of order need a sort.
  for (let i = 1; i < slots.length; i++)
    if (indexAt(slots[i - 1] as Slot) > indexAt(slots[i] as Slot)) return slots.sort((a, b) => indexAt(a) - indexAt(b));
  return slots;
}

/** Each negotiation's export JSON at `slots`, in that order; `cache` keeps the batches read. */
export async function readJson(
  db: ParleyDb,
  slots: readonly Slot[],
  cache: Map<string, string[]> = new Map(),
): Promise<string[]> {
  const missing = [...new Set(slots.map((s) => s.digest.id))].filter((id) => !cache.has(id));
  if (missing.length > 0) {
    const batches = await db.batches.bulkGet(missing);
    // A batch gone since its digest was read (its run was deleted meanwhile) reads as empty.
    missing.forEach((id, i) => cache.set(id, batches[i]?.negotiations ?? []));
  }
  const out: string[] = [];
  for (const { digest, at } of slots) {
    const json = cache.get(digest.id)?.[at];
    if (json !== undefined) out.push(json);
  }
  return out;
}

/** A stored negotiation as the app reads it: its export JSON and the ids its run gives it. */
export function decode(runId: string, json: string): NegotiationRow {
  const row = JSON.parse(json) as ExportedNegotiation;
  return { id: negotiationId(runId, row.jobId), runId, ...row };
}

/** The negotiations at `slots`, in that order. */
export async function readRows(db: ParleyDb, runId: string, slots: readonly Slot[]): Promise<NegotiationRow[]> {
  return (await readJson(db, slots)).map((json) => decode(runId, json));
}

/** Slots read per step of a scan: a chunk spans one or two batches when they were written in order. */
export const SCAN_CHUNK = 500;

/**
 * Hands `visit` a run's negotiations as export JSON, in plan order, a chunk at a time; each batch
 * is read once and dropped once its last slot has passed. `visit` returns false to stop early.
 */
export async function scanJson(db: ParleyDb, runId: string, visit: (json: string[]) => boolean | void): Promise<void> {
  const slots = await runSlots(db, runId);
  const lastUse = new Map<string, number>();
  slots.forEach((s, i) => lastUse.set(s.digest.id, i));
  const cache = new Map<string, string[]>();
  for (let from = 0; from < slots.length; from += SCAN_CHUNK) {
    const chunk = slots.slice(from, from + SCAN_CHUNK);
    const json = await readJson(db, chunk, cache);
    for (const s of chunk) if ((lastUse.get(s.digest.id) as number) < from + SCAN_CHUNK) cache.delete(s.digest.id);
    if (json.length > 0 && visit(json) === false) return;
  }
}

/**
 * Version 4's upgrade: every row of the retired one-row-per-negotiation table, in plan order per
 * run, goes into batch records, with digests rebuilt to match them.
 */
export async function batchStoredRows(negotiations: Table<NegotiationRow, string>, tables: BatchTables): Promise<void> {
  await tables.digests.clear();
  let runId: string | null = null;
  let rows: NegotiationRow[] = [];
  const flush = async () => {
    if (runId !== null && rows.length > 0) await addBatches(tables, runId, rows);
    rows = [];
  };
  let after: [string, number] | null = null;
  for (;;) {
    const from: Collection<NegotiationRow, string> =
      after === null ? negotiations.orderBy('[runId+index]') : negotiations.where('[runId+index]').above(after);
    const page: NegotiationRow[] = await from.limit(BATCH_SIZE).toArray();
    for (const row of page) {
      if (row.runId !== runId || rows.length === BATCH_SIZE) await flush();
      runId = row.runId;
      rows.push(row);
    }
    const last: NegotiationRow | undefined = page.at(-1);
    if (last === undefined || page.length < BATCH_SIZE) break;
    after = [last.runId, last.index];
  }
  await flush();
}
