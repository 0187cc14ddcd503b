import { z } from 'zod';
import { MessageSchema } from '../../engine/message';

export const ActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('offer'), price: z.number() }),
  z.object({ type: z.literal('accept') }),
  z.object({ type: z.literal('reject') }),
  z.object({ type: z.literal('walk_away') }),
]);
export type Action = z.infer<typeof ActionSchema>;
export type ActionType = Action['type'];
export const ACTION_TYPES: readonly ActionType[] = ActionSchema.options.map((o) => o.shape.type.value);

/** One turn: an optional message and at most one binding action. */
export const MoveSchema = z.object({
  message: MessageSchema.optional(),
  action: ActionSchema.optional(),
});
export type Move = z.infer<typeof MoveSchema>;

export const offer = (price: number, message?: string): Move =>
  message === undefined ? { action: { type: 'offer', price } } : { message, action: { type: 'offer', price } };
export const ACCEPT: Move = { action: { type: 'accept' } };
export const REJECT: Move = { action: { type: 'reject' } };
export const WALK_AWAY: Move = { action: { type: 'walk_away' } };
export const say = (message: string): Move => ({ message });
