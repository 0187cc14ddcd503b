import { z } from 'zod';
import { problems, type ProblemOf } from './errors';
import { err, ok, type Result } from './result';

/** What a model costs, in US dollars per million tokens, as providers list it. */
export const PriceSchema = z.object({
  inputPerMTok: z.number().finite().nonnegative(),
  outputPerMTok: z.number().finite().nonnegative(),
});
export type Price = z.infer<typeof PriceSchema>;

/** Estimated US dollars for the tokens used at a price. */
export const estimateCost = (usage: { tokensIn: number; tokensOut: number }, price: Price): number =>
  (usage.tokensIn / 1e6) * price.inputPerMTok + (usage.tokensOut / 1e6) * price.outputPerMTok;

const DECIMAL = /^\+?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Why a typed price is refused (engine/errors.ts); `value` is the text as typed, trimmed. Each message is one phrase. */
export const DOLLAR_PROBLEMS = {
  'no-price': () => 'no price given; write US dollars per million tokens (0 if free)',
  'negative-price': (d: { value: string }) => `a price cannot be negative, got ${d.value}`,
  'price-not-decimal': (d: { value: string }) => `"${d.value}" is not a number; write dollars per million tokens, e.g. 0.15`,
  'price-too-large': (d: { value: string }) => `"${d.value}" is too large`,
} as const;

export type DollarProblem = ProblemOf<typeof DOLLAR_PROBLEMS>;
const dollarProblem = problems(DOLLAR_PROBLEMS);

/** A price per million tokens as a person types it: `0.15`, `$2.50`, `3`. */
export function parseDollars(text: string): Result<number, DollarProblem> {
  const shown = text.trim();
  const body = shown.replace(/^\$\s*/, '');
  if (body === '') return err(dollarProblem('no-price'));
  if (body.startsWith('-') && DECIMAL.test(body.slice(1))) return err(dollarProblem('negative-price', { value: shown }));
  if (!DECIMAL.test(body)) return err(dollarProblem('price-not-decimal', { value: shown }));
  const value = Number(body);
  if (!Number.isFinite(value)) return err(dollarProblem('price-too-large', { value: shown }));
  return ok(value);
}

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** `$0.00`, `< $0.0001`, `$0.0123` (four places under a dollar), `$1,234.50`. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.0001) return '< $0.0001';
  if (usd < 1) return `$${usd.toFixed(4)}`;
  return dollars.format(usd);
}
