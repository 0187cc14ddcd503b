/**
 * Turns a parsed JSON value, as a model really writes it, into a Move: action names in any case
 * and many aliases, prices as strings with currency signs and thousands separators, the price
 * under `price`, `amount` or `value`, the `{"offer": 120}` shorthand, a wrapper object around
 * the move. Reasons are written to be shown to the model on its retry.
 */
import { MoveSchema, type Action, type ActionType, type Move } from '../../core/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../core/message';
import { roundCents } from '../../core/money';
import { MIN_OFFER_PRICE } from '../../core/bilateral/protocol';
import { err, ok, type Result } from '../../core/result';
import { clip } from './json-text';
import { answerProblem, moveProblem, type AnswerProblem, type MoveProblem } from './problems';

export type Decoded = Result<Move, MoveProblem>;

export type Fields = Map<string, unknown>;

/** Only this many keys of one object are looked at. */
const MAX_KEYS = 64;

export const isPlainObject = (x: unknown): x is object => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Own keys, lower-cased with spaces and dashes as underscores, in a Map (a `__proto__` key stays a key). */
export function fieldsOf(o: object): Fields {
  const fields: Fields = new Map();
  let n = 0;
  for (const key of Object.keys(o)) {
    if (n++ >= MAX_KEYS) break;
    const k = key
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
    if (!fields.has(k)) fields.set(k, (o as Record<string, unknown>)[key]);
  }
  return fields;
}

/** Short text for a reason, whatever the value is. */
export function show(x: unknown, max = 60): string {
  let s: string;
  try {
    s = typeof x === 'string' ? x : (JSON.stringify(x) ?? String(x));
  } catch {
    s = Object.prototype.toString.call(x);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

type Kind = ActionType | 'none' | 'respond';

const ALIASES: Record<Kind, readonly string[]> = {
  offer: [
    'offer',
    'make_offer',
    'counter',
    'counter_offer',
    'counteroffer',
    'counter_proposal',
    'propose',
    'proposal',
    'bid',
    'ask',
    'new_offer',
    'price',
    'quote',
    'offer_price',
  ],
  accept: ['accept', 'accept_offer', 'accepted', 'agree', 'deal', 'yes', 'take', 'take_offer', 'accept_deal'],
  reject: ['reject', 'reject_offer', 'rejected', 'decline', 'declined', 'decline_offer', 'deny', 'refuse', 'no'],
  walk_away: ['walk_away', 'walkaway', 'walk', 'leave', 'quit', 'exit', 'end', 'no_deal', 'end_negotiation', 'walk_away_from_deal', 'abandon', 'withdraw'],
  none: ['none', 'message', 'send_message', 'message_only', 'chat', 'talk', 'say', 'speak', 'null', 'nothing', 'pass', 'wait'],
  respond: ['respond', 'respond_to_offer', 'response', 'decision'],
};
const KIND_OF = new Map<string, Kind>((Object.keys(ALIASES) as Kind[]).flatMap((kind) => ALIASES[kind].map((alias) => [alias, kind] as const)));

/** The kind of action a word names ("OFFER", "counter", "walk away", "deny"), or null. */
export function kindOf(word: unknown): Kind | null {
  if (typeof word !== 'string' || word.length > 60) return null;
  const key = word
    .trim()
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_')
    .replace(/[^a-z_]/g, '')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return KIND_OF.get(key) ?? null;
}

const CURRENCY_WORD = '(?:usd|us\\$|dollars?|bucks|eur|euros?|gbp|pounds?|cad|aud|chf|jpy|yen|inr|rupees?)';
const LEADING_WORD = new RegExp(`^${CURRENCY_WORD}\\.?\\s*`, 'i');
const TRAILING_WORD = new RegExp(`\\s*${CURRENCY_WORD}\\.?$`, 'i');
const NUMBER = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;

/** A price from a number or from text such as "120", "$1,200.50", "120 USD", "€99". */
export function parsePrice(x: unknown): Result<number, AnswerProblem> {
  if (typeof x === 'number') return Number.isFinite(x) ? ok(x) : err(answerProblem('price-infinite', { value: show(x) }));
  if (typeof x !== 'string') return err(answerProblem('price-not-number', { value: show(x) }));
  if (x.length > 64) return err(answerProblem('price-unreadable', { value: show(x) }));
  const s = x
    .trim()
    .replace(LEADING_WORD, '')
    .replace(TRAILING_WORD, '')
    .replace(/[$€£¥₹]/g, '')
    .replace(/\s+/g, '');
  if (!/\d/.test(s) || !NUMBER.test(s)) return err(answerProblem('price-unreadable', { value: show(x) }));
  const value = Number(s.replace(/,/g, ''));
  return Number.isFinite(value) ? ok(value) : err(answerProblem('price-unreadable', { value: show(x) }));
}

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

const MESSAGE_KEYS = ['message', 'msg', 'say', 'text', 'comment'];
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

export const first = (f: Fields, keys: readonly string[]): [string, unknown] | undefined => {
  for (const k of keys) if (f.has(k)) return [k, f.get(k)];
  return undefined;
};

/** The message, if any: `undefined` when absent or blank. */
export function readMessage(f: Fields): Result<string | undefined, AnswerProblem> {
  const found = first(f, MESSAGE_KEYS);
  if (found === undefined || found[1] === null || found[1] === undefined) return ok(undefined);
  const [key, v] = found;
  if (typeof v === 'number' || typeof v === 'boolean') return ok(String(v));
  if (typeof v !== 'string') return err(answerProblem('field-not-text', { field: key, value: show(v) }));
  const message = v.trim();
  return ok(message === '' ? undefined : message);
}

/** A price under one of `keys`, looking one level into an object (`{"offer": {"price": 5}}`). */
export function readPrice(f: Fields, keys: readonly string[]): [string, unknown] | undefined {
  const found = first(f, keys);
  if (found === undefined || !isPlainObject(found[1])) return found;
  return first(fieldsOf(found[1]), ['price', 'amount', 'value']) ?? found;
}

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
