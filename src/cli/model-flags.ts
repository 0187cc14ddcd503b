// How the commands that seat models read their model flags and keys: the bilateral commands
// (main.ts) and the market commands (market.ts) share these.
import { WEBLLM_ONLY_IN_BROWSER } from '../games/bilateral/registry';
import { everyModelThinks } from '../agents/specs';
import { DEFAULT_LLM_SETTINGS, LlmSettingsSchema, MOVE_INTERFACES, type LlmSettings } from '../agents/llm/settings';
import { MOVE_TOKENS, THINKING_MAX_TOKENS } from '../agents/backends/types';
import { KEY_ENV, PROVIDERS, RemoteLimitsSchema, type RemoteSettings } from '../agents/remote';
import type { RemoteModel } from '../agents/remote-spec';
import { checkBaseUrl } from '../agents/remote-input';
import { choiceFlag, intFlag, numberFlag, rangeOf, usageError, type FlagTable, type ParsedArgs } from './args';

/** How every model of the run is asked for its moves; read by `llmFlags`. */
export const LLM_FLAGS = {
  interface: {
    kind: 'choice',
    choices: MOVE_INTERFACES,
    default: DEFAULT_LLM_SETTINGS.interface,
    help: 'how models move: tools (make_offer, respond_to_offer, send_message, walk_away) or one JSON object a turn',
  },
  temperature: {
    kind: 'decimal',
    value: 'T',
    ...rangeOf(LlmSettingsSchema.shape.temperature),
    default: DEFAULT_LLM_SETTINGS.temperature,
    help: "every model's sampling temperature",
  },
  'max-tokens': {
    kind: 'int',
    value: 'N',
    ...rangeOf(LlmSettingsSchema.shape.maxTokens.unwrap()),
    default: `${MOVE_TOKENS}, ${THINKING_MAX_TOKENS} for a model that thinks`,
    help: 'token limit per answer, thinking included',
  },
  thinking: { kind: 'switch', help: 'every model thinks before it moves (as a +think spec does)' },
} as const satisfies FlagTable;

/** Model calls (or negotiations) in flight at once: `--concurrency`'s range wherever it is taken. */
export const CONCURRENCY = rangeOf(RemoteLimitsSchema.shape.concurrency);

/** Where remote models are played; read by `remoteSettings`. */
export const REMOTE_FLAGS = {
  'base-url': {
    kind: 'text',
    value: 'URL',
    help: 'play every model on this OpenAI-compatible server, sent PARLEY_API_KEY and no other key',
  },
  'timeout-ms': { kind: 'int', value: 'N', ...rangeOf(RemoteLimitsSchema.shape.timeoutMs), default: 60_000, help: 'milliseconds a model call may take' },
} as const satisfies FlagTable;

/** What these checks read of a seat's spec (bilateral and market specs both have it). */
export interface SeatSpec {
  label: string;
  remote?: RemoteModel;
  webllm?: string;
}

/**
 * The environment variable a seat's model needs and the environment lacks, or null: a provider that
 * takes a key, played at its own host (a --base-url server gets PARLEY_API_KEY or nothing, and may need none).
 */
export function missingKey(spec: SeatSpec, baseUrl: string | undefined, env: Record<string, string | undefined>): string | null {
  const provider = spec.remote?.provider;
  if (!provider || !PROVIDERS[provider].needsKey || baseUrl) return null;
  return env[KEY_ENV[provider]] ? null : KEY_ENV[provider];
}

/** Remote-model settings from the flags and the environment; keys never leave this object. */
export function remoteSettings(args: ParsedArgs, env: Record<string, string | undefined>, specs: readonly SeatSpec[]): RemoteSettings {
  const given = args.values.get('base-url');
  // Refused in words that do not repeat it: it may hold a password.
  const checked = given === undefined ? undefined : checkBaseUrl(given);
  if (checked !== undefined && !checked.ok) throw usageError('bad-value', { flag: '--base-url', problem: checked.error });
  const baseUrl = checked?.value;
  for (const spec of specs) {
    if (spec.webllm !== undefined) throw usageError('webllm-in-browser', { label: spec.label, why: WEBLLM_ONLY_IN_BROWSER });
    const missing = missingKey(spec, baseUrl, env);
    if (missing) throw usageError('needs-key', { label: spec.label, variable: missing });
  }
  // A provider's variable goes to that provider's host alone; --base-url's server gets PARLEY_API_KEY and nothing else.
  return {
    ...(baseUrl ? { baseUrl, ...(env.PARLEY_API_KEY ? { baseUrlKey: env.PARLEY_API_KEY } : {}) } : {}),
    timeoutMs: intFlag(args, 'timeout-ms'),
    apiKey: (provider) => env[KEY_ENV[provider]] || undefined,
  };
}

/** How every model of the run is asked for its moves: `--interface`, `--temperature`, `--max-tokens`, `--thinking`. */
export function llmFlags(args: ParsedArgs, specs: readonly SeatSpec[]): LlmSettings {
  const maxTokens = args.values.has('max-tokens') ? intFlag(args, 'max-tokens') : null;
  const thinking = args.switches.has('thinking');
  const reachable = thinking ? everyModelThinks(specs) : null;
  if (reachable && !reachable.ok) throw usageError('bad-value', { flag: '--thinking', problem: reachable.error });
  return {
    interface: choiceFlag(args, 'interface', MOVE_INTERFACES, DEFAULT_LLM_SETTINGS.interface),
    temperature: numberFlag(args, 'temperature'),
    maxTokens,
    thinking,
  };
}

/** Control and direction-changing characters escaped, so text from a file or a model cannot rewrite the terminal. */
export const printable = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
