/**
 * Why a model's answer cannot be read, by code (engine/errors.ts), in every game; each game's decoder
 * adds its own codes. The English goes back to the model on its retry and onto the `invalid` event,
 * so each message is part of every stored log. Values a model wrote are kept in the data as short
 * text (`show`), never as the values themselves.
 */
import { problems, type ProblemOf } from '../../engine/errors';

/** What every game's decoder reads alike: JSON, tool calls, prices and text fields. */
export const ANSWER_PROBLEMS = {
  'price-infinite': (d: { value: string }) => `price ${d.value} is not a finite number`,
  'price-not-number': (d: { value: string }) => `price must be a number, not ${d.value}`,
  'price-unreadable': (d: { value: string }) => `price "${d.value}" is not a number`,
  'field-not-text': (d: { field: string; value: string }) => `"${d.field}" must be text, not ${d.value}`,
  'tool-without-name': () => 'a tool call without a tool name',
  'tool-arguments-not-json': (d: { tool: string; error: string }) => `the arguments of ${d.tool} are not JSON (${d.error})`,
  /** `value`: what the arguments were, where the game's decoder says it. */
  'tool-arguments-not-object': (d: { tool: string; value?: string }) =>
    `the arguments of ${d.tool} must be a JSON object${d.value === undefined ? '' : `, not ${d.value}`}`,
  /** An answer stopped at the token limit: unfinished, whatever part of it reads as a move. */
  'cut-off': (d: { tokens: number; thinking: boolean }) => `cut off at ${d.tokens} tokens; ${d.thinking ? 'think less and answer briefly' : 'answer briefly'}`,
  /**
   * The provider declined to answer (a safety refusal or a content filter), in its words, clipped;
   * retried as any invalid answer is, the model told it refused.
   */
  refused: (d: { provider: string; words: string }) => `${d.provider} refused to answer (${d.words}); answer with a move in the game`,
  /** No answer to read: too long to read, or a WebLLM move past its time (the backend's words). */
  'no-answer': (d: { error: string }) => `${d.error}; answer briefly`,
} as const;

export type AnswerProblem = ProblemOf<typeof ANSWER_PROBLEMS>;

export const answerProblem = problems(ANSWER_PROBLEMS);
