/** The parts of an event log's schema that every game shares: what the runner itself records. */
import { z } from 'zod';
import type { CallRecord } from './session';
import type { Same } from './types';

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

/** An `invalid` event's fields beside its turn and seat: the numbered attempt, why it was refused, what was said. */
export const invalidFields = {
  attempt: z.int().min(0).max(100),
  reason: text(2000),
  raw: text(200_000),
  call: CallRecordSchema.optional(),
};

/** The endings the runner writes rather than the protocol (see `SessionFailure`), for a game's seats and turns. */
export const failureSchemas = <Actor extends z.ZodType<string>, Turn extends z.ZodType<number>>(actor: Actor, turn: Turn) =>
  [z.object({ kind: z.literal('error'), actor, message: text(2000), turn }), z.object({ kind: z.literal('cancelled'), turn })] as const;

// The schema and the runner's type must describe the same values.
const sameCalls: Same<z.infer<typeof CallRecordSchema>, CallRecord> = true;
void sameCalls;
