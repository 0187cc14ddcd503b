/** What every game's model seat keeps of an answer: its raw text for the record, and the model's thinking beside its move. */
import type { Problem } from '../../engine/errors';
import type { Result } from '../../engine/result';
import { clip } from './json-text';
import { show } from './fields';

/** What a game's decoder makes of an answer: a move, or why not; and the model's thinking, where it wrote any. */
export type Decoding<Mv, P extends Problem = Problem> = Result<Mv, P> & { thinking?: string };

/** Raw output and thinking are kept up to this length (the event schema's limit). */
export const MAX_RAW_LENGTH = 200_000;
/** Only this many tool calls of one answer are read. */
export const MAX_TOOL_CALLS = 8;

export interface ToolCallLike {
  name?: unknown;
  arguments?: unknown;
}

/** Text of any value, never throwing. */
export function asText(x: unknown): string {
  if (typeof x === 'string') return x;
  if (x === undefined || x === null) return '';
  try {
    return String(x);
  } catch {
    return Object.prototype.toString.call(x);
  }
}

/** The model's output as one text, for the record: the answer, then each tool call. */
export function renderRaw(text: unknown, toolCalls?: unknown): string {
  let raw = asText(text);
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls.slice(0, MAX_TOOL_CALLS) as ToolCallLike[]) {
      const args = call?.arguments;
      raw += `${raw === '' ? '' : '\n'}[tool call] ${asText(call?.name)}(${typeof args === 'string' ? args : show(args, 2000)})`;
    }
  }
  return clip(raw, MAX_RAW_LENGTH);
}

/** The decoding with the model's thinking beside it. */
export function withThinking<R extends Result<unknown, Problem>>(result: R, thinking: string | undefined): R & { thinking?: string } {
  return thinking === undefined ? result : { ...result, thinking };
}
