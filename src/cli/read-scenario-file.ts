import { err, type Result } from '../engine/result';
import { parseScenarioFile, scenarioFileSizeProblem, type ScenarioFile } from '../games/bilateral/scenario-file';
import { readTextFile } from './read-run-file';

/**
 * A scenario file read from disk as the app reads a chosen file (readTextFile, under the scenario
 * file's size limit), then parsed by the one reader both use. The error is one line for
 * `parley: error: --scenarios-from PATH: …`.
 */
export async function readScenarioFile(path: string): Promise<Result<ScenarioFile, string>> {
  const read = await readTextFile(path, scenarioFileSizeProblem);
  if (!read.ok) return read;
  const parsed = parseScenarioFile(read.value.text, read.value.size);
  return parsed.ok ? parsed : err(parsed.error.message);
}
