/**
 * The limits the forms and the share links show and check, read from the zod schemas that define
 * them (the stored tournament config, the worker's messages, the seed, the model settings), so a
 * limit is written once: a form, its link and the worker can never disagree on one.
 */
import { z } from 'zod';
import { SeedSchema } from '../../engine/rng';
import { LlmSettingsSchema } from '../../agents/llm/settings';
import { TournamentConfigSchema } from '../../storage/schema';
import { RunNameSchema, SftExportSchema } from '../../worker/messages';
import { SftFilterSchema } from '../../training/sft';

export interface Bounds {
  min: number;
  max: number;
}

/**
 * The bounds a schema states: a number's range, a text's length or a list's size, as zod itself
 * writes them out in JSON Schema. A length or size with no lower bound starts at 0.
 */
export function boundsOf(schema: z.ZodType): Bounds {
  const json = z.toJSONSchema(schema);
  const min = json.minimum ?? json.minLength ?? json.minItems ?? (json.type === 'number' || json.type === 'integer' ? undefined : 0);
  const max = json.maximum ?? json.maxLength ?? json.maxItems;
  if (min === undefined || max === undefined) throw new Error(`a schema without both bounds: ${JSON.stringify(json)}`);
  return { min, max };
}

const tournament = TournamentConfigSchema.out.shape;
const [fixedDeadline] = tournament.deadline.options;

/** A scenario's turn limit, and each end of an uncertain deadline's range (the Arena's and the tournament's). */
export const TURN_LIMITS = boundsOf(fixedDeadline.shape.turns);

/** A tournament's limits, as the Tournament page and its share link read them. */
export const TOURNAMENT_LIMITS = {
  /** How many agents one tournament may list. */
  agents: boundsOf(tournament.agents),
  /** How long one agent's spec may be. */
  agentSpec: boundsOf(tournament.agents.element),
  scenariosPerPair: boundsOf(tournament.scenariosPerPair),
  seed: boundsOf(SeedSchema),
  turns: TURN_LIMITS,
  /** How long a run's name may be. */
  name: boundsOf(RunNameSchema),
  temperature: boundsOf(LlmSettingsSchema.shape.temperature),
} as const satisfies Record<string, Bounds>;

/** The fine-tuning export's limits, as its form reads them. */
export const SFT_LIMITS = {
  /** The lowest surplus share a picked seat may have. */
  minShare: boundsOf(SftFilterSchema.shape.minShare.unwrap()),
  /** The share of scenarios held out for validation. */
  validation: boundsOf(SftExportSchema.shape.validation),
} as const satisfies Record<string, Bounds>;

/** `from 1 to 1,000`: a range in words, its numbers as a reader writes them. */
export const rangeText = ({ min, max }: Bounds): string => `from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;

/** A student's name as the Arena, the hand-in and the class export take it (no stored record has a field of its own for it: it travels in the run's name). */
export const PlayerNameSchema = z.string().max(60);
export const PLAYER_NAME = boundsOf(PlayerNameSchema);
