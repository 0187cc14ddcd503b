/**
 * The upgrades of the versions that changed stored rows (db.ts lists every version). Each runs
 * inside the version-change transaction, on the tables as the version before left them.
 */
import type { Collection, EntityTable, Table, Transaction } from 'dexie';
import Dexie from 'dexie';
import { randomId } from '../engine/id';
import { addBatches, BATCH_SIZE, batchOf } from './batches';
import { bilateralStore } from './games/bilateral';
import { marketStore } from './games/market';
import { MarketFileLineSchema, type MarketColumns, type MarketLine } from './market-schema';
import type { NegotiationRow } from './schema';
import type { BatchRow, BatchTables, DigestRow } from './tables';

const DIGEST_SIZE = 500;

/** Version 2's upgrade: each run's negotiations, in plan order, digested 500 at a time. */
export async function digestStoredRows(tx: Transaction): Promise<void> {
  const byRun = new Map<string, NegotiationRow[]>();
  await tx
    .table<NegotiationRow>('negotiations')
    .orderBy('[runId+index]')
    .each((row) => {
      const rows = byRun.get(row.runId) ?? [];
      rows.push(row);
      byRun.set(row.runId, rows);
    });
  for (const [runId, rows] of byRun) {
    const digests: DigestRow[] = [];
    for (let i = 0; i < rows.length; i += DIGEST_SIZE) digests.push(batchOf(bilateralStore, runId, rows.slice(i, i + DIGEST_SIZE)).digest);
    await tx.table('digests').bulkPut(digests);
  }
}

export const tablesOf = (tx: Transaction): BatchTables => ({
  batches: tx.table('batches') as EntityTable<BatchRow, 'id'>,
  digests: tx.table('digests') as EntityTable<DigestRow, 'id'>,
});

/**
 * Version 4's upgrade: every row of the retired one-row-per-negotiation table, in plan order per
 * run, goes into batch records, with digests rebuilt to match them.
 */
export async function batchStoredRows(negotiations: Table<NegotiationRow, string>, tables: BatchTables): Promise<void> {
  await tables.digests.clear();
  let runId: string | null = null;
  let rows: NegotiationRow[] = [];
  const flush = async () => {
    if (runId !== null && rows.length > 0) await addBatches(tables, bilateralStore, runId, rows);
    rows = [];
  };
  let after: [string, number] | null = null;
  for (;;) {
    const from: Collection<NegotiationRow, string> = after === null ? negotiations.orderBy('[runId+index]') : negotiations.where('[runId+index]').above(after);
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

/** A version-5 market batch record, as that version's writer left it (a damaged one holds anything). */
interface MarketBatchV5 {
  id: string;
  runId: string;
  first: number;
  /** Each market's JSON, in plan order from `first`, without its plan index. */
  markets: unknown;
}

/** Market batches moved per step of version 6's upgrade (each holds up to 200 markets). */
const MOVE_PAGE = 20;

/**
 * Version 6's upgrade: one store for both games. Every run row and digest stored so far is marked
 * bilateral (batch records are not rewritten: their digests carry the game); every market run goes
 * into `runs`, marked market, and each of its batch records into `batches` with a digest, each
 * market given its plan index. What cannot be read stays as it was, to be listed as damaged and
 * salvaged: a market record whose fields do not parse, a market whose JSON does not.
 */
export async function foldMarketTables(tx: Transaction): Promise<void> {
  const runs = tx.table('runs');
  const { batches, digests } = tablesOf(tx);
  await runs.toCollection().modify((run: Record<string, unknown>) => {
    run.game ??= 'bilateral';
  });
  await digests.toCollection().modify((digest: Record<string, unknown>) => {
    digest.game ??= 'bilateral';
  });
  const ofRun = (id: string) => batches.where('[runId+first]').between([id, Dexie.minKey], [id, Dexie.maxKey], true, true);
  const taken = async (id: string) => (await runs.where('id').equals(id).count()) > 0 || (await ofRun(id).count()) > 0;
  // Both kinds of run were given fresh ids, and imports kept them apart; should two share one all the
  // same, the market run takes a new id rather than the upgrade fail (which would leave nothing readable).
  const movedTo = new Map<string, string>();
  for (const row of (await tx.table('marketRuns').toArray()) as Record<string, unknown>[]) {
    const old = row.id as string;
    let id = old;
    while (await taken(id)) id = randomId();
    movedTo.set(old, id);
    await runs.add({ ...row, id, game: 'market' });
  }
  let after: string | null = null;
  for (;;) {
    const marketBatches = tx.table<MarketBatchV5, string>('marketBatches');
    const page: MarketBatchV5[] = await (after === null ? marketBatches.orderBy(':id') : marketBatches.where(':id').above(after)).limit(MOVE_PAGE).toArray();
    for (const old of page) {
      const moved = marketBatchOf({ ...old, runId: movedTo.get(old.runId) ?? old.runId });
      await batches.add(moved.batch);
      await digests.add(moved.digest);
    }
    const last = page.at(-1);
    if (last === undefined || page.length < MOVE_PAGE) break;
    after = last.id;
  }
}

/** A version-5 market batch as a batch record and its digest; a market that cannot be read is kept as it was. */
function marketBatchOf(old: MarketBatchV5): { batch: BatchRow; digest: DigestRow<MarketColumns> } {
  const first = old.first;
  const id = `${old.runId}:${first}`;
  const list: unknown[] = Array.isArray(old.markets) ? old.markets : [];
  const json: string[] = [];
  const digest: DigestRow<MarketColumns> = { id, runId: old.runId, first, game: 'market', jobIds: [], indexes: [] };
  list.forEach((item, at) => {
    const index = first + at;
    const line = readable(item, index);
    json.push(line ? marketStore.json(line) : (item as string));
    // An unreadable market has no job id: '' is none that a job can have, so resuming plays it again.
    digest.jobIds.push(line?.id ?? '');
    digest.indexes.push(index);
  });
  // A record whose markets are no list keeps what it holds, for the salvage to report.
  const negotiations = (Array.isArray(old.markets) ? json : old.markets) as string[];
  return { batch: { id, runId: old.runId, first, count: json.length, negotiations }, digest };
}

function readable(item: unknown, index: number): MarketLine | null {
  if (typeof item !== 'string') return null;
  try {
    const parsed = MarketFileLineSchema.safeParse(JSON.parse(item), { jitless: true });
    return parsed.success ? ({ ...parsed.data, index } as MarketLine) : null;
  } catch {
    return null;
  }
}
