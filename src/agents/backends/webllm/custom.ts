/**
 * The user's own WebLLM models (a Qwen3 fine-tuned on Parley's data and compiled with MLC, say):
 * a name that is its model id, where its MLC weights are, where its compiled model library is,
 * and its context window. Each becomes one record of WebLLM's app config (`ModelRecord`), and
 * takes a seat as `webllm:<name>` like the built-in Qwen3 builds. The list is kept in settings by
 * the page; the page and the simulation worker each hold the current list here (`useCustomModels`),
 * so a spec that names one parses in either.
 */
import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';
import { z } from 'zod';
import { QUANTIZATIONS, QWEN3_SIZES, qwen3ModelId } from './models';

const BUILT_IN: ReadonlySet<string> = new Set(QWEN3_SIZES.flatMap((size) => QUANTIZATIONS.map((q) => qwen3ModelId(size, q))));

/** An https URL, or a path on this site (`/models/…`): where WebLLM may fetch a model's files from. */
const location = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `Give the URL of ${what}.`)
    .max(2000, `The URL of ${what} is over 2,000 characters.`)
    .refine((text) => {
      if (text.startsWith('/') && !text.startsWith('//')) return !/\s/.test(text);
      try {
        return new URL(text).protocol === 'https:';
      } catch {
        return false;
      }
    }, `The URL of ${what} must start with https:// or be a path on this site starting with /.`);

export const CUSTOM_CONTEXT_MIN = 1024;
export const CUSTOM_CONTEXT_MAX = 131_072;

export const CustomModelSchema = z.object({
  /** The model id WebLLM knows it by, and the name the app shows. */
  name: z
    .string()
    .trim()
    .min(1, 'Give the model a name.')
    .max(100, 'The name is over 100 characters.')
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'The name may hold letters, digits, ".", "_" and "-", and starts with a letter or digit.')
    .refine((name) => !BUILT_IN.has(name), 'That name is a built-in Qwen3 build; choose another.'),
  /** The folder of its MLC weights (`mlc_llm convert_weight`'s output, with `mlc-chat-config.json`). */
  weightsUrl: location('the MLC weights'),
  /** Its compiled model library (`mlc_llm compile … --device webgpu`, a .wasm file). */
  libraryUrl: location('the model library'),
  /** Tokens of context, prompt and answer together. */
  contextWindow: z
    .number({ error: 'The context window is a whole number of tokens.' })
    .int('The context window is a whole number of tokens.')
    .min(CUSTOM_CONTEXT_MIN, `The context window is at least ${CUSTOM_CONTEXT_MIN.toLocaleString('en-US')} tokens.`)
    .max(CUSTOM_CONTEXT_MAX, `The context window is at most ${CUSTOM_CONTEXT_MAX.toLocaleString('en-US')} tokens.`),
});
export type CustomModel = z.infer<typeof CustomModelSchema>;
export type CustomModelField = keyof CustomModel;
/** At most 32, so that they and the built-in builds fit one model-list answer (64). */
export const CustomModelListSchema = z.array(CustomModelSchema).max(32);

/** A path on this site is resolved against `origin`; an https URL is kept as it is. */
const resolve = (url: string, origin: string): string => (url.startsWith('/') ? new URL(url, origin).href : url);

/** WebLLM's record of the model: where its weights and library are, and its context window. */
export function customModelRecord(model: CustomModel, origin: string): ModelRecord {
  const weights = resolve(model.weightsUrl, origin);
  return {
    // WebLLM joins file names onto the weights URL: it must end in a slash.
    model: weights.endsWith('/') ? weights : `${weights}/`,
    model_id: model.name,
    model_lib: resolve(model.libraryUrl, origin),
    overrides: { context_window_size: model.contextWindow },
  };
}

let current: ReadonlyMap<string, CustomModel> = new Map();

/** Replaces the list this thread knows (the page after reading settings, the worker when told). */
export function useCustomModels(models: readonly CustomModel[]): void {
  current = new Map(models.map((m) => [m.name, m]));
}

export const customModel = (modelId: string): CustomModel | undefined => current.get(modelId);
export const customModels = (): CustomModel[] => [...current.values()];

/** The records of every custom model this thread knows, or undefined when there are none. */
export function customModelsAppConfig(origin: string): AppConfig | undefined {
  return current.size === 0 ? undefined : { model_list: [...current.values()].map((m) => customModelRecord(m, origin)) };
}

/** The app config that loads a custom model: its record alone. Undefined for any other model. */
export function customAppConfig(modelId: string, origin: string): AppConfig | undefined {
  const model = current.get(modelId);
  return model ? { model_list: [customModelRecord(model, origin)] } : undefined;
}
