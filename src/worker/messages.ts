import { z } from 'zod';
import { BilateralEventSchema } from '../games/bilateral/events';
import { StandingsSchema } from '../games/bilateral/standings-schema';
import { ScenarioSchema } from '../games/bilateral/scenario';
import { RUN_STATUSES, RunRecordSchema, TournamentConfigSchema } from '../storage/schema';
import { REMOTE_PROVIDERS } from '../agents/remote-spec';
import { MAX_API_KEY_LENGTH, MAX_BASE_URL_LENGTH } from '../agents/remote-input';
import { ENGINE_STATES } from '../agents/backends/webllm/engine-state';
import { WEBLLM_MODEL_IDS } from '../agents/specs';
import { LlmSettingsSchema } from '../agents/llm/settings';
import { ModelListEntrySchema } from '../agents/backends/webllm/models';
import { LOAD_PHASES } from '../agents/backends/webllm/progress';
import { customModel, CustomModelListSchema } from '../agents/backends/webllm/custom';
import { MoveSchema } from '../games/bilateral/moves';
import { DeadlineSchema, FirstMoverSchema, PresetSchema, ROLES } from '../games/bilateral/scenario';
import { MOVE_INTERFACES } from '../agents/llm/settings';
import { SFT_FORMATS, SftFilterSchema, SftValidationSchema } from '../training/sft';
import { HumanPromptSchema } from '../games/bilateral/human';
import { MarketEventSchema } from '../games/market/events';
import { MarketStandingRowSchema } from '../games/market/aggregate';
import { MarketRunConfigSchema } from '../storage/market-schema';
import { HandInReportSchema } from '../storage/hand-in-records';
import { MAX_PAYLOAD_CHARS } from '../storage/result-link';
import { SeedSchema } from '../engine/rng';
import { CLASS_FILES, ClassExportSchema } from './class-files';

export { ENGINE_STATES };

const id = z.string().min(1).max(200);
const spec = z.string().min(1).max(500);
const delayMs = z.number().finite().min(0).max(60_000);
/** A built-in Qwen3 build, or one of the user's own models the worker has been told of (webllm.custom). */
const webllmModel = z
  .string()
  .min(1)
  .max(200)
  .refine((id) => WEBLLM_MODEL_IDS.includes(id) || customModel(id) !== undefined, { message: 'not a WebLLM model Parley knows' });

/**
 * Per provider, the user's key and base URL for remote agents; held in memory only, never stored.
 * The limits are the Models page's own (remote-input.ts), so a key the page takes is never refused here.
 */
export const RemoteConfigSchema = z.object({
  providers: z.partialRecord(
    z.enum(REMOTE_PROVIDERS),
    z.object({ apiKey: z.string().max(MAX_API_KEY_LENGTH).optional(), baseUrl: z.string().max(MAX_BASE_URL_LENGTH).optional() }),
  ),
});
export type RemoteConfig = z.infer<typeof RemoteConfigSchema>;

/**
 * The ids a message names (its request, run or game), each read on its own, so that a message
 * refused for any other field is still answered to whoever waits on one of them.
 */
export function messageIds(data: unknown): { requestId?: string; runId?: string; gameId?: string } {
  const ids: { requestId?: string; runId?: string; gameId?: string } = {};
  if (typeof data !== 'object' || data === null) return ids;
  for (const key of ['requestId', 'runId', 'gameId'] as const) {
    const value = id.safeParse((data as Record<string, unknown>)[key]);
    if (value.success) ids[key] = value.data;
  }
  return ids;
}

