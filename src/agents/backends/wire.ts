/** Small readers for providers' JSON answers, which are trusted for nothing. */
import { tokenCount } from './types';

export const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A string field, or '' for anything else. */
export const textOf = (x: unknown): string => (typeof x === 'string' ? x : '');

/** The sum of some token counts, each read by tokenCount (0 for anything that is not a non-negative finite number), and the sum held to the same bound. */
export const countOf = (...xs: unknown[]): number => tokenCount(xs.reduce<number>((sum, x) => sum + tokenCount(x), 0));

// A tag inside the thinking would end the block early and leak the rest into the answer.
const THINK_TAG = /<\/?think(?:ing)?>/gi;

/**
 * The thinking put before the answer as `<think>…</think>`, the form the decoder splits off and
 * keeps on the event, so a provider's separate reasoning field reads like Qwen3's inline one.
 */
export const withThinking = (thinking: string, text: string): string =>
  thinking.trim() === '' ? text : `<think>${thinking.replace(THINK_TAG, '')}</think>\n${text}`;

/** The system messages joined, and the rest in order, for providers that take the system prompt apart. */
export function splitSystem<M extends { role: string; content: string }>(messages: readonly M[]): { system: string; rest: M[] } {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  return { system, rest: messages.filter((m) => m.role !== 'system') };
}
