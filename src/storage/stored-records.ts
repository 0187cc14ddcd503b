/**
 * Stored records read back: a run row of either game or a negotiation is parsed before a page
 * uses it, so one record that cannot be read (written by a bug, an old version, or edited by hand)
 * is set apart as damaged, with the reason, instead of breaking every page that lists it.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../engine/result';
import { MarketStandingRowSchema, type MarketStandingRow } from '../games/market/aggregate';
import { RATE_NAMES } from '../games/bilateral/aggregate';
import { RoleSchema } from '../games/bilateral/scenario';
import { MarketRunRecordSchema, type MarketRunRow } from './market-schema';
import { NegotiationRowSchema, RunRecordSchema, type NegotiationRow, type RunRow, type StoredStandings } from './schema';

/** A stored run that cannot be read: what can be told of it, and why it cannot be read. */
export interface DamagedRun {
  /** The game it says it is of (a GameName, games/index.ts), or null where it names none that this Parley knows. */
  game: string | null;
  id: string;
  /** Its name where that much is readable, else null. */
  name: string | null;
  createdAt: number | null;
  problem: string;
}

/** A stored run as read back: readable (perhaps with a part set aside, `note` says which), or damaged. */
export type Checked<Row> = Result<{ run: Row; note: string | null }, DamagedRun>;

/** The first thing wrong with a record, as `where: what` (`config: expected object, received null`). */
export function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it could not be read';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** A row of `game` its schema refuses: what can be told of it, and why (a game's `checkRun` says so). */
export const damaged = (game: string | null, raw: unknown, problem: string): DamagedRun => {
  const fields = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  return {
    game,
    id: String(fields.id ?? ''),
    name: typeof fields.name === 'string' ? fields.name : null,
    createdAt: typeof fields.createdAt === 'number' && Number.isFinite(fields.createdAt) ? fields.createdAt : null,
    problem,
  };
};

// Standings are derived data (an export leaves them out, an import recomputes them), so they are
// only checked for the shape the pages read. Old runs lack newer fields; those are optional here.
const rate = z.number().nullable().optional();
const interval = z.tuple([z.number(), z.number()]).nullable().optional();
const perRate = <T extends z.ZodType>(schema: T) => Object.fromEntries(RATE_NAMES.map((name) => [name, schema])) as Record<string, T>;
const standingRow = {
  agent: z.string(),
  role: RoleSchema,
  n: z.number(),
  errors: z.number().optional(),
  ...perRate(rate),
  ci: z.looseObject(perRate(interval)).optional(),
};
const StoredStandingsShape = z.looseObject({
  leaderboard: z.array(z.looseObject(standingRow)),
  byTier: z.array(z.looseObject({ ...standingRow, tier: z.number() })),
  byZone: z.array(z.looseObject({ ...standingRow, zone: z.unknown() })).optional(),
  pairs: z.array(z.looseObject({ buyer: z.string(), seller: z.string(), n: z.number() })),
  dealPositions: z.looseObject({ bins: z.array(z.number()), below: z.number(), above: z.number() }).optional(),
  usage: z.looseObject({ byAgent: z.array(z.looseObject({ agent: z.string() })), total: z.looseObject({}) }).optional(),
  intervals: z.looseObject({}).nullable().optional(),
});

const STANDINGS_NOTE = 'its stored standings could not be read, so none are shown; export the run and import the file to recompute them';

// A row without a game was written by an older tab of Parley, which knew only the bilateral game.
const StoredRunSchema = RunRecordSchema.extend({ game: z.literal('bilateral').default('bilateral') });
const StoredMarketRunSchema = MarketRunRecordSchema.extend({ game: z.literal('market') });

/** A stored bilateral run row, parsed (legacy fields read as today's); its standings are kept only if readable. */
export function checkRunRow(raw: unknown): Checked<RunRow> {
  const record = StoredRunSchema.safeParse(raw, { jitless: true });
  if (!record.success) return err(damaged('bilateral', raw, issueText(record.error)));
  const stored = (raw as { standings?: unknown }).standings ?? null;
  if (stored === null) return ok({ run: { ...record.data, standings: null }, note: null });
  const readable = StoredStandingsShape.safeParse(stored, { jitless: true }).success;
  return readable
    ? ok({ run: { ...record.data, standings: stored as StoredStandings }, note: null })
    : ok({ run: { ...record.data, standings: null }, note: STANDINGS_NOTE });
}

