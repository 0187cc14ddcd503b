/** Market runs in IndexedDB: the run record, and its markets in batch records in plan order. */
import Dexie from 'dexie';
import type { MarketTournamentResult } from '../core/market/tournament';
import type { ParleyDb } from './db';
import { asStorageError } from './errors';
import { MarketLineSchema, type MarketBatchRow, type MarketLine, type MarketRunConfig, type MarketRunRow } from './market-schema';
import { checkMarketRunRow, issueText, salvageFile, sortChecked, type Checked, type DamagedRun } from './stored-records';

/** Markets per batch record. */
export const MARKET_BATCH_SIZE = 200;

export async function createMarketRun(
  db: ParleyDb,
  init: { id: string; name: string; config: MarketRunConfig; planned: number; createdAt: number },
): Promise<MarketRunRow> {
  const run: MarketRunRow = { ...init, updatedAt: init.createdAt, status: 'running', done: 0, message: null, standings: null };
  await db.marketRuns.add(run);
  return run;
}

export const getMarketRun = (db: ParleyDb, id: string): Promise<MarketRunRow | undefined> => db.marketRuns.get(id);

/** Newest first. */
export const listMarketRuns = (db: ParleyDb): Promise<MarketRunRow[]> => db.marketRuns.orderBy('createdAt').reverse().toArray();

/** Every stored market run, parsed: the readable ones newest first, and the damaged ones apart (as readRuns). */
export async function readMarketRuns(db: ParleyDb): Promise<{ runs: MarketRunRow[]; notes: Map<string, string>; damaged: DamagedRun[] }> {
  return sortChecked((await db.marketRuns.toArray()).map((raw: unknown) => checkMarketRunRow(raw)));
}

/** One stored market run, parsed; undefined when there is none with that id. */
export async function readMarketRun(db: ParleyDb, id: string): Promise<Checked<MarketRunRow> | undefined> {
  const raw: unknown = await db.marketRuns.get(id);
  return raw === undefined ? undefined : checkMarketRunRow(raw);
}

/** What can be read of a stored market run, damaged or not, as one JSON file (see salvageFile); null when there is none. */
export async function salvageMarketRun(db: ParleyDb, id: string): Promise<{ name: string; text: string } | null> {
  return db.transaction('r', db.marketRuns, db.marketBatches, async () => {
    const raw: unknown = await db.marketRuns.get(id);
    if (raw === undefined) return null;
    const checked = checkMarketRunRow(raw);
    const problem = checked.ok ? (checked.note ?? 'none: the run record reads') : checked.damaged.problem;
    const batches = ((await marketBatchesOf(db, id).toArray()) as unknown[] as Partial<Record<string, unknown>>[]).map((b) => ({ id: b.id, items: b.markets }));
    const check = (item: unknown) => {
      const parsed = MarketLineSchema.safeParse(item, { jitless: true });
      return parsed.success ? null : issueText(parsed.error);
    };
    const name = checked.ok ? checked.run.name : (checked.damaged.name ?? 'market');
    return { name, text: salvageFile('marketRuns', raw, problem, batches, check) };
  });
}

export async function updateMarketRun(db: ParleyDb, id: string, patch: Partial<Omit<MarketRunRow, 'id'>>): Promise<void> {
  await db.marketRuns.update(id, patch);
}

const ofRun = (runId: string) => [[runId, Dexie.minKey], [runId, Dexie.maxKey], true, true] as const;
export const marketBatchesOf = (db: Pick<ParleyDb, 'marketBatches'>, runId: string) =>
  db.marketBatches.where('[runId+first]').between(...ofRun(runId));

/** The run and all its markets, together or not at all. */
export async function deleteMarketRun(db: ParleyDb, id: string): Promise<void> {
  await db.transaction('rw', db.marketRuns, db.marketBatches, async () => {
    await marketBatchesOf(db, id).delete();
    await db.marketRuns.delete(id);
  });
}

/** A finished market as its run stores it (metrics are a fold over the events, so they are not kept). */
export const marketLine = (r: MarketTournamentResult): MarketLine => ({
  id: r.id,
  config: r.config.name,
  heldOut: r.config.heldOut,
  marketIndex: r.marketIndex,
  seller: r.seller,
  buyer: r.buyer,
  scenario: r.scenario,
  events: r.events,
  outcome: r.outcome,
});

/** Every stored market of a run, in plan order. */
export async function loadMarkets(db: ParleyDb, runId: string): Promise<MarketLine[]> {
  const batches = await marketBatchesOf(db, runId).toArray();
  return batches.flatMap((b) => b.markets.map((json) => JSON.parse(json) as MarketLine));
}

/** Stores lines (plan order, none stored yet) from plan index `first` on, in batch records. */
export async function addMarketBatches(db: Pick<ParleyDb, 'marketBatches'>, runId: string, first: number, lines: readonly MarketLine[]): Promise<void> {
  const rows: MarketBatchRow[] = [];
  for (let i = 0; i < lines.length; i += MARKET_BATCH_SIZE)
    rows.push({ id: `${runId}:${first + i}`, runId, first: first + i, markets: lines.slice(i, i + MARKET_BATCH_SIZE).map((l) => JSON.stringify(l)) });
  await db.marketBatches.bulkAdd(rows);
}

/**
 * Buffers a run's finished markets (they arrive in plan order) and writes each batch in one
 * transaction with the run's `done`, so progress never counts a market that is not stored.
 */
export class MarketWriter {
  private pending: MarketLine[] = [];
  private lastFlushAt: number;

  constructor(
    private readonly db: ParleyDb,
    private readonly runId: string,
    private stored: number,
    private readonly now: () => number,
    private readonly maxDelayMs = 250,
  ) {
    this.lastFlushAt = now();
  }

  get done(): number {
    return this.stored;
  }

  async add(line: MarketLine): Promise<void> {
    this.pending.push(line);
    if (this.pending.length >= MARKET_BATCH_SIZE || this.now() - this.lastFlushAt >= this.maxDelayMs) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const lines = this.pending;
    const { db, runId } = this;
    try {
      await db.transaction('rw', db.marketRuns, db.marketBatches, async () => {
        // A run deleted while it was playing must not come back as orphaned markets.
        if ((await db.marketRuns.where('id').equals(runId).count()) === 0) return;
        await addMarketBatches(db, runId, this.stored, lines);
        await db.marketRuns.update(runId, { done: this.stored + lines.length, updatedAt: this.now() });
      });
    } catch (e) {
      throw asStorageError(e);
    }
    this.stored += lines.length;
    this.pending = [];
    this.lastFlushAt = this.now();
  }
}
