/**
 * A step of an episode as the environment server reads it: the policy's answer, its raw text or
 * its tool calls, checked for size and depth and turned into the ChatResponse a backend would
 * have returned.
 */
import { z } from 'zod';
import type { ChatResponse } from '../agents/backends/types';
import { deeperThan } from './json-depth';

/** A step's text, its completion or one tool call's arguments, is at most this many characters (the raw answer a log keeps). */
export const MAX_ANSWER_CHARS = 200_000;
/** Arguments sent as an object may nest this deep; a move's are one level. */
const MAX_ARGUMENTS_DEPTH = 32;

/** A tool call as the decoder reads it, from OpenAI's shape (`{id, type, function: {name, arguments}}`) or a bare `{name, arguments}`. */
function toolCallOf(call: Record<string, unknown>): { name: string; arguments: unknown } {
  const fn = typeof call.function === 'object' && call.function !== null ? (call.function as Record<string, unknown>) : call;
  return { name: typeof fn.name === 'string' ? fn.name : '', arguments: fn.arguments };
}

/** Arguments as text: a string as it came, an object as JSON (checked for depth first by the schema). */
const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

/** The policy's answer from a step's body: its raw text, its tool calls, or both. */
export const StepRequestSchema = z
  .strictObject({
    completion: z.string().max(MAX_ANSWER_CHARS).optional(),
    /** OpenAI's shape or a bare `{name, arguments}`. */
    tool_calls: z
      .array(z.record(z.string(), z.unknown()))
      .max(32)
      .superRefine((calls, ctx) =>
        calls.forEach((call, i) => {
          const args = toolCallOf(call).arguments;
          if (typeof args === 'object' && args !== null && deeperThan(args, MAX_ARGUMENTS_DEPTH))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'arguments'],
              message: `nested over ${MAX_ARGUMENTS_DEPTH} deep; send the model's arguments as the string it wrote`,
            });
          else if (argumentsText(args).length > MAX_ANSWER_CHARS)
            ctx.addIssue({ code: 'custom', path: [i, 'arguments'], message: `over ${MAX_ANSWER_CHARS.toLocaleString('en-US')} characters` });
        }),
      )
      .optional(),
    /** `length` when the answer stopped at the token limit: an unfinished answer, refused like the LLM agent refuses one. */
    finish_reason: z.string().max(100).optional(),
  })
  .refine((s) => s.completion !== undefined || s.tool_calls !== undefined, { message: 'a step needs "completion" or "tool_calls"' });
export type StepRequest = z.infer<typeof StepRequestSchema>;

/** The answer as a backend would have returned it. Whatever the tool calls hold is left to the decoder to refuse. */
export function stepAnswer(step: StepRequest): ChatResponse {
  const response: ChatResponse = { text: step.completion ?? '', tokensIn: 0, tokensOut: 0 };
  if (step.tool_calls !== undefined)
    response.toolCalls = step.tool_calls.map((call) => {
      const { name, arguments: args } = toolCallOf(call);
      return { name, arguments: argumentsText(args) };
    });
  if (step.finish_reason === 'length') response.truncated = true;
  return response;
}
