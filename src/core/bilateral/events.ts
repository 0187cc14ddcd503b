import { z } from 'zod';
import { RoleSchema, type Role } from '../scenario';
import type { SessionEvent, SessionFailure, SessionRecord } from '../session';
import { MoveSchema, type Move } from './moves';
import type { BilateralOutcome } from './protocol';
import type { Same } from '../types';

export type BilateralEvent = SessionEvent<Role, Move, BilateralOutcome>;
export type BilateralResult = BilateralOutcome | SessionFailure<Role>;
export type BilateralRecord = SessionRecord<Role, Move, BilateralOutcome>;
export type OutcomeKind = BilateralResult['kind'];

const turn = z.int().min(0).max(100_000);
const price = z.number().finite();
const text = (max: number) => z.string().max(max);

export const CallRecordSchema = z.object({
  backend: text(100),
  model: text(300),
  latencyMs: z.number().finite().nonnegative(),
  // Optional: records made before it was kept read as they did.
  grammarMs: z.number().finite().nonnegative().optional(),
  tokensIn: z.int().nonnegative(),
  tokensOut: z.int().nonnegative(),
  prompt: text(200_000).optional(),
  raw: text(200_000).optional(),
  thinking: text(200_000).optional(),
});

export const BilateralResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deal'), price, turn, acceptedBy: RoleSchema }),
  z.object({ kind: z.literal('walk_away'), by: RoleSchema, turn }),
  z.object({ kind: z.literal('turn_limit'), turn }),
  z.object({ kind: z.literal('error'), actor: RoleSchema, message: text(2000), turn }),
  z.object({ kind: z.literal('cancelled'), turn }),
]);

/** The event log as it is stored and imported; parsing it is how untrusted logs enter. */
export const BilateralEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('move'), turn, actor: RoleSchema, move: MoveSchema, call: CallRecordSchema.optional() }),
  z.object({
    type: z.literal('invalid'),
    turn,
    actor: RoleSchema,
    attempt: z.int().min(0).max(100),
    reason: text(2000),
    raw: text(200_000),
    call: CallRecordSchema.optional(),
  }),
  z.object({ type: z.literal('forfeit'), turn, actor: RoleSchema }),
  z.object({ type: z.literal('end'), turn, outcome: BilateralResultSchema }),
]);

export const OUTCOME_KINDS = BilateralResultSchema.options.map((o) => o.shape.kind.value);

// The schemas and the runner's types must describe the same values.
const sameEvents: Same<z.infer<typeof BilateralEventSchema>, BilateralEvent> = true;
const sameResults: Same<z.infer<typeof BilateralResultSchema>, BilateralResult> = true;
void sameEvents;
void sameResults;
