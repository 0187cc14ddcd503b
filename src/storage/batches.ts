import Dexie from 'dexie';
import type { AnyGameStore } from './games';
import { negotiationId, type ExportedNegotiation, type NegotiationRow } from './schema';
import type { BatchRow, BatchTables, DigestRow } from './tables';

/**
 * How a run's lines lie in IndexedDB, whatever its game: batch records of a few hundred, each line
 * kept as its export JSON, and beside each batch its digest (same id), which names the batch's game,
 * says what the batch holds and is all that counting, filtering and finding one line read (the rows
 * themselves are typed in tables.ts).
 */

/** Lines per batch record, however they are written (the writer, an import, a migration). */
export const BATCH_SIZE = 500;

/** A batch record of one run's lines, and its digest; both list the lines in plan order. */
export function batchOf<Line>(store: AnyGameStore<Line>, runId: string, lines: readonly Line[]): { batch: BatchRow; digest: DigestRow } {
  const sorted = [...lines].sort((a, b) => store.index(a) - store.index(b));
  const first = sorted.length > 0 ? store.index(sorted[0] as Line) : 0;
  const id = `${runId}:${first}`;
  const digest: DigestRow = {
    id,
    runId,
    first,
    game: store.game,
    jobIds: sorted.map((l) => store.jobId(l)),
    indexes: sorted.map((l) => store.index(l)),
    ...store.columns(sorted),
  };
  return { batch: { id, runId, first, count: sorted.length, negotiations: sorted.map((l) => store.json(l)) }, digest };
}

/**
 * Stores lines of one run, none of them stored yet, in batches of BATCH_SIZE taken in plan order.
 * Call it inside a read-write transaction on both tables. A batch's id is its first index, so a
 * line stored twice fails the write (add, not put) rather than silently replacing a batch.
 */
export async function addBatches<Line>(tables: BatchTables, store: AnyGameStore<Line>, runId: string, lines: readonly Line[]): Promise<void> {
  const sorted = [...lines].sort((a, b) => store.index(a) - store.index(b));
  const made = [];
  for (let i = 0; i < sorted.length; i += BATCH_SIZE) made.push(batchOf(store, runId, sorted.slice(i, i + BATCH_SIZE)));
  await tables.batches.bulkAdd(made.map((m) => m.batch));
  await tables.digests.bulkAdd(made.map((m) => m.digest));
}

const ofRun = (runId: string) => [[runId, Dexie.minKey], [runId, Dexie.maxKey], true, true] as const;

/** A run's batch records, in plan order. */
export const runBatches = (db: BatchTables, runId: string) => db.batches.where('[runId+first]').between(...ofRun(runId));

/** A run's digests, in plan order. */
export const runDigests = (db: BatchTables, runId: string) => db.digests.where('[runId+first]').between(...ofRun(runId));

/** Where one stored line is: its place in the digest, and in the batch of the same id. */
export interface Slot<Columns extends object = object> {
  digest: DigestRow<Columns>;
  at: number;
}

const indexAt = (s: Slot): number => s.digest.indexes[s.at] as number;

/** A run's stored lines in plan order, as slots, read from its digests alone. */
export async function runSlots<Columns extends object = object>(db: BatchTables, runId: string): Promise<Slot<Columns>[]> {
  const slots: Slot<Columns>[] = [];
  for (const digest of (await runDigests(db, runId).toArray()) as DigestRow<Columns>[])
    for (let at = 0; at < digest.jobIds.length; at++) slots.push({ digest, at });
  // Batches written in plan order follow one another; only rows written out of order need a sort.
  for (let i = 1; i < slots.length; i++) if (indexAt(slots[i - 1] as Slot) > indexAt(slots[i] as Slot)) return slots.sort((a, b) => indexAt(a) - indexAt(b));
  return slots;
}

/** Each line's export JSON at `slots`, in that order; `cache` keeps the batches read. */
export async function readJson(db: BatchTables, slots: readonly Slot[], cache: Map<string, string[]> = new Map()): Promise<string[]> {
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
export async function readRows(db: BatchTables, runId: string, slots: readonly Slot[]): Promise<NegotiationRow[]> {
  return (await readJson(db, slots)).map((json) => decode(runId, json));
}

/** Slots read per step of a scan: a chunk spans one or two batches when they were written in order. */
export const SCAN_CHUNK = 500;

/**
 * Hands `visit` a run's lines as export JSON, in plan order, a chunk at a time; each batch
 * is read once and dropped once its last slot has passed. `visit` returns false to stop early.
 */
export async function scanJson(db: BatchTables, runId: string, visit: (json: string[]) => boolean | void): Promise<void> {
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
