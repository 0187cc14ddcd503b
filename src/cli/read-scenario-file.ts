import type { Result } from '../engine/result';
import { parseScenarioFile, scenarioFileSizeProblem, type ScenarioFile, type ScenarioFileProblem } from '../games/bilateral/scenario-file';
import { readTextFile, type FileReadProblem } from './read-run-file';

/**
 * A scenario file read from disk as the app reads a chosen file (readTextFile, under the scenario
 * file's size limit), then parsed by the one reader both use. Each problem's message is one line
 * for `parley: error: --scenarios-from PATH: …`.
 */
export async function readScenarioFile(path: string): Promise<Result<ScenarioFile, FileReadProblem | ScenarioFileProblem>> {
  const read = await readTextFile(path, scenarioFileSizeProblem);
  return read.ok ? parseScenarioFile(read.value.text, read.value.size) : read;
}
