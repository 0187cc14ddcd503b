/**
 * Refused moves as values (engine/errors.ts): each game has a table of refusal messages by code, and
 * what every game checks alike, a move's message and its prices, is written here once. The
 * English becomes the `invalid` event's `reason`, so a message here is part of every stored log.
 */
import { problems, type CodeOf, type DataArgs, type MessageTable } from './errors';
import type { ProtocolError } from './protocol';
import { err } from './result';

/** Which price a check is about, as the message names it. */
export type PriceField = 'offer price' | 'price' | 'counter price';

export const MOVE_REFUSALS = {
  'message-not-text': () => 'message must be text',
  'message-too-long': (d: { length: number; max: number }) => `message is ${d.length} characters; the limit is ${d.max}`,
  'price-not-finite': (d: { field: PriceField }) => `${d.field} must be a finite number`,
  /** `price` as given: a number, or the text a model wrote. */
  'price-below-minimum': (d: { field: PriceField; price: number | string; min: number }) => `${d.field} must be at least $${d.min} (got ${d.price})`,
  'price-not-positive': (d: { field: PriceField; price: number | string }) => `${d.field} must be positive (got ${d.price})`,
  'price-above-ceiling': (d: { field: PriceField; price: number; multiple: number; ceiling: number }) =>
    `${d.field} ${d.price} is more than ${d.multiple} times the list price (at most ${d.ceiling})`,
} as const satisfies MessageTable;

/** The refusal maker for one game's table: `refuse('out-of-stock', { product })` is a failed `apply`. */
export function refusals<T extends MessageTable>(messages: T) {
  const problem = problems(messages);
  return <C extends CodeOf<T>>(code: C, ...args: DataArgs<T, C>): { ok: false; error: ProtocolError<C> } => {
    const { data, message } = problem(code, ...args);
    return err({ kind: 'invalid-move', code, data, reason: message });
  };
}
