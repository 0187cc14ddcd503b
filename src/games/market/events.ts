import { z } from 'zod';
import { CallRecordSchema, failureSchemas, invalidFields } from '../../engine/events';
import type { SessionEvent, SessionFailure, SessionRecord } from '../../engine/session';
import { BuyerMoveSchema, MarketRoleSchema, SellerMoveSchema, type MarketMove, type MarketRole } from './moves';
import type { MarketOutcome } from './protocol';
import type { Same } from '../../engine/types';

export type MarketEvent = SessionEvent<MarketRole, MarketMove, MarketOutcome>;
export type MarketResult = MarketOutcome | SessionFailure<MarketRole>;
export type MarketRecord = SessionRecord<MarketRole, MarketMove, MarketOutcome>;
export type MarketResultKind = MarketResult['kind'];

const turn = z.int().min(0).max(1_000_000);

export const MarketResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('budget_spent'), turn }),
  z.object({ kind: z.literal('sold_out'), turn }),
  z.object({ kind: z.literal('no_buyers'), turn }),
  ...failureSchemas(MarketRoleSchema, turn),
]);

/** The event log as stored and imported; a seller's moves are seller moves, a buyer's are answers. */
export const MarketEventSchema = z.union([
  z.object({ type: z.literal('move'), turn, actor: z.literal('seller'), move: SellerMoveSchema, call: CallRecordSchema.optional() }),
  z.object({ type: z.literal('move'), turn, actor: z.literal('buyer'), move: BuyerMoveSchema, call: CallRecordSchema.optional() }),
  z.object({ type: z.literal('invalid'), turn, actor: MarketRoleSchema, ...invalidFields }),
  z.object({ type: z.literal('forfeit'), turn, actor: MarketRoleSchema }),
  z.object({ type: z.literal('end'), turn, outcome: MarketResultSchema }),
]);

export const MARKET_RESULT_KINDS: readonly MarketResultKind[] = MarketResultSchema.options.map((o) => o.shape.kind.value);

// The schemas and the runner's types must describe the same values.
const sameResults: Same<z.infer<typeof MarketResultSchema>, MarketResult> = true;
// A parsed event is one the runner could have written (the runner's type is wider: any move for either seat).
const eventsFit: z.infer<typeof MarketEventSchema> extends MarketEvent ? true : false = true;
void sameResults;
void eventsFit;
