import { CustomModelSchema, type CustomModel } from '../agents/backends/webllm/custom';
import type { ParleyDb } from './db';

/** The user's own WebLLM models, one settings row holding the list in the order they were added. */
const KEY = 'webllm:custom-models';

/** The stored list; an entry that no longer parses is left out (and dropped at the next write). */
export async function getCustomModels(db: ParleyDb): Promise<CustomModel[]> {
  const row = await db.settings.get(KEY);
  if (!Array.isArray(row?.value)) return [];
  return row.value.flatMap((entry: unknown) => {
    const parsed = CustomModelSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Stores the list; an invalid entry is a bug in the caller (the form parses what is typed). */
export async function putCustomModels(db: ParleyDb, models: readonly CustomModel[]): Promise<void> {
  await db.settings.put({ key: KEY, value: models.map((m) => CustomModelSchema.parse(m)) });
}
