import { readFile, stat } from 'node:fs/promises';
import { problems, type ProblemOf } from '../engine/errors';
import { err, ok, type Result } from '../engine/result';
import { sizeProblem, type ImportError } from '../storage/run-file';

/** Why a file on disk could not be read (engine/errors.ts); `reason` is the system's error code, such as ENOENT. */
export const FILE_READ_PROBLEMS = {
  'not-a-file': () => 'not a file',
  'cannot-read': (d: { reason: string }) => `cannot read it (${d.reason})`,
} as const;

export type FileReadProblem = ProblemOf<typeof FILE_READ_PROBLEMS>;
const fileReadProblem = problems(FILE_READ_PROBLEMS);

/**
 * A file's text and size, read as the app reads a chosen file: refused by its size before it is
 * read (`tooLarge` says why, or null; its refusal is returned as it is), then decoded as
 * File.text() decodes (UTF-8, a byte-order mark dropped). Each message is one line for
 * `parley: error: PATH: …`.
 */
export async function readTextFile<P extends { message: string }>(
  path: string,
  tooLarge: (size: number) => P | null,
): Promise<Result<{ text: string; size: number }, FileReadProblem | P>> {
  const cannotRead = (e: unknown) => err(fileReadProblem('cannot-read', { reason: (e as NodeJS.ErrnoException).code ?? String(e) }));
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return err(fileReadProblem('not-a-file'));
    size = info.size;
  } catch (e) {
    return cannotRead(e);
  }
  const problem = tooLarge(size);
  if (problem) return err(problem);
  try {
    return ok({ text: new TextDecoder().decode(await readFile(path)), size });
  } catch (e) {
    return cannotRead(e);
  }
}

/** A run file's text and size, under the import's size limit (its refusal is the import's `too-large`). */
export const readRunFileText = (path: string): Promise<Result<{ text: string; size: number }, FileReadProblem | ImportError>> =>
  readTextFile(path, sizeProblem);
