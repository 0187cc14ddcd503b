import { readFile, stat } from 'node:fs/promises';
import { err, ok, type Result } from '../core/result';
import { sizeProblem } from '../storage/run-file';

/**
 * A run file's text and size, read as the app's import reads it: refused by its size before it is
 * read, then decoded as File.text() decodes (UTF-8, a byte-order mark dropped). The error is one
 * line for `parley: error: PATH: …`.
 */
export async function readRunFileText(path: string): Promise<Result<{ text: string; size: number }, string>> {
  const cannotRead = (e: unknown) => err(`cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return err('not a file');
    size = info.size;
  } catch (e) {
    return cannotRead(e);
  }
  const tooLarge = sizeProblem(size);
  if (tooLarge) return err(tooLarge.message);
  try {
    return ok({ text: new TextDecoder().decode(await readFile(path)), size });
  } catch (e) {
    return cannotRead(e);
  }
}
