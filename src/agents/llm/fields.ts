/**
 * Reading a JSON value as a model really writes it, for every game's decoder: keys in any case
 * and spelling, action words and their many aliases, prices as strings with currency signs and
 * thousands separators, text fields. Reasons are written to be shown to the model on its retry.
 */
import { err, ok, type Result } from '../../engine/result';
import { answerProblem, type AnswerProblem } from './problems';

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

/** What an action word may name: a bilateral action, none (only talk), or a response (accept or reject, said in `decision`). */
export type Kind = 'offer' | 'accept' | 'reject' | 'walk_away' | 'none' | 'respond';

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

/** Where a move's message may be written. */
export const MESSAGE_KEYS = ['message', 'msg', 'say', 'text', 'comment'];

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
