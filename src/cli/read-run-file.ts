import { readFile, stat } from 'node:fs/promises';
import { err, ok, type Result } from '../engine/result';
import { sizeProblem } from '../storage/run-file';

/**
 * A file's text and size, read as the app reads a chosen file: refused by its size before it is
 * read (`tooLarge` says why, or null), then decoded as File.text() decodes (UTF-8, a byte-order
 * mark dropped). The error is one line for `parley: error: PATH: …`.
 */
export async function readTextFile(
  path: string,
  tooLarge: (size: number) => { message: string } | null,
): Promise<Result<{ text: string; size: number }, string>> {
  const cannotRead = (e: unknown) => err(`cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return err('not a file');
    size = info.size;
  } catch (e) {
    return cannotRead(e);
  }
  const problem = tooLarge(size);
  if (problem) return err(problem.message);
  try {
    return ok({ text: new TextDecoder().decode(await readFile(path)), size });
  } catch (e) {
    return cannotRead(e);
  }
}

/** A run file's text and size, under the import's size limit. */
export const readRunFileText = (path: string): Promise<Result<{ text: string; size: number }, string>> => readTextFile(path, sizeProblem);
