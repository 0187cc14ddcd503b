import { z } from 'zod';
import { DEFAULT_DEADLINE, DEFAULT_FIRST_MOVER, DeadlineSchema, FirstMoverSchema, PresetSchema, ScenarioSchema } from '../games/bilateral/scenario';
import { BilateralEventSchema, OUTCOME_KINDS, type OutcomeKind } from '../games/bilateral/events';
import type { NegotiationResult, TournamentConfig } from '../games/bilateral/tournament';
import type { Standings } from '../games/bilateral/aggregate';
import { MAX_FILE_SCENARIOS } from '../games/bilateral/scenario-file';
import { scenarioProblem } from '../games/bilateral/replay';
import { DEFAULT_LLM_SETTINGS, llmSettings, LlmSettingsSchema, type LlmSettings } from '../agents/llm/settings';
import { SeedSchema } from '../engine/rng';
import type { Same } from '../engine/types';

/** Run ids. */
const id = z.string().min(1).max(200);
/**
 * Job ids. Keys join a run's id to what follows with ':' (a negotiation is `${runId}:${jobId}`, a
 * batch `${runId}:${first}`); with no ':' after the run's id, a key splits one way only at its
 * last ':', so no two runs' keys are the same string, whatever the run ids hold.
 */
const jobId = id.regex(/^[^:]*$/, { message: `must not contain ":" (it ends a run's id in the keys that negotiations are stored under)` });
/** An agent as it is named in results: its spec text. */
const agentName = z.string().min(1).max(200);
const timestamp = z.number().finite().nonnegative();
const count = z.int().nonnegative();
const tier = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]);

/** Runs stored before deadlines had a kind kept a fixed `turnLimit`: read it as a fixed deadline. */
const legacyDeadline = (raw: unknown): unknown => {
  if (typeof raw !== 'object' || raw === null || 'deadline' in raw || !('turnLimit' in raw)) return raw;
  const { turnLimit, ...rest } = raw as { turnLimit: unknown };
  return { ...rest, deadline: { kind: 'fixed', turns: turnLimit } };
};

/**
 * Runs stored before the model settings were recorded have none: read them as today's defaults
 * (their scripted agents never used them; a resumed model run plays under these).
 */
const withLlmDefaults = (raw: unknown): unknown =>
  typeof raw === 'object' && raw !== null && !('llm' in raw) ? { ...raw, llm: { ...DEFAULT_LLM_SETTINGS } } : raw;

export const TournamentConfigSchema = z.preprocess(
  (raw) => withLlmDefaults(legacyDeadline(raw)),
  z
    .object({
      agents: z.array(agentName).min(1).max(64),
      scenariosPerPair: z.int().min(1).max(1_000_000),
      preset: PresetSchema,
      seed: SeedSchema,
      selfPlay: z.boolean(),
      deadline: DeadlineSchema,
      firstMover: FirstMoverSchema,
      /** How every model seat was asked for its moves: interface, temperature, token limit, thinking. */
      llm: LlmSettingsSchema,
      /**
       * A scenario file's scenarios, played instead of drawn ones (absent for drawn ones, so runs
       * stored before files existed read unchanged). With them, `scenariosPerPair` is their number,
       * and `preset`, `deadline` and `firstMover` do not apply (Parley writes the defaults there).
       */
      scenarios: z.array(ScenarioSchema).min(1).max(MAX_FILE_SCENARIOS).optional(),
    })
    .superRefine((t, ctx) => {
      if (t.scenarios === undefined) return;
      if (t.scenariosPerPair !== t.scenarios.length)
        ctx.addIssue({ code: 'custom', path: ['scenariosPerPair'], message: `is ${t.scenariosPerPair} but scenarios holds ${t.scenarios.length}` });
      // Standings pair negotiations by scenario id, so one id must name one scenario.
      const first = new Map<string, number>();
      t.scenarios.forEach((s, i) => {
        const broken = scenarioProblem(s);
        if (broken !== null) ctx.addIssue({ code: 'custom', path: ['scenarios', i], message: broken });
        const other = first.get(s.id);
        if (other !== undefined)
          ctx.addIssue({ code: 'custom', path: ['scenarios', i, 'id'], message: `"${s.id.slice(0, 60)}" is already the id of scenarios[${other}]` });
        else first.set(s.id, i);
      });
    }),
);

export type StoredTournamentConfig = z.infer<typeof TournamentConfigSchema>;

/** A core config and the model settings with their defaults written out, as a run stores it (so a replay never depends on defaults). */
export const fullTournamentConfig = (config: TournamentConfig, llm: Partial<LlmSettings> = {}): StoredTournamentConfig => ({
  agents: config.agents,
  scenariosPerPair: config.scenarios?.length ?? config.scenariosPerPair,
  // With a scenario list these do not apply: the defaults are written, so one list stores one way.
  preset: config.scenarios ? 'standard' : config.preset,
  seed: config.seed,
  selfPlay: config.selfPlay,
  deadline: (config.scenarios ? undefined : config.deadline) ?? DEFAULT_DEADLINE,
  firstMover: (config.scenarios ? undefined : config.firstMover) ?? DEFAULT_FIRST_MOVER,
  llm: llmSettings(llm),
  ...(config.scenarios ? { scenarios: [...config.scenarios] } : {}),
});

