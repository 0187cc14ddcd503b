import { z } from 'zod';
import { CallRecordSchema, failureSchemas, invalidFields } from '../../engine/events';
import { RoleSchema, type Role } from './scenario';
import type { SessionEvent, SessionFailure, SessionRecord } from '../../engine/session';
import { MoveSchema, type Move } from './moves';
import type { BilateralOutcome } from './protocol';
import type { Same } from '../../engine/types';

export type BilateralEvent = SessionEvent<Role, Move, BilateralOutcome>;
export type BilateralResult = BilateralOutcome | SessionFailure<Role>;
export type BilateralRecord = SessionRecord<Role, Move, BilateralOutcome>;
export type OutcomeKind = BilateralResult['kind'];

const turn = z.int().min(0).max(100_000);
const price = z.number().finite();

export const BilateralResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deal'), price, turn, acceptedBy: RoleSchema }),
  z.object({ kind: z.literal('walk_away'), by: RoleSchema, turn }),
  z.object({ kind: z.literal('turn_limit'), turn }),
  ...failureSchemas(RoleSchema, turn),
]);

/** The event log as it is stored and imported; parsing it is how untrusted logs enter. */
export const BilateralEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('move'), turn, actor: RoleSchema, move: MoveSchema, call: CallRecordSchema.optional() }),
  z.object({ type: z.literal('invalid'), turn, actor: RoleSchema, ...invalidFields }),
  z.object({ type: z.literal('forfeit'), turn, actor: RoleSchema }),
  z.object({ type: z.literal('end'), turn, outcome: BilateralResultSchema }),
]);

export const OUTCOME_KINDS = BilateralResultSchema.options.map((o) => o.shape.kind.value);

// The schemas and the runner's types must describe the same values.
const sameEvents: Same<z.infer<typeof BilateralEventSchema>, BilateralEvent> = true;
const sameResults: Same<z.infer<typeof BilateralResultSchema>, BilateralResult> = true;
void sameEvents;
void sameResults;
