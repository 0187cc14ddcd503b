import { z } from 'zod';
import { PriceSchema, type Price } from '../engine/cost';
import type { ParleyDb } from './db';

/** Prices live in the settings table, one row per model: `price:openai:gpt-4o-mini`. */
const PREFIX = 'price:';

const PriceRowSchema = z.object({
  key: z
    .string()
    .startsWith(PREFIX)
    .min(PREFIX.length + 1)
    .max(PREFIX.length + 200),
  value: PriceSchema,
});

/** The user's prices by model spec; a row that does not parse is skipped. */
export async function getPrices(db: ParleyDb): Promise<Map<string, Price>> {
  const rows = await db.settings.where('key').startsWith(PREFIX).toArray();
  const prices = new Map<string, Price>();
  for (const row of rows) {
    const parsed = PriceRowSchema.safeParse(row);
    if (parsed.success) prices.set(parsed.data.key.slice(PREFIX.length), parsed.data.value);
  }
  return prices;
}

/** Stores a price; an invalid one is a bug in the caller (the form parses what is typed). */
export async function putPrice(db: ParleyDb, spec: string, price: Price): Promise<void> {
  const row = PriceRowSchema.parse({ key: PREFIX + spec, value: price });
  await db.settings.put(row);
}

export async function deletePrice(db: ParleyDb, spec: string): Promise<void> {
  await db.settings.delete(PREFIX + spec);
}
