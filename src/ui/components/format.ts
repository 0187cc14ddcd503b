/** Text formatting shared by the components: money, percentages, roles and outcomes in words. */
import type { BilateralResult } from '../../games/bilateral/events';
import { assertNever } from '../../engine/result';
import type { Role } from '../../games/bilateral/scenario';
import type { Phrase } from '../names';

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
const hugeDollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'scientific', maximumFractionDigits: 2 });

/** What a figure that cannot be a number (NaN, ±Infinity) shows as. */
export const MISSING = '–';
/** Amounts this large (a trillion dollars) only come from a broken or hostile record; they print short. */
const HUGE_AMOUNT = 1e12;
/** Percentages beyond ± this many print as a bound, not as a row of digits. */
const HUGE_PERCENT = 1e6;

/** `$1,234.50`; a negative amount reads `-$3.00`; a non-finite one `–`, an absurd one `$1.00E15`. */
export const money = (amount: number): string =>
  !Number.isFinite(amount) ? MISSING : Math.abs(amount) >= HUGE_AMOUNT ? hugeDollars.format(amount) : dollars.format(amount);

/**
 * A fraction as a percentage: `pct(0.4567)` is `46%`, `pct(0.4567, 1)` is `45.7%`. A non-finite
 * fraction reads `–`, and one past a million percent `>1,000,000%` (or `<-1,000,000%`).
 */
export function pct(fraction: number, digits = 0): string {
  if (!Number.isFinite(fraction)) return MISSING;
  const percent = fraction * 100;
  if (Math.abs(percent) > HUGE_PERCENT) return `${percent > 0 ? '>' : '<-'}1,000,000%`;
  const value = percent.toFixed(digits);
  return `${value === `-${(0).toFixed(digits)}` ? (0).toFixed(digits) : value}%`;
}

export const roleLabel = (role: Role): string => (role === 'buyer' ? 'Buyer' : 'Seller');

/** The first `max` characters, with an ellipsis when anything was cut. */
export const truncate = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`);

export type AgentNames = { buyer: string; seller: string };

const who = (role: Role, agents: AgentNames): Phrase => [`the ${role} (`, { name: agents[role] }, ')'];

/** One sentence saying how a negotiation ended, the agents' names kept apart. Turns in an outcome count the turns played. */
export function describeOutcome(outcome: BilateralResult, agents: AgentNames): Phrase {
  switch (outcome.kind) {
    case 'deal':
      return [`Deal at ${money(outcome.price)} on turn ${outcome.turn}, accepted by `, ...who(outcome.acceptedBy, agents), '.'];
    case 'walk_away':
      return ['No deal: ', ...who(outcome.by, agents), ` walked away on turn ${outcome.turn}.`];
    case 'turn_limit':
      return [`No deal: the turn limit was reached after ${outcome.turn} turns.`];
    case 'error':
      return ['Stopped by an error from ', ...who(outcome.actor, agents), ` on turn ${outcome.turn + 1}: ${outcome.message}`];
    case 'cancelled':
      return [`Cancelled after ${outcome.turn} turns.`];
    default:
      return assertNever(outcome);
  }
}
