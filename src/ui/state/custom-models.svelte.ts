import { CustomModelSchema, useCustomModels, type CustomModel, type CustomModelField } from '../../agents/backends/webllm/custom';
import type { ParleyDb } from '../../storage/db';
import { err, ok, type Result } from '../../engine/result';
import { getCustomModels, putCustomModels } from '../../storage/custom-models';
import { database, sim } from './sim';

/** What the form holds: text as typed, so nothing typed is lost to a failed check. */
export type CustomModelDraft = Record<CustomModelField, string>;
export type DraftProblems = Partial<Record<CustomModelField, string>>;

/** The draft as a model, or a message per field that is wrong. */
export function readDraft(draft: CustomModelDraft, taken: readonly string[]): Result<CustomModel, DraftProblems> {
  const window = draft.contextWindow.trim();
  const parsed = CustomModelSchema.safeParse({ ...draft, contextWindow: window === '' ? NaN : Number(window.replace(/[,_\s]/g, '')) });
  const problems: DraftProblems = {};
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as CustomModelField;
      problems[field] ??= issue.message;
    }
  if (parsed.success && taken.includes(parsed.data.name)) problems.name = 'A model of yours already has that name.';
  return parsed.success && Object.keys(problems).length === 0 ? ok(parsed.data) : err(problems);
}

/**
 * The user's own WebLLM models: read once from settings (IndexedDB), written back on every change,
 * and handed to this page's spec parser and to the simulation worker, so both accept
 * `webllm:<name>` for them.
 */
export const MAX_CUSTOM_MODELS = 32;

export class CustomModels {
  list = $state.raw<CustomModel[]>([]);
  error = $state<string | null>(null);
  private loading: Promise<void> | null = null;

  constructor(private readonly db: () => ParleyDb = database) {}

  /** Reads the stored list (once per page). */
  load(): Promise<void> {
    this.loading ??= getCustomModels(this.db()).then(
      (models) => this.adopt(models),
      () => void (this.error = 'Your own models could not be read from this browser’s storage.'),
    );
    return this.loading;
  }

  async add(model: CustomModel): Promise<boolean> {
    if (this.list.length >= MAX_CUSTOM_MODELS && !this.list.some((m) => m.name === model.name)) {
      this.error = `At most ${MAX_CUSTOM_MODELS} models of your own; remove one first.`;
      return false;
    }
    return this.save([...this.list.filter((m) => m.name !== model.name), model]);
  }

  async remove(name: string): Promise<boolean> {
    return this.save(this.list.filter((m) => m.name !== name));
  }

  private async save(next: CustomModel[]): Promise<boolean> {
    try {
      await putCustomModels(this.db(), next);
    } catch {
      this.error = 'The list could not be saved in this browser’s storage.';
      return false;
    }
    this.error = null;
    this.adopt(next);
    return true;
  }

  private adopt(models: CustomModel[]): void {
    this.list = models;
    useCustomModels(models);
    sim().send({ type: 'webllm.custom', models });
  }
}

/** The page's one list of the user's own models. */
export const customModels = new CustomModels();