/** A stored market run row, parsed; its standings are kept only if readable. */
export function checkMarketRunRow(raw: unknown): Checked<MarketRunRow> {
  const record = StoredMarketRunSchema.safeParse(raw, { jitless: true });
  if (!record.success) return err(damaged('market', raw, issueText(record.error)));
  const run = record.data;
  const stored = (raw as { standings?: unknown }).standings ?? null;
  if (stored === null) return ok({ run: { ...run, standings: null }, note: null });
  const standings = z.array(MarketStandingRowSchema).safeParse(stored, { jitless: true });
  return standings.success
    ? ok({ run: { ...run, standings: stored as MarketStandingRow[] }, note: null })
    : ok({ run: { ...run, standings: null }, note: STANDINGS_NOTE });
}

/** A stored row that names no game this Parley knows: damaged, whatever else it holds. */
export const unknownGame = (raw: unknown): Checked<never> => {
  const game = (raw as { game?: unknown }).game;
  const shown = typeof game === 'string' ? `"${game.slice(0, 60)}"` : typeof game;
  return err(damaged(null, raw, `game: ${shown} is no game this Parley knows`));
};

/** A stored negotiation (already decoded from its JSON), parsed: its scenario and every event; else the first thing wrong with it. */
export function checkNegotiation(raw: unknown): Result<NegotiationRow, string> {
  const row = NegotiationRowSchema.safeParse(raw, { jitless: true });
  return row.success ? ok(row.data) : err(issueText(row.error));
}

/** Readable runs newest first; the damaged ones apart, newest first, those without a readable time last (in key order). */
export function sortChecked<Row extends { createdAt: number }>(
  checked: readonly Checked<Row>[],
): { runs: Row[]; notes: Map<string, string>; damaged: DamagedRun[] } {
  const runs: Row[] = [];
  const notes = new Map<string, string>();
  const broken: DamagedRun[] = [];
  for (const c of checked) {
    if (!c.ok) broken.push(c.error);
    else {
      runs.push(c.value.run);
      if (c.value.note) notes.set((c.value.run as unknown as { id: string }).id, c.value.note);
    }
  }
  runs.sort((a, b) => b.createdAt - a.createdAt);
  broken.sort((a, b) => (b.createdAt ?? -1) - (a.createdAt ?? -1));
  return { runs, notes, damaged: broken };
}

export const SALVAGE_FORMAT = 'parley-salvage';
/** Version 2 names the run's game where version 1 named its table (`runs`, `marketRuns`). */
export const SALVAGE_VERSION = 2;

/**
 * What can be read of a damaged run, as one JSON file: the record as stored, each of its items
 * (negotiations or markets, listed under `items`) that parses, and where the others were and why
 * they could not be read. It is not a run file (a damaged run has none that would pass an import);
 * it keeps the data for whoever mends it.
 */
export function salvageFile(
  game: string | null,
  record: unknown,
  problem: string,
  batches: readonly { id: unknown; items: unknown }[],
  items: string,
  check: (item: unknown) => string | null,
): string {
  const readable: unknown[] = [];
  const unreadable: { batch: string; at: number | null; problem: string }[] = [];
  for (const batch of batches) {
    const id = String(batch.id);
    if (!Array.isArray(batch.items)) {
      unreadable.push({ batch: id, at: null, problem: 'the batch holds no list' });
      continue;
    }
    batch.items.forEach((json: unknown, at) => {
      let item: unknown;
      try {
        item = typeof json === 'string' ? JSON.parse(json) : json;
      } catch {
        unreadable.push({ batch: id, at, problem: 'not JSON' });
        return;
      }
      const wrong = check(item);
      if (wrong === null) readable.push(item);
      else unreadable.push({ batch: id, at, problem: wrong });
    });
  }
  return JSON.stringify({ format: SALVAGE_FORMAT, version: SALVAGE_VERSION, game, problem, record: jsonSafe(record), [items]: readable, unreadable }, null, 1);
}

/** A stored value as JSON can hold it: IndexedDB also keeps big integers and cycles, which JSON cannot. */
function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null');
  } catch {
    return { unreadable: 'the record cannot be written as JSON' };
  }
}
