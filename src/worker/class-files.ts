/**
 * A class's files, built in the simulation worker as a run's CSVs are: the whole class export as
 * JSON, or its games or its ranking as CSV. The page works out the class from the games it chose
 * (ui/class-export.ts, whose ranking it also shows) and sends it here, checked against these
 * schemas, which are its types.
 */
import { z } from 'zod';
import { toCsv } from '../games/bilateral/csv';
import { ACTION_TYPES, type ActionType } from '../games/bilateral/moves';
import { MessageSchema } from '../engine/message';
import { ItemSchema, RoleSchema, ScenarioSchema } from '../games/bilateral/scenario';
import { OutcomeKindSchema, RunRecordSchema } from '../storage/schema';

export const CLASS_FORMAT = 'parley-class';
export const CLASS_VERSION = 1;

/** Most games one class file holds: every Arena game a browser keeps, with room to spare. */
export const MAX_CLASS_GAMES = 20_000;
/** Turn limit ≤ 1000, each turn at most one move. */
const MAX_MOVES = 1000;

const count = z.int().nonnegative();
const share = z.number().finite().nullable();
/** Who sat in a seat: a player's name for a human seat, the agent's spec for a bot. */
const seat = z.string().max(500);
const runId = z.string().max(200);

// Keys in the order the page builds them, so that the JSON file reads as it always has.
export const ClassMoveSchema = z.object({
  /** 1 for the opening move, as the transcript numbers turns. */
  turn: z.int().min(1).max(MAX_MOVES),
  by: RoleSchema,
  action: z.enum(ACTION_TYPES as [ActionType, ...ActionType[]]).nullable(),
  price: z.number().finite().nullable(),
  message: MessageSchema.nullable(),
});
export type ClassMove = z.infer<typeof ClassMoveSchema>;

export const ClassGameSchema = z.object({
  runId,
  runName: RunRecordSchema.shape.name,
  /** When the game was stored, as an ISO time. */
  playedAt: z.string().max(40),
  buyer: seat,
  seller: seat,
  buyerIsHuman: z.boolean(),
  sellerIsHuman: z.boolean(),
  item: ItemSchema.shape.name,
  listPrice: ItemSchema.shape.listPrice,
  buyerValue: ScenarioSchema.shape.buyerValue,
  sellerCost: ScenarioSchema.shape.sellerCost,
  turnLimit: ScenarioSchema.shape.turnLimit,
  firstMover: RoleSchema,
  outcome: OutcomeKindSchema,
  price: z.number().finite().nullable(),
  turnsUsed: count,
  buyerShare: share,
  sellerShare: share,
  buyerIrViolation: z.boolean(),
  sellerIrViolation: z.boolean(),
  moves: z.array(ClassMoveSchema).max(MAX_MOVES),
});
export type ClassGame = z.infer<typeof ClassGameSchema>;

export const RankingRowSchema = z.object({
  name: seat,
  kind: z.enum(['student', 'bot']),
  games: count,
  /** Games with gains from trade, where a share could be won. */
  gftGames: count,
  deals: count,
  irViolations: count,
  rank: z.int().min(1),
  /** Mean share of the surplus over deals with gains from trade. */
  meanShare: share,
  /** Mean share over games with gains from trade, a missed deal counting 0: the ranking's key. */
  expectedShare: share,
});
export type RankingRow = z.infer<typeof RankingRowSchema>;

/** A stored game the export could not read, named so that it can be found (and mended or played again). */
export const SkippedGameSchema = z.object({
  /** Empty where even that could not be read. */
  runId,
  /** The run's name where it could be read. */
  runName: z.string().max(10_000).nullable(),
  problem: z.string().max(10_000),
});
export type SkippedGame = z.infer<typeof SkippedGameSchema>;

export const ClassExportSchema = z.object({
  format: z.literal(CLASS_FORMAT),
  version: z.literal(CLASS_VERSION),
  games: z.array(ClassGameSchema).max(MAX_CLASS_GAMES),
  /** Everyone who played, best first: at most two new players a game. */
  ranking: z.array(RankingRowSchema).max(2 * MAX_CLASS_GAMES),
  /** Games left out because their record could not be read; the others are all there. */
  skipped: z.array(SkippedGameSchema).max(MAX_CLASS_GAMES),
});
export type ClassExport = z.infer<typeof ClassExportSchema>;

/** A class's files: the whole export as JSON, the games, the ranking. */
export const CLASS_FILES = ['json', 'games', 'ranking'] as const;
export type ClassFile = (typeof CLASS_FILES)[number];

const movesText = (moves: readonly ClassMove[]) =>
  moves.map((m) => `${m.turn} ${m.by} ${m.action === 'offer' ? `offer ${m.price}` : (m.action ?? 'message')}`).join('; ');

export const CLASS_GAMES_CSV_HEADER = [
  'played_at',
  'buyer',
  'seller',
  'buyer_is_student',
  'seller_is_student',
  'item',
  'list_price',
  'buyer_value',
  'seller_cost',
  'turn_limit',
  'first_mover',
  'outcome',
  'price',
  'turns_used',
  'buyer_share',
  'seller_share',
  'buyer_ir_violation',
  'seller_ir_violation',
  'moves',
  'run_id',
] as const;

/** One row per game; the moves as one field (`1 seller offer 120; 2 buyer offer 90; 3 seller accept`). */
export function classGamesCsv(data: ClassExport): string {
  return toCsv(
    CLASS_GAMES_CSV_HEADER,
    data.games.map((g) => [
      g.playedAt,
      g.buyer,
      g.seller,
      g.buyerIsHuman,
      g.sellerIsHuman,
      g.item,
      g.listPrice,
      g.buyerValue,
      g.sellerCost,
      g.turnLimit,
      g.firstMover,
      g.outcome,
      g.price,
      g.turnsUsed,
      g.buyerShare,
      g.sellerShare,
      g.buyerIrViolation,
      g.sellerIrViolation,
      movesText(g.moves),
      g.runId,
    ]),
  );
}

export const CLASS_RANKING_CSV_HEADER = ['rank', 'name', 'kind', 'games', 'gft_games', 'deals', 'mean_share', 'expected_share', 'ir_violations'] as const;

export function classRankingCsv(data: ClassExport): string {
  return toCsv(
    CLASS_RANKING_CSV_HEADER,
    data.ranking.map((r) => [r.rank, r.name, r.kind, r.games, r.gftGames, r.deals, r.meanShare, r.expectedShare, r.irViolations]),
  );
}

/** `parley-class-<day>.json`, `parley-class-games-<day>.csv`, `parley-class-ranking-<day>.csv`, the day (UTC) of `at`. */
export function classFileName(file: ClassFile, at: number): string {
  const day = new Date(at).toISOString().slice(0, 10);
  return file === 'json' ? `parley-class-${day}.json` : `parley-class-${file}-${day}.csv`;
}

/** One of a class's files and its name, made at `at`. */
export function classFile(data: ClassExport, file: ClassFile, at: number): { fileName: string; blob: Blob } {
  const fileName = classFileName(file, at);
  if (file === 'json') return { fileName, blob: new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }) };
  return { fileName, blob: new Blob([file === 'games' ? classGamesCsv(data) : classRankingCsv(data)], { type: 'text/csv' }) };
}
