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

/** The origin paths on this site are checked against: any origin would do, paths must stay on it. */
const SOME_ORIGIN = 'https://this-site.invalid';

/**
 * Characters no model URL holds: backslashes (a URL parser reads `/\host` as `//host`, another
 * site), whitespace and control characters (it drops tabs and newlines, so `/\t/host` is `//host`
 * too) and the direction marks that make a URL read as another.
 */
const FORBIDDEN = /[\\\s\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

/**
 * Where WebLLM may fetch a model's files from, parsed as a URL: a path on this site (`/models/…`,
 * which resolves to this page's origin whatever that is) or an https URL without credentials.
 * Everything else (protocol-relative `//host`, `/\host`, `http:`, `javascript:`) is another site
 * or another protocol. Null when the text is neither.
 */
export function modelLocation(text: string): { kind: 'path' | 'https'; url: URL } | null {
  if (FORBIDDEN.test(text)) return null;
  if (text.startsWith('/')) {
    if (text.startsWith('//')) return null;
    try {
      const url = new URL(text, SOME_ORIGIN);
      // `/..//host/x` stays on this site, but its path reads as another host's: refused too.
      return url.origin === SOME_ORIGIN && !url.pathname.startsWith('//') ? { kind: 'path', url } : null;
    } catch {
      return null;
    }
  }
  try {
    const url = new URL(text);
    if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return null;
    // The text names its host right after the scheme (`https:host/x` parses too, but reads as a path).
    return text.toLowerCase().startsWith('https://') ? { kind: 'https', url } : null;
  } catch {
    return null;
  }
}

const location = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `Give the URL of ${what}.`)
    .max(2000, `The URL of ${what} is over 2,000 characters.`)
    .superRefine((text, ctx) => {
      if (modelLocation(text) !== null) return;
      // A path (or a URL) that only looks right is told what gave it away.
      const message =
        FORBIDDEN.test(text) || (text.startsWith('/') && !text.startsWith('//'))
          ? `The URL of ${what} may not hold backslashes, spaces or control characters, and a path on this site starts with one / and stays on it.`
          : `The URL of ${what} must start with https:// or be a path on this site starting with /.`;
      ctx.addIssue({ code: 'custom', message });
    });

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

/**
 * A path on this site resolved against `origin`, an https URL as its parser writes it. Throws for
 * anything else: every list is parsed with the schema first (the form, settings, the worker's
 * messages), so that would be a bug, and no file is fetched from where the user did not say.
 */
function resolve(text: string, origin: string): string {
  const location = modelLocation(text);
  if (location === null) throw new Error(`not a model URL: ${JSON.stringify(text.slice(0, 200))}`);
  if (location.kind === 'https') return location.url.href;
  const url = new URL(text, origin);
  if (url.origin !== new URL(origin).origin) throw new Error(`a path on this site left it: ${JSON.stringify(text.slice(0, 200))}`);
  return url.href;
}

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
