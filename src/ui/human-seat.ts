// What the user's seat is shown and may type: the turns left as far as they can know them, and the
// price of an offer read from the form's text.
import type { HumanPrompt } from '../agents/human';
import { MAX_OFFER_LIST_MULTIPLE, MIN_OFFER_PRICE } from '../core/bilateral/protocol';
import { roundCents } from '../core/scenario';
import { err, ok, type Result } from '../core/result';
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

/** Dollars as typed: digits with an optional fraction of up to two decimals; a leading $ and thousands commas are allowed. */
const PRICE = /^\d+(?:\.\d*)?$|^\.\d+$/;

/** The price of an offer from the form's text, or what is wrong with it, in a sentence. */
export function parseOfferPrice(text: string, listPrice: number): Result<number, string> {
  const trimmed = text.trim();
  if (trimmed === '') return err('Enter the price you offer, in dollars (such as 120 or 119.50).');
  const plain = trimmed.replace(/^\$\s*/, '').replace(/,(?=\d{3}(?:\D|$))/g, '');
  if (!PRICE.test(plain)) return err(`“${trimmed.length > 40 ? `${trimmed.slice(0, 39)}…` : trimmed}” is not a price: type a number of dollars, such as 120 or 119.50.`);
  const price = Number(plain);
  if (price < MIN_OFFER_PRICE) return err(`An offer must be at least one cent (${money(MIN_OFFER_PRICE)}).`);
  if (roundCents(price) !== price) return err(`Prices go to the cent: ${plain} has more than two decimals.`);
  const ceiling = roundCents(MAX_OFFER_LIST_MULTIPLE * listPrice);
  if (price > ceiling) return err(`An offer may be at most ${money(ceiling)} (${MAX_OFFER_LIST_MULTIPLE} times the list price).`);
  return ok(price);
}
