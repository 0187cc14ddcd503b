/**
 * Turns a parsed JSON value, as a model really writes it, into a Move: action names in any case
 * and many aliases, prices as strings with currency signs and thousands separators, the price
 * under `price`, `amount` or `value`, the `{"offer": 120}` shorthand, a wrapper object around
 * the move. Reasons are written to be shown to the model on its retry.
 */
import { MoveSchema, type Action, type ActionType, type Move } from '../moves';
import { MAX_MESSAGE_LENGTH } from '../../../engine/message';
import { roundCents } from '../../../engine/money';
import { MIN_OFFER_PRICE } from '../protocol';
import { err, ok, type Result } from '../../../engine/result';
import { clip } from '../../../agents/llm/json-text';
import { fieldsOf, first, isPlainObject, kindOf, MESSAGE_KEYS, parsePrice, readMessage, readPrice, show, type Fields } from '../../../agents/llm/fields';
import { moveProblem, type MoveProblem } from './problems';

export type Decoded = Result<Move, MoveProblem>;

/** A price rounded to cents, which the protocol will take. */
export function offerAt(x: unknown): Result<Action, MoveProblem> {
  const parsed = parsePrice(x);
  if (!parsed.ok) return parsed;
  // Checked before rounding, as the protocol does, so 0.004 is refused as under a cent, not as 0.
  if (parsed.value > 0 && parsed.value < MIN_OFFER_PRICE)
    return err(moveProblem('price-below-minimum', { field: 'offer price', price: show(x), min: MIN_OFFER_PRICE }));
  const price = roundCents(parsed.value);
  if (!Number.isFinite(price)) return err(moveProblem('price-infinite', { value: show(x) }));
  if (price <= 0) return err(moveProblem('price-not-positive', { field: 'offer price', price: show(x) }));
  return ok({ type: 'offer', price });
}

export const PRICE_KEYS = ['price', 'amount', 'value', 'offer', 'offer_price', 'counter', 'counter_offer', 'bid', 'ask'];
const TOP_PRICE_KEYS = ['price', 'amount', 'offer_price'];
const TYPE_KEYS = ['type', 'action_type', 'kind', 'name', 'decision', 'action'];
const TOP_TYPE_KEYS = ['type', 'action_type', 'move_type', 'kind', 'decision'];
const SHORTHAND_OFFER_KEYS = ['offer', 'counter', 'counter_offer', 'counteroffer', 'make_offer', 'bid', 'ask'];
const FLAG_KEYS: Record<string, Exclude<ActionType, 'offer'>> = {
  accept: 'accept',
  reject: 'reject',
  decline: 'reject',
  walk_away: 'walk_away',
  walkaway: 'walk_away',
};
const WRAPPER_KEYS = ['move', 'response', 'answer', 'output', 'result', 'reply', 'data', 'next_move', 'your_move'];

type ActionRead = Result<Action | undefined, MoveProblem>;
const NO_ACTION: ActionRead = ok(undefined);
const OFFER_NEEDS_PRICE = (): ActionRead => err(moveProblem('offer-needs-price'));

/** The action named by `word`, its price (for an offer) read from `own`, else from `outer`. */
export function typedAction(word: unknown, own: Fields, outer?: Fields): ActionRead {
  if (typeof word !== 'string') return err(moveProblem('action-type-not-text', { value: show(word) }));
  const kind = kindOf(word);
  switch (kind) {
    case null:
      return err(moveProblem('unknown-action', { name: show(word) }));
    case 'none':
      return NO_ACTION;
    case 'respond': {
      const decision = own.get('decision') ?? outer?.get('decision');
      const answer = kindOf(decision);
      if (answer === 'accept' || answer === 'reject') return ok({ type: answer });
      return err(moveProblem('response-needs-decision', { value: show(decision) }));
    }
    case 'offer': {
      const price = readPrice(own, PRICE_KEYS) ?? (outer ? readPrice(outer, PRICE_KEYS) : undefined);
      if (price === undefined || price[1] === null) return OFFER_NEEDS_PRICE();
      return offerAt(price[1]);
    }
    default:
      return ok({ type: kind });
  }
}

const truthy = (v: unknown): boolean => v === true || (typeof v === 'string' && /^(true|yes)$/i.test(v.trim()));

