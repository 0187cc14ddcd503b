/**
 * Handing in one game, by result link or by file: imported exactly as a file is, and reported for
 * the class page (imported, duplicate, tampered, malformed), each with the game's name.
 */
import type { ParleyDb } from './db';
import { sizeProblem } from './file-format';
import type { HandInReport } from './hand-in-records';
import { readResultPayload } from './result-link';
import { importRun } from './transfer';

export type { HandInReport } from './hand-in-records';

/** A game to hand in: a result link's payload, or a run file. */
export type HandInSource = { kind: 'link'; payload: string } | { kind: 'file'; file: Pick<Blob, 'size' | 'text'> };

/**
 * Imports one handed-in game exactly as a file import does (readRunFile's checks, the content
 * check for a duplicate) and says what became of it. Throws only what an import throws (a full disk).
 */
export async function handIn(db: ParleyDb, source: HandInSource, now: number): Promise<HandInReport> {
  let text: string;
  let runName: string | null;
  if (source.kind === 'link') {
    const read = await readResultPayload(source.payload);
    if (!read.ok) return { status: 'malformed', runName: null, runId: null, message: read.error.message };
    ({ text, name: runName } = read.value);
  } else {
    const tooLarge = sizeProblem(source.file.size);
    if (tooLarge) return { status: 'malformed', runName: null, runId: null, message: tooLarge.message };
    try {
      text = await source.file.text();
    } catch (e) {
      return { status: 'malformed', runName: null, runId: null, message: `the file could not be read (${e instanceof Error ? e.message : String(e)})` };
    }
    runName = nameIn(text);
  }
  const result = await importRun(db, text, { now, via: source.kind, size: source.kind === 'file' ? source.file.size : text.length });
  if (result.ok) return { status: 'imported', runName: result.value.name, runId: result.value.id, message: null };
  const { kind, message, same } = result.error;
  if (kind === 'duplicate') return { status: 'duplicate', runName, runId: same?.id ?? null, message };
  return { status: kind === 'tampered' ? 'tampered' : 'malformed', runName, runId: null, message };
}

/** The run's name in a run file, where it can be read without checking the file (for the report alone). */
function nameIn(text: string): string | null {
  const newline = text.indexOf('\n');
  for (const candidate of newline < 0 ? [text] : [text.slice(0, newline), text]) {
    try {
      const name = (JSON.parse(candidate) as { run?: { name?: unknown } } | null)?.run?.name;
      if (typeof name === 'string') return name.slice(0, 200);
    } catch {
      // not this way
    }
  }
  return null;
}