/** Where one Learn experiment cell's negotiations come from: one scenario, or a seeded set of a preset. */
export const LearnScenariosSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('one'), scenario: ScenarioSchema }),
  z.object({
    kind: z.literal('set'),
    preset: PresetSchema,
    seed: SeedSchema,
    count: z.int().min(1).max(2000),
    deadline: DeadlineSchema,
    firstMover: FirstMoverSchema,
  }),
]);
/** One strategy pair on its scenarios (scripted strategies only: the Learn page runs nothing costly). */
export const LearnCellSchema = z.object({ buyer: spec, seller: spec, scenarios: LearnScenariosSchema });
/** Most negotiations one Learn experiment may ask for. */
export const LEARN_MAX_NEGOTIATIONS = 20_000;
const cellCount = (cell: z.infer<typeof LearnCellSchema>): number => (cell.scenarios.kind === 'one' ? 1 : cell.scenarios.count);
export const LearnExperimentSchema = z
  .object({
    cells: z.array(LearnCellSchema).min(1).max(400),
    /** Seeds the random strategy's stream, per cell, scenario and seat. */
    seed: SeedSchema,
    /** Also aggregate every negotiation into standings (per tier and zone bin), as a tournament does. */
    standings: z.boolean(),
  })
  .refine((e) => e.cells.reduce((n, cell) => n + cellCount(cell), 0) <= LEARN_MAX_NEGOTIATIONS, {
    message: `a Learn experiment plays at most ${LEARN_MAX_NEGOTIATIONS} negotiations`,
  });
export type LearnExperiment = z.infer<typeof LearnExperimentSchema>;
export type LearnCell = z.infer<typeof LearnCellSchema>;
export const learnPlanned = (e: LearnExperiment): number => e.cells.reduce((n, cell) => n + cellCount(cell), 0);

const share = z.number().finite().nullable();
/** What one cell's negotiations came to. Shares are means over deals with gains from trade. */
export const LearnCellResultSchema = z.object({
  n: z.int().nonnegative(),
  errors: z.int().nonnegative(),
  /** Negotiations with gains from trade, and the deals among them. */
  gft: z.int().nonnegative(),
  gftDeals: z.int().nonnegative(),
  /** Deals without gains from trade (someone traded at a loss). */
  lossDeals: z.int().nonnegative(),
  dealRate: share,
  buyerShare: share,
  sellerShare: share,
  /** Means over gft negotiations with 0 for no deal. */
  buyerExpectedShare: share,
  sellerExpectedShare: share,
  /** Gains from trade in units of list price (games/bilateral/theory.ts GainsTally). */
  gains: z.object({ scenarios: z.int().nonnegative(), realised: z.number().finite(), firstBest: z.number().finite(), secondBest: z.number().finite() }),
  /** The cell's first negotiation: its price (null without a deal), how it ended, turns played. */
  first: z.object({ price: z.number().finite().nullable(), outcome: z.string().max(40), turns: z.int().nonnegative() }).nullable(),
});
export type LearnCellResult = z.infer<typeof LearnCellResultSchema>;

const ShareSummarySchema = z.object({
  n: count0(),
  mean: z.number().nullable(),
  min: z.number().nullable(),
  p25: z.number().nullable(),
  median: z.number().nullable(),
  p75: z.number().nullable(),
  max: z.number().nullable(),
  histogram: z.array(count0()).length(10),
});
/** training/sft.ts SftSummary, as it crosses from the worker. */
export const SftSummarySchema = z.object({
  examples: count0(),
  train: count0(),
  validation: count0(),
  scenarios: z.object({ train: count0(), validation: count0() }),
  byTier: z.record(z.string().max(4), count0()),
  byAgent: z.record(z.string().max(600), count0()),
  share: ShareSummarySchema,
});
function count0() {
  return z.int().nonnegative();
}

/**
 * A stored run's fine-tuning data: the summary of what the filter picks and, with `build`, the
 * train and validation JSONL files; progress as sft.progress; answered by sft.exported.
 */
export const SftExportSchema = z.object({
  type: z.literal('sft.export'),
  requestId: id,
  runId: id,
  /** Which seats of a run's negotiations become fine-tuning examples (training/sft.ts). */
  filter: SftFilterSchema,
  /** The share of scenarios held out for validation. */
  validation: SftValidationSchema,
  interface: z.enum(MOVE_INTERFACES),
  /** One example per move (what the agent is sent), or one multi-turn example per seat per negotiation. */
  format: z.enum(SFT_FORMATS),
  build: z.boolean(),
});