/** `{"offer": 120}`, `{"counter": "$99"}`, `{"accept": true}`; undefined when there is none. */
function shorthand(f: Fields): ActionRead | undefined {
  const offered = first(f, SHORTHAND_OFFER_KEYS);
  if (offered !== undefined && offered[1] !== null && offered[1] !== false) {
    const v = offered[1];
    if (!isPlainObject(v)) return offerAt(v);
    const inner = fieldsOf(v);
    const price = first(inner, ['price', 'amount', 'value']);
    return price === undefined ? OFFER_NEEDS_PRICE() : offerAt(price[1]);
  }
  for (const [key, type] of Object.entries(FLAG_KEYS)) if (truthy(f.get(key))) return ok({ type });
  return undefined;
}

function readAction(f: Fields): ActionRead {
  if (f.has('action')) {
    const a = f.get('action');
    if (a === null || a === undefined || a === '' || a === false) return NO_ACTION;
    if (typeof a === 'string') return typedAction(a, f);
    if (!isPlainObject(a)) return err(moveProblem('action-not-object', { value: show(a) }));
    const af = fieldsOf(a);
    if (af.size === 0) return NO_ACTION;
    const type = first(af, TYPE_KEYS);
    if (type !== undefined) return typedAction(type[1], af, f);
    const short = shorthand(af);
    if (short) return short;
    const price = readPrice(af, PRICE_KEYS);
    if (price !== undefined) return offerAt(price[1]);
    return err(moveProblem('action-without-type'));
  }
  const type = first(f, TOP_TYPE_KEYS);
  if (type !== undefined && type[1] !== null) return typedAction(type[1], f);
  const short = shorthand(f);
  if (short) return short;
  const price = first(f, TOP_PRICE_KEYS);
  if (price !== undefined && price[1] !== null) return offerAt(price[1]);
  return NO_ACTION;
}

const MOVE_KEYS = new Set([...MESSAGE_KEYS, 'action', ...TOP_TYPE_KEYS, ...TOP_PRICE_KEYS, ...SHORTHAND_OFFER_KEYS, ...Object.keys(FLAG_KEYS)]);

/** A move from a parsed JSON value. */
export function moveFromValue(value: unknown, depth = 0): Decoded {
  if (!isPlainObject(value)) return err(moveProblem('move-not-object', { value: show(value), array: Array.isArray(value) }));
  const f = fieldsOf(value);
  if (![...f.keys()].some((k) => MOVE_KEYS.has(k))) {
    // A wrapper around the move: {"move": {...}} or {"negotiation_move": {...}}.
    const objects = [...f.entries()].filter(([, v]) => isPlainObject(v));
    const inner = first(f, WRAPPER_KEYS) ?? (objects.length === 1 ? objects[0] : undefined);
    if (depth < 3 && inner !== undefined && isPlainObject(inner[1])) return moveFromValue(inner[1], depth + 1);
    return err(moveProblem('no-action-or-message'));
  }
  const action = readAction(f);
  if (!action.ok) return action;
  let said = readMessage(f);
  if (said.ok && said.value === undefined) {
    const a = f.get('action');
    if (isPlainObject(a)) said = readMessage(fieldsOf(a));
  }
  if (!said.ok) return said;
  return finishMove(said.value, action.value);
}

/**
 * The move, checked against the core's schema. A message over the protocol's limit is cut to it,
 * ending in a note of how much was left out, as the market's decoder does: the schema a model
 * writes under leaves the length to the decoder (modelJsonSchema), and what that schema lets
 * through is played, not refused and retried. The raw answer keeps the whole text.
 */
export function finishMove(message: string | undefined, action: Action | undefined): Decoded {
  if (message === undefined && action === undefined) return err(moveProblem('empty-move'));
  const move: Move = {};
  if (message !== undefined) move.message = message.length > MAX_MESSAGE_LENGTH ? clip(message, MAX_MESSAGE_LENGTH) : message;
  if (action !== undefined) move.action = action;
  const checked = MoveSchema.safeParse(move);
  return checked.success ? ok(move) : err(moveProblem('not-a-move', { issue: checked.error.issues[0]?.message ?? 'schema' }));
}
