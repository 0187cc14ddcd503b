import { z } from 'zod';
import type { KeyRow, ParleyDb } from './db';

/** A remembered key row as read back: parsed, since the user's storage is an edge. */
const KeyRowSchema = z.object({ provider: z.string().min(1), apiKey: z.string(), baseUrl: z.string() });

/** The keys the user asked this device to remember; a row that does not parse is skipped. */
export async function getKeys(db: ParleyDb): Promise<KeyRow[]> {
  const rows = await db.keys.toArray();
  return rows.flatMap((row) => {
    const parsed = KeyRowSchema.safeParse(row);
    return parsed.success ? [parsed.data] : [];
  });
}

export async function putKey(db: ParleyDb, row: KeyRow): Promise<void> {
  await db.keys.put(row);
}

export async function deleteKey(db: ParleyDb, provider: string): Promise<void> {
  await db.keys.delete(provider);
}
