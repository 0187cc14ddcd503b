// What the user's seat is shown and may type: the turns left as far as they can know them, the
// price of an offer read from the form's text, and the moves that ask for a confirmation first.
import type { HumanPrompt } from '../games/bilateral/human';
import type { Action } from '../games/bilateral/moves';
import { MAX_OFFER_LIST_MULTIPLE, MIN_OFFER_PRICE } from '../games/bilateral/protocol';
import { roundCents } from '../engine/money';
import { err, ok, type Result } from '../engine/result';
import { money } from './components/format';

/** Turns left in the game (this one included), and how many of them are yours, as a range where the limit is uncertain. */
export interface TurnsLeft {
  /** The turn being played, counted from 1. */
  current: number;
  /** The limit as the user knows it: one number, or the range. */
  limit: { min: number; max: number };
  left: { min: number; max: number };
  yours: { min: number; max: number };
}

/**
 * From what the user knows after `turn` turns: the limit, or its range. The game has not ended, so
 * the limit is past the turns played: at least one turn (this one) is left, at most max − turn.
 * `yoursNow`: whether this turn is the user's (they move on every other turn from it), or the other side's.
 */
export function turnsLeft(known: Pick<HumanPrompt, 'turn' | 'turnLimit' | 'turnRange'>, yoursNow = true): TurnsLeft {
  const { turn } = known;
  const limit = known.turnLimit !== null ? { min: known.turnLimit, max: known.turnLimit } : known.turnRange;
  const left = { min: Math.max(limit.min - turn, 1), max: Math.max(limit.max - turn, 1) };
  const mine = (n: number) => (yoursNow ? Math.ceil(n / 2) : Math.floor(n / 2));
  return { current: turn + 1, limit, left, yours: { min: mine(left.min), max: mine(left.max) } };
}

const span = (r: { min: number; max: number }): string => (r.min === r.max ? `${r.min}` : `${r.min} to ${r.max}`);

/** The turns left in words: "16 turns left (8 of them yours)" or "12 to 20 turns left (6 to 10 of them yours)". */
export function describeTurnsLeft(t: TurnsLeft): string {
  const plural = t.left.max === 1 ? 'turn' : 'turns';
  return `${span(t.left)} ${plural} left, this one included (${span(t.yours)} of them yours)`;
}

/** The turns left in a few words, for the seat's sticky line: "turn 2 of 10, 5 of yours left" or "turn 2 of 8–12, 4 to 6 of yours left". */
export function shortTurnsLeft(t: TurnsLeft): string {
  const limit = t.limit.min === t.limit.max ? `${t.limit.max}` : `${t.limit.min}–${t.limit.max}`;
  return `turn ${t.current} of ${limit}, ${span(t.yours)} of yours left`;
}

/** Dollars as typed: digits with an optional fraction of up to two decimals; a leading $ and thousands commas are allowed. */
const PRICE = /^\d+(?:\.\d*)?$|^\.\d+$/;

/** The price of an offer from the form's text, or what is wrong with it, in a sentence. */
export function parseOfferPrice(text: string, listPrice: number): Result<number, string> {
  const trimmed = text.trim();
  if (trimmed === '') return err('Enter the price you offer, in dollars (such as 120 or 119.50).');
  const plain = trimmed.replace(/^\$\s*/, '').replace(/,(?=\d{3}(?:\D|$))/g, '');
  if (!PRICE.test(plain))
    return err(`“${trimmed.length > 40 ? `${trimmed.slice(0, 39)}…` : trimmed}” is not a price: type a number of dollars, such as 120 or 119.50.`);
  const price = Number(plain);
  if (price < MIN_OFFER_PRICE) return err(`An offer must be at least one cent (${money(MIN_OFFER_PRICE)}).`);
  if (roundCents(price) !== price) return err(`Prices go to the cent: ${plain} has more than two decimals.`);
  const ceiling = roundCents(MAX_OFFER_LIST_MULTIPLE * listPrice);
  if (price > ceiling) return err(`An offer may be at most ${money(ceiling)} (${MAX_OFFER_LIST_MULTIPLE} times the list price).`);
  return ok(price);
}

/** An offer past this many times the list price asks for a confirmation (a digit too many, most likely). */
export const CONFIRM_LIST_MULTIPLE = 2;

/** Why a move asks "are you sure?" before it is sent: what it would cost the user, or how far past the list price it is. */
export type MoveRisk =
  { kind: 'loss'; action: 'offer' | 'accept'; price: number; loss: number; reservation: number } | { kind: 'far-above-list'; price: number; listPrice: number };

/**
 * Whether `action` would cost the user money (a buyer paying more than their value, a seller
 * selling under their cost: an acceptance at once, an offer if the other side accepts it), or is an
 * offer more than twice the list price. Null for a move that needs no second thought.
 */
export function moveRisk(prompt: Pick<HumanPrompt, 'role' | 'reservation' | 'listPrice' | 'pending'>, action: Action | undefined): MoveRisk | null {
  const price = action?.type === 'offer' ? action.price : action?.type === 'accept' ? prompt.pending : null;
  if (price === null || (action?.type !== 'offer' && action?.type !== 'accept')) return null;
  const loss = roundCents(prompt.role === 'buyer' ? price - prompt.reservation : prompt.reservation - price);
  if (loss > 0) return { kind: 'loss', action: action.type, price, loss, reservation: prompt.reservation };
  if (action.type === 'offer' && price > CONFIRM_LIST_MULTIPLE * prompt.listPrice) return { kind: 'far-above-list', price, listPrice: prompt.listPrice };
  return null;
}

/** The confirmation's question, in a sentence: "Offering $4,048.00 would lose you $3,959.50 if the seller accepts: …". */
export function describeRisk(risk: MoveRisk, role: HumanPrompt['role']): string {
  const other = role === 'buyer' ? 'seller' : 'buyer';
  if (risk.kind === 'far-above-list')
    return `${money(risk.price)} is more than ${CONFIRM_LIST_MULTIPLE} times the list price of ${money(risk.listPrice)}. Send this offer anyway?`;
  const own = role === 'buyer' ? 'above your value' : 'below your cost';
  const what =
    risk.action === 'offer'
      ? `Offering ${money(risk.price)} would lose you ${money(risk.loss)} if the ${other} accepts`
      : `Accepting ${money(risk.price)} would lose you ${money(risk.loss)}`;
  return `${what}: it is ${own} of ${money(risk.reservation)}. Send it anyway?`;
}
