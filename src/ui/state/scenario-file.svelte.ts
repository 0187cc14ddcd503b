import { parseScenarioFile, scenarioFileSizeProblem, type ScenarioFile } from '../../games/bilateral/scenario-file';
import type { Scenario } from '../../games/bilateral/scenario';

export type ScenarioFileStatus =
  { kind: 'none' } | { kind: 'reading'; name: string } | { kind: 'read'; name: string; file: ScenarioFile } | { kind: 'failed'; name: string; message: string };

/**
 * The Tournament page's scenario file: read and checked when chosen, by the reader the command line
 * uses, so the page shows its count or its first problem (with the line) before anything runs. The
 * worker checks the scenarios again when the run starts, as part of the run's config.
 */
export class ScenarioFileChoice {
  status = $state.raw<ScenarioFileStatus>({ kind: 'none' });
  /** Bumped on every choice, so a slow read of an earlier file never lands over a later one. */
  private choice = 0;

  /** The file's scenarios, once it has been read without a problem. */
  get scenarios(): Scenario[] | null {
    return this.status.kind === 'read' ? this.status.file.scenarios : null;
  }

  async choose(file: File | null | undefined): Promise<void> {
    const choice = ++this.choice;
    if (!file) {
      this.status = { kind: 'none' };
      return;
    }
    const name = file.name;
    // Refused by its size before it is read.
    const tooLarge = scenarioFileSizeProblem(file.size);
    if (tooLarge) {
      this.status = { kind: 'failed', name, message: tooLarge.message };
      return;
    }
    this.status = { kind: 'reading', name };
    let text: string;
    try {
      text = await file.text();
    } catch (e) {
      if (choice === this.choice) this.status = { kind: 'failed', name, message: `the file could not be read (${e instanceof Error ? e.message : String(e)})` };
      return;
    }
    if (choice !== this.choice) return;
    const parsed = parseScenarioFile(text, file.size);
    this.status = parsed.ok ? { kind: 'read', name, file: parsed.value } : { kind: 'failed', name, message: parsed.error.message };
  }
}
