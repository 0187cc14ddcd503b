/**
 * How every language-model seat of a run is asked for its moves: one interface, one temperature,
 * one token limit, thinking or not. A run records these in its config, so every model of a run
 * plays under the same conditions and a resumed run plays under the ones it started with.
 */
import { z } from 'zod';

/**
 * `tools`: the research's tools make_offer, respond_to_offer, send_message and walk_away, one
 * call per turn; `json`: one JSON object per turn, decoded by the move's JSON Schema.
 */
export const MOVE_INTERFACES = ['tools', 'json'] as const;
export const MoveInterfaceSchema = z.enum(MOVE_INTERFACES);
export type MoveInterface = z.infer<typeof MoveInterfaceSchema>;

/** Qwen3's own advice for its non-thinking mode; low enough for a rational bargainer, high enough not to loop. */
export const DEFAULT_TEMPERATURE = 0.7;
export const MAX_TEMPERATURE = 2;
/** Token limits a run may set, per answer (thinking included). */
export const MIN_MAX_TOKENS = 64;
export const MAX_MAX_TOKENS = 32_768;

export const LlmSettingsSchema = z.object({
  interface: MoveInterfaceSchema,
  temperature: z.number().min(0).max(MAX_TEMPERATURE),
  /** Tokens per answer, thinking included; null gives each agent the default (a move, or thinking and a move). */
  maxTokens: z.int().min(MIN_MAX_TOKENS).max(MAX_MAX_TOKENS).nullable(),
  /** Every model thinks first (one agent alone: its spec's `+think`). */
  thinking: z.boolean(),
});
export type LlmSettings = z.infer<typeof LlmSettingsSchema>;

export const DEFAULT_LLM_SETTINGS: Readonly<LlmSettings> = Object.freeze({
  interface: 'tools',
  temperature: DEFAULT_TEMPERATURE,
  maxTokens: null,
  thinking: false,
});

/** The settings with the defaults filled in where `given` leaves one out (or undefined). */
export const llmSettings = (given: Partial<LlmSettings> = {}): LlmSettings => ({
  ...DEFAULT_LLM_SETTINGS,
  ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
});

/** Why a temperature cannot be a run's, in words for a form, or null. */
export const temperatureProblem = (temperature: unknown): string | null =>
  LlmSettingsSchema.shape.temperature.safeParse(temperature).success ? null : `The temperature must be a number from 0 to ${MAX_TEMPERATURE}.`;
