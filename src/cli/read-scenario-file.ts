import { readFile, stat } from 'node:fs/promises';
import { err, type Result } from '../core/result';
import { parseScenarioFile, scenarioFileSizeProblem, type ScenarioFile } from '../core/bilateral/scenario-file';

/**
 * A scenario file read from disk as the app reads a chosen file: refused by its size before it is
 * read, decoded as File.text() decodes (UTF-8, a byte-order mark dropped), then parsed by the one
 * reader both use. The error is one line for `parley: error: --scenarios-from PATH: …`.
 */
export async function readScenarioFile(path: string): Promise<Result<ScenarioFile, string>> {
  const cannotRead = (e: unknown) => err(`cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return err('not a file');
    size = info.size;
  } catch (e) {
    return cannotRead(e);
  }
  const tooLarge = scenarioFileSizeProblem(size);
  if (tooLarge) return err(tooLarge.message);
  let text: string;
  try {
    text = new TextDecoder().decode(await readFile(path));
  } catch (e) {
    return cannotRead(e);
  }
  const parsed = parseScenarioFile(text, size);
  return parsed.ok ? parsed : err(parsed.error.message);
}