export const RunConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tournament'), tournament: TournamentConfigSchema }),
  z.object({
    kind: z.literal('arena'),
    buyer: agentName,
    seller: agentName,
    scenario: ScenarioSchema,
    // Games saved before the model settings were recorded have none; a game is never resumed, so none are assumed.
    llm: LlmSettingsSchema.optional(),
  }),
]);
export type RunConfig = z.infer<typeof RunConfigSchema>;
export type RunKind = RunConfig['kind'];

export const RUN_STATUSES = ['running', 'paused', 'interrupted', 'done', 'cancelled', 'failed'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * What a run record of any game holds, `config` being its game's: the fields in their stored order,
 * for a game's schema to spread (market-schema.ts) and replace what it reads otherwise.
 */
export const runRecordShape = <Config extends z.ZodType>(config: Config) => ({
  id,
  name: z.string().max(200),
  createdAt: timestamp,
  updatedAt: timestamp,
  status: RunStatusSchema,
  config,
  planned: count,
  done: count,
  message: z.string().max(2000).nullable(),
});

/** A run as it is exported and imported: everything but the standings, which are recomputed. */
export const RunRecordSchema = z.object(runRecordShape(RunConfigSchema));
export type RunRecord = z.infer<typeof RunRecordSchema>;

/**
 * Standings as stored. Runs stored before model usage was counted have no `usage`; runs stored
 * before zone bins, errors apart and behaviour measures have no `byZone` or `intervals`, and their
 * rows lack the newer rates (and carry the retired `walkAwayRateNoGft`). Re-importing their export
 * recomputes everything.
 */
export type StoredStandings = Omit<Standings, 'usage' | 'byZone' | 'intervals'> & Partial<Pick<Standings, 'usage' | 'byZone' | 'intervals'>>;

/** A stored bilateral run. Standings are derived data (an import recomputes them), so they have no schema here. */
export interface RunRow extends RunRecord {
  game: 'bilateral';
  standings: StoredStandings | null;
}

export const OutcomeKindSchema = z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]);

/** Turn limit ≤ 1000, each turn at most a few invalid answers, a forfeit and a move, plus the end. */
const MAX_EVENTS = 10_000;

/** One finished negotiation. Metrics are not stored: they are a fold over `events`. */
export const NegotiationRowSchema = z.object({
  id: z.string().min(3).max(401),
  runId: id,
  jobId,
  index: count,
  buyer: agentName,
  seller: agentName,
  tier,
  outcome: OutcomeKindSchema,
  scenario: ScenarioSchema,
  events: z.array(BilateralEventSchema).min(1).max(MAX_EVENTS),
});
export type NegotiationRow = z.infer<typeof NegotiationRowSchema>;

/** A negotiation inside an export file: its run gives it its ids. */
export const ExportedNegotiationSchema = NegotiationRowSchema.omit({ id: true, runId: true });
export type ExportedNegotiation = z.infer<typeof ExportedNegotiationSchema>;

/** One seat's oracle figures in a file (games/bilateral/oracle-agents.ts); null where it has none. */
const SeatOracleSchema = z.object({ oracleShare: z.number().min(0).max(1), oracleGap: z.number().min(-1).max(1) }).nullable();

/**
 * A negotiation as a line of a file may hold it: with the oracle figures of both seats (derived
 * data, which the CLI's `--jsonl` writes; an import checks them against the search and keeps none).
 */
export const ExportedLineSchema = ExportedNegotiationSchema.extend({
  oracle: z.object({ buyer: SeatOracleSchema, seller: SeatOracleSchema }).optional(),
});
export type ExportedLine = z.infer<typeof ExportedLineSchema>;

export const negotiationId = (runId: string, jobId: string): string => `${runId}:${jobId}`;

/** A finished negotiation as an export file holds it (the run gives it its ids). */
export const exportedNegotiation = (r: NegotiationResult): ExportedNegotiation => ({
  jobId: r.id,
  index: r.index,
  buyer: r.buyer,
  seller: r.seller,
  tier: r.scenario.tier,
  outcome: r.outcome.kind,
  scenario: r.scenario,
  events: r.events,
});

/** How a finished negotiation of a run is stored (its metrics are derived from the events). */
export const negotiationRow = (runId: string, r: NegotiationResult): NegotiationRow => ({
  id: negotiationId(runId, r.id),
  runId,
  ...exportedNegotiation(r),
});

// A stored tournament config must be usable wherever core takes one.
type Assignable<From, To> = [From] extends [To] ? true : false;
const configFitsCore: Assignable<z.infer<typeof TournamentConfigSchema>, TournamentConfig> = true;
const outcomeKinds: Same<z.infer<typeof OutcomeKindSchema>, OutcomeKind> = true;
void configFitsCore;
void outcomeKinds;

/** What the Runs page filters a bilateral run's negotiations on: a digest's columns (batches.ts). */
export interface NegotiationColumns {
  buyers: string[];
  sellers: string[];
  outcomes: OutcomeKind[];
  tiers: number[];
}