/** A run's name as the page gives it to a run it starts: the stored record's own limit. */
export const RunNameSchema = RunRecordSchema.shape.name;

/** The CSV files of a stored run: its standings, or one line per negotiation with its metrics. */
export const CSV_TABLES = ['standings', 'negotiations'] as const;
export type CsvTable = (typeof CSV_TABLES)[number];

/** Messages from the page to the simulation worker; each `type` carries its own payload. */
export const ToWorkerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run.start'),
    runId: id,
    name: RunNameSchema,
    config: TournamentConfigSchema,
    remote: RemoteConfigSchema.optional(),
  }),
  z.object({ type: z.literal('run.resume'), runId: id, remote: RemoteConfigSchema.optional() }),
  z.object({ type: z.literal('run.cancel'), runId: id }),
  z.object({
    type: z.literal('arena.start'),
    gameId: id,
    scenario: ScenarioSchema,
    buyer: spec,
    seller: spec,
    delayMs,
    paused: z.boolean(),
    save: z.boolean(),
    remote: RemoteConfigSchema.optional(),
    /** How the model seats are asked for their moves; the defaults where left out. */
    llm: LlmSettingsSchema.optional(),
  }),
  z.object({
    type: z.literal('arena.control'),
    gameId: id,
    delayMs: delayMs.optional(),
    paused: z.boolean().optional(),
    step: z.boolean().optional(),
    cancel: z.boolean().optional(),
  }),
  /** The user's move in a game where they hold a seat, for the turn and attempt they were asked. */
  z.object({
    type: z.literal('arena.move'),
    gameId: id,
    turn: z.int().nonnegative(),
    attempt: z.int().nonnegative(),
    move: MoveSchema,
  }),
  /**
   * Plays each of `strategies` in `role` against `opponent` on the scenario of game `gameId` (the
   * opponent seeded as in that game), for the debrief; nothing is saved.
   */
  z.object({
    type: z.literal('arena.compare'),
    requestId: id,
    gameId: id,
    scenario: ScenarioSchema,
    role: z.enum(ROLES),
    opponent: spec,
    strategies: z.array(spec).min(1).max(20),
    remote: RemoteConfigSchema.optional(),
    llm: LlmSettingsSchema.optional(),
  }),
  /** Plays a Learn page experiment: progress as learn.progress, the figures as learn.done. */
  z.object({ type: z.literal('learn.run'), requestId: id, experiment: LearnExperimentSchema }),
  /** Stops the learn.run whose requestId is `running`; it still answers with what it finished. */
  z.object({ type: z.literal('learn.cancel'), running: id }),
  /** One market played live (a run of one seller, one configuration, one market), saved as a run when `save`. */
  z.object({
    type: z.literal('market.play'),
    gameId: id,
    config: MarketRunConfigSchema,
    delayMs,
    paused: z.boolean(),
    save: z.boolean(),
    remote: RemoteConfigSchema.optional(),
  }),
  z.object({
    type: z.literal('market.control'),
    gameId: id,
    delayMs: delayMs.optional(),
    paused: z.boolean().optional(),
    step: z.boolean().optional(),
    cancel: z.boolean().optional(),
  }),
  /** A market tournament: stored as it plays, reported as market.progress and market.status. */
  z.object({ type: z.literal('market.start'), runId: id, name: z.string().max(200), config: MarketRunConfigSchema, remote: RemoteConfigSchema.optional() }),
  z.object({ type: z.literal('market.cancel'), runId: id }),
  /** Plays what a stopped market tournament still lacks; the markets it stored are not played again. */
  z.object({ type: z.literal('market.resume'), runId: id, remote: RemoteConfigSchema.optional() }),
  /** Unloads every WebLLM engine no run or game is using, freeing the GPU. */
  z.object({ type: z.literal('engines.unload') }),
  /** Downloads and loads a WebLLM model ahead of play; progress comes as engine.status. */
  z.object({ type: z.literal('engines.load'), modelId: webllmModel }),
  /** Stops a load asked for by engines.load (a run or game that needs the model keeps it going). */
  z.object({ type: z.literal('engines.cancel'), modelId: z.string().min(1).max(200) }),
  z.object({ type: z.literal('export'), requestId: id, runId: id, format: z.enum(['json', 'jsonl']) }),
  /** A stored run's CSV, built here a chunk of stored negotiations at a time; progress as csv.progress. */
  z.object({ type: z.literal('csv'), requestId: id, runId: id, table: z.enum(CSV_TABLES) }),
  /** One of a class's files (the export as JSON, its games or its ranking as CSV), built here from the class the page worked out. */
  z.object({ type: z.literal('class.file'), requestId: id, file: z.enum(CLASS_FILES), data: ClassExportSchema }),
  /**
   * The page's heartbeat: the worker answers with a pong at once, and holds the Web Lock `lock` for
   * as long as it lives, so that a worker that died without a word is told from one that is busy.
   */
  z.object({ type: z.literal('ping'), beat: z.int().nonnegative(), lock: z.string().min(1).max(200) }),
  /** What can be read of a stored run that cannot be read whole (a damaged record), as one JSON file. */
  z.object({ type: z.literal('salvage'), requestId: id, runId: id }),
  z.object({ type: z.literal('import'), requestId: id, file: z.instanceof(Blob) }),
  /** One game handed in to the class page, by result link or by file; answered with what became of it. */
  z.object({
    type: z.literal('handin'),
    requestId: id,
    source: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('link'), payload: z.string().min(1).max(MAX_PAYLOAD_CHARS) }),
      z.object({ kind: z.literal('file'), file: z.instanceof(Blob) }),
    ]),
  }),
  /** WebLLM's records of the Qwen3 builds and which are in its cache, asked of an engine worker. */
  z.object({ type: z.literal('models.list'), requestId: id }),
  /** Deletes a model's files from WebLLM's cache. */
  z.object({ type: z.literal('models.delete'), requestId: id, modelId: webllmModel }),
  SftExportSchema,
  /** Stops the sft.export whose requestId is `running`; it answers with a failure. */
  z.object({ type: z.literal('sft.cancel'), running: id }),
  /** The user's own WebLLM models (kept in settings): specs may name them from now on. */
  z.object({ type: z.literal('webllm.custom'), models: CustomModelListSchema }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;
/** A tournament as the page asks for it: every setting explicit. */
export type TournamentSettings = z.infer<typeof TournamentConfigSchema>;

const count = z.int().nonnegative();

/** Messages from the simulation worker to the page. */
export const FromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The answer to a ping; `lock` is the life lock once the worker holds it (null before, or without Web Locks). */
  z.object({ type: z.literal('pong'), beat: count, lock: z.string().max(200).nullable() }),
  z.object({
    type: z.literal('run.progress'),
    runId: id,
    done: count,
    planned: count,
    ratePerS: z.number().finite().nullable(),
    etaS: z.number().finite().nullable(),
    standings: StandingsSchema,
  }),
  z.object({
    type: z.literal('run.status'),
    runId: id,
    status: z.enum(RUN_STATUSES),
    message: z.string().nullable(),
    done: count,
    planned: count,
  }),
  z.object({ type: z.literal('arena.event'), gameId: id, event: BilateralEventSchema }),
  /** A WebLLM engine of the worker loads (with progress), is ready, fails, loses its GPU or is unloaded. */
  z.object({
    type: z.literal('engine.status'),
    modelId: z.string().min(1).max(200),
    state: z.enum(ENGINE_STATES),
    fraction: z.number().min(0).max(1).optional(),
    phase: z.enum(LOAD_PHASES).optional(),
    phaseFraction: z.number().min(0).max(1).optional(),
    text: z.string().max(2000).optional(),
  }),
  z.object({ type: z.literal('arena.end'), gameId: id, runId: id.nullable() }),
  z.object({ type: z.literal('market.event'), gameId: id, event: MarketEventSchema }),
  /** A live market ended; `runId` names the run it was saved as (null: not saved). */
  z.object({ type: z.literal('market.end'), gameId: id, runId: id.nullable() }),
  z.object({
    type: z.literal('market.progress'),
    runId: id,
    done: count,
    planned: count,
    standings: z.array(MarketStandingRowSchema).max(10_000),
  }),
  z.object({
    type: z.literal('market.status'),
    runId: id,
    status: z.enum(RUN_STATUSES),
    message: z.string().nullable(),
    done: count,
    planned: count,
  }),
  /** The user's seat is to move: what they may know now. */
  z.object({ type: z.literal('arena.turn'), gameId: id, prompt: HumanPromptSchema }),
  /** The answer to arena.compare: each strategy's negotiation as its event log, in the order asked. */
  z.object({
    type: z.literal('arena.compared'),
    requestId: id,
    games: z.array(z.object({ strategy: spec, events: z.array(BilateralEventSchema).max(10_000) })).max(20),
  }),
  z.object({ type: z.literal('learn.progress'), requestId: id, done: count, planned: count }),
  /** The answer to learn.run: one result per cell, in the order asked; `cancelled` when stopped part way. */
  z.object({
    type: z.literal('learn.done'),
    requestId: id,
    cancelled: z.boolean(),
    done: count,
    planned: count,
    cells: z.array(LearnCellResultSchema).max(400),
    standings: StandingsSchema.nullable(),
  }),
  z.object({ type: z.literal('exported'), requestId: id, fileName: z.string(), blob: z.instanceof(Blob) }),
  /** How many of the run's negotiations a csv request has written so far. */
  z.object({ type: z.literal('csv.progress'), requestId: id, done: count }),
  z.object({ type: z.literal('imported'), requestId: id, runId: id }),
  z.object({ type: z.literal('handed-in'), requestId: id, report: HandInReportSchema }),
  z.object({
    type: z.literal('models.listed'),
    requestId: id,
    models: z.array(ModelListEntrySchema).max(64),
    cached: z.record(z.string().max(200), z.boolean()),
  }),
  z.object({ type: z.literal('models.deleted'), requestId: id, modelId: z.string().min(1).max(200) }),
  /** How far the examples of an sft.export have been built, in negotiations. */
  z.object({ type: z.literal('sft.progress'), requestId: id, done: count, total: count }),
  z.object({
    type: z.literal('sft.exported'),
    requestId: id,
    summary: SftSummarySchema,
    negotiations: count,
    train: z.instanceof(Blob).nullable(),
    validation: z.instanceof(Blob).nullable(),
  }),
  z.object({
    type: z.literal('failed'),
    requestId: id.optional(),
    runId: id.optional(),
    gameId: id.optional(),
    message: z.string(),
  }),
]);
export type FromWorker = z.infer<typeof FromWorkerSchema>;
export type FromWorkerType = FromWorker['type'];

/** A message the page waits on an answer to; `failed` with its requestId may answer any of them. */
export type WorkerRequest = Extract<ToWorker, { requestId: string }>;
/** Which reply answers each request. */
const REPLIES = {
  export: 'exported',
  salvage: 'exported',
  csv: 'exported',
  'class.file': 'exported',
  import: 'imported',
  handin: 'handed-in',
  'models.list': 'models.listed',
  'models.delete': 'models.deleted',
  'arena.compare': 'arena.compared',
  'learn.run': 'learn.done',
  'sft.export': 'sft.exported',
} as const satisfies Record<WorkerRequest['type'], FromWorkerType>;
export type ReplyTo<R extends WorkerRequest> = Extract<FromWorker, { type: (typeof REPLIES)[R['type']] }> | Extract<FromWorker, { type: 'failed' }>;
/** The reply types, for the client to tell a reply from a broadcast. */
export const REPLY_TYPES: ReadonlySet<FromWorkerType> = new Set([...Object.values(REPLIES), 'failed']);
