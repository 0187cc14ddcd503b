/**
 * Market runs as stored, exported and imported: a market tournament (sellers over a grid of
 * configurations) or one Market-page game, which is the same thing with one seller, one
 * configuration and one market.
 */
import { z } from 'zod';
import type { MarketStandingRow } from '../games/market/aggregate';
import { MarketEventSchema, MarketResultSchema, type MarketEvent } from '../games/market/events';
import { MarketConfigSchema, MarketScenarioSchema } from '../games/market/scenario';
import type { MarketTournamentConfig, MarketTournamentResult } from '../games/market/tournament';
import { LlmSettingsSchema } from '../agents/llm/settings';
import { runRecordShape } from './schema';
import { SeedSchema } from '../engine/rng';

const spec = z.string().min(1).max(500);
const count = z.int().nonnegative();
/** A configuration's name and a market's job id: both join other names with ':' in ids and keys. */
const colonFree = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^:]*$/, { message: 'must not contain ":"' });

export const NamedMarketConfigSchema = z.object({
  name: colonFree(100),
  heldOut: z.boolean(),
  summary: z.string().max(500),
  config: MarketConfigSchema,
});

/** What a market run plays: the CLI's stored config, with the model settings where the app ran it. */
export const MarketRunConfigSchema = z.object({
  sellers: z.array(spec).min(1).max(32),
  buyer: spec,
  configs: z.array(NamedMarketConfigSchema).min(1).max(64),
  marketsPerConfig: z.int().min(1).max(100_000),
  seed: SeedSchema,
  /** Bootstrap resamples for the standings' intervals (0: none). */
  samples: z.int().min(0).max(100_000),
  /** How the model seats were asked for their moves (absent in the CLI's files: the defaults). */
  llm: LlmSettingsSchema.optional(),
  /** One game played on the Market page (one seller, one configuration, one market). */
  game: z.boolean().optional(),
});
export type MarketRunConfig = z.infer<typeof MarketRunConfigSchema>;

const marketRecord = runRecordShape(MarketRunConfigSchema);
export const MarketRunRecordSchema = z.object({
  ...marketRecord,
  // The CLI's market files before the run file named its game had none (the key keeps its place).
  message: marketRecord.message.default(null),
});
export type MarketRunRecord = z.infer<typeof MarketRunRecordSchema>;

/** A stored market run; its standings are derived (an import recomputes them). */
export interface MarketRunRow extends MarketRunRecord {
  game: 'market';
  standings: MarketStandingRow[] | null;
}

/** Events in one market: a budget of at most 10,000 seller turns, each with its answer and retries. */
const MAX_EVENTS = 200_000;

/** One market of a run, as it is stored and as a run file's line holds it; `id` is its job id. */
export const MarketLineSchema = z.object({
  id: colonFree(300),
  /** Its place in the run's plan. */
  index: count,
  config: z.string().min(1).max(100),
  heldOut: z.boolean(),
  marketIndex: count,
  seller: spec,
  buyer: spec,
  scenario: MarketScenarioSchema,
  events: z.array(MarketEventSchema).min(1).max(MAX_EVENTS),
  outcome: MarketResultSchema,
});
/** Parsed events are ones the runner could have written (events.ts checks it), so a line holds the runner's type. */
export type MarketLine = Omit<z.infer<typeof MarketLineSchema>, 'events'> & { events: MarketEvent[] };

/** A finished market as its run stores it (metrics are a fold over the events, so they are not kept). */
export const marketLine = (r: MarketTournamentResult): MarketLine => ({
  id: r.id,
  index: r.index,
  config: r.config.name,
  heldOut: r.config.heldOut,
  marketIndex: r.marketIndex,
  seller: r.seller,
  buyer: r.buyer,
  scenario: r.scenario,
  events: r.events,
  outcome: r.outcome,
});

/**
 * A market as a file's line may hold it: with its metrics (derived data, which exports write and an
 * import checks against the log), and without its plan index in files written before version 4.
 */
export const MarketFileLineSchema = MarketLineSchema.extend({
  index: count.optional(),
  metrics: z.record(z.string(), z.unknown()).optional(),
});
export type MarketFileLine = Omit<z.infer<typeof MarketFileLineSchema>, 'events'> & { events: MarketEvent[] };

/**
 * What a market run's lists filter and count on, beyond job ids and plan indexes: nothing yet (the
 * run page counts and pages its markets), so a market digest has no columns of its own.
 */
export type MarketColumns = Record<never, never>;

/** The core's tournament config from a stored one (configs keep their names and held-out marks). */
export const tournamentOf = (c: MarketRunConfig): MarketTournamentConfig => ({
  sellers: c.sellers,
  buyer: c.buyer,
  configs: c.configs.map((n) => ({ name: n.name, summary: n.summary, heldOut: n.heldOut, config: n.config })),
  marketsPerConfig: c.marketsPerConfig,
  seed: c.seed,
});
