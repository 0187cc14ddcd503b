/**
 * Which stored games were handed in (imported from a file or a result link) rather than played in
 * this browser: the class page's default set, so the teacher's own demo games stay out of a class
 * unless chosen. One settings row per game (`handin:<runId>`), written in the import's transaction.
 * And what a hand-in reports (hand-ins.ts hands games in; the worker's messages carry the report).
 */
import { z } from 'zod';
import type { ParleyDb } from './db';

/** What became of one game handed in (a link or a file), for the class page's report. */
export const HAND_IN_STATUSES = ['imported', 'duplicate', 'tampered', 'malformed'] as const;
export type HandInStatus = (typeof HAND_IN_STATUSES)[number];

export const HandInReportSchema = z.object({
  status: z.enum(HAND_IN_STATUSES),
  /** The game's run name where it could be read (it carries the student's name). */
  runName: z.string().max(200).nullable(),
  /** The stored run: the new one, or for a duplicate the one that already holds the game. */
  runId: z.string().min(1).max(200).nullable(),
  /** Why it was not imported, in words; null when it was. */
  message: z.string().max(2000).nullable(),
});
export type HandInReport = z.infer<typeof HandInReportSchema>;

export const HAND_IN_VIAS = ['file', 'link'] as const;
export type HandInVia = (typeof HAND_IN_VIAS)[number];

const PREFIX = 'handin:';
export const handInKey = (runId: string): string => `${PREFIX}${runId}`;

const HandInSchema = z.object({ via: z.enum(HAND_IN_VIAS), at: z.number().finite() });
export type HandIn = z.infer<typeof HandInSchema>;

/** Every hand-in on record, by run id; a row that does not read is left out (its game counts as played here). */
export async function readHandIns(db: ParleyDb): Promise<Map<string, HandIn>> {
  const rows = await db.settings.where('key').startsWith(PREFIX).toArray();
  const out = new Map<string, HandIn>();
  for (const row of rows) {
    const parsed = HandInSchema.safeParse(row.value);
    if (parsed.success) out.set(row.key.slice(PREFIX.length), parsed.data);
  }
  return out;
}
