/**
 * What makes two stored runs the same game, whatever they are called: the same start time, the
 * same config and the same negotiations (seats, scenario, every event). The start time is part of
 * it because two students who play a lesson's fixed scenario against a deterministic bot the same
 * way write identical logs; the name, id, status and update time are not, so a file handed in twice,
 * a renamed copy and the result link of a game already imported are one game.
 */
import { scanJson } from './batches';
import { ExportedNegotiationSchema, type ExportedNegotiation, type RunRecord } from './schema';
import { checkRunRow } from './stored-records';
import type { RunTables } from './tables';

/** JSON with every object's keys sorted, so that key order (the runner's or zod's) never matters. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

type Played = Pick<ExportedNegotiation, 'jobId' | 'buyer' | 'seller' | 'scenario' | 'events'>;

/** A run's content as one string: equal strings, the same game. */
export const contentKey = (run: Pick<RunRecord, 'createdAt' | 'config'>, rows: readonly Played[]): string =>
  canonicalJson({
    createdAt: run.createdAt,
    config: run.config,
    negotiations: [...rows]
      .sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0))
      .map((r) => ({ jobId: r.jobId, buyer: r.buyer, seller: r.seller, scenario: r.scenario, events: r.events })),
  });

/**
 * The stored run that holds the same game as `run` and `rows`, or null. Only runs that started at
 * the same moment can be the same game, so only those (found by the createdAt index) are read.
 * A stored run that cannot be read is never the same. Call it inside a transaction on runs and batches.
 */
export async function sameStoredGame(
  db: RunTables,
  run: Pick<RunRecord, 'createdAt' | 'config'>,
  rows: readonly Played[],
): Promise<{ id: string; name: string } | null> {
  const key = contentKey(run, rows);
  const candidates = (await db.runs.where('createdAt').equals(run.createdAt).toArray()) as unknown[];
  for (const raw of candidates) {
    // Read as an import reads a file, so that defaults filled in on reading (older records) compare equal.
    const checked = checkRunRow(raw);
    if (!checked.ok || checked.value.run.config.kind !== run.config.kind) continue;
    const stored = checked.value.run;
    try {
      const held: Played[] = [];
      await scanJson(db, stored.id, (json) => {
        for (const line of json) held.push(ExportedNegotiationSchema.parse(JSON.parse(line)));
      });
      if (held.length === rows.length && contentKey(stored, held) === key) return { id: stored.id, name: stored.name };
    } catch {
      // A damaged record is not the same game as a readable one.
    }
  }
  return null;
}
