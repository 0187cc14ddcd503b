/**
 * Finding JSON in what a model wrote: thinking blocks split off, fenced blocks, balanced objects
 * inside prose, and a forgiving parse. Every loop here is bounded, whatever the input.
 */
import { err, ok, type Result } from '../../engine/result';

/** Only this much of an answer (after the thinking) is searched for a move. */
export const MAX_SCAN = 20_000;
/** At most this many `{` are tried as the start of an object, and this many characters walked. */
const MAX_STARTS = 64;
const MAX_STEPS = 400_000;
const MAX_FENCES = 8;
const MAX_THINK_BLOCKS = 16;

const OPEN_THINK = /<think(?:ing)?>/i;
const CLOSE_THINK = /<\/think(?:ing)?>/i;

export interface Split {
  answer: string;
  /** The thinking, blocks joined; undefined when there was none or it was blank. */
  thinking: string | undefined;
  /** The text ended inside a thinking block: no answer came after it. */
  unclosed: boolean;
}

/**
 * Separates `<think>…</think>` (or `<thinking>`) blocks from the answer. A closing tag with no
 * opening one means the chat template opened the block (Qwen3, DeepSeek-R1): all before it is thinking.
 */
export function splitThinking(text: string): Split {
  const thoughts: string[] = [];
  let rest = text;
  let unclosed = false;
  for (let i = 0; i < MAX_THINK_BLOCKS; i++) {
    const open = rest.match(OPEN_THINK);
    const close = rest.match(CLOSE_THINK);
    if (i === 0 && close?.index !== undefined && (open?.index === undefined || close.index < open.index)) {
      thoughts.push(rest.slice(0, close.index));
      rest = rest.slice(close.index + close[0].length);
      continue;
    }
    if (open?.index === undefined) break;
    const after = rest.slice(open.index + open[0].length);
    const end = after.match(CLOSE_THINK);
    if (end?.index === undefined) {
      thoughts.push(after);
      rest = rest.slice(0, open.index);
      unclosed = true;
      break;
    }
    thoughts.push(after.slice(0, end.index));
    rest = rest.slice(0, open.index) + after.slice(end.index + end[0].length);
  }
  const thinking = thoughts
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .join('\n\n');
  return { answer: rest.replace(CLOSE_THINK, ''), thinking: thinking === '' ? undefined : thinking, unclosed };
}

/** The contents of ``` fenced blocks, in order. */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g;
  let m: RegExpExecArray | null;
  while (blocks.length < MAX_FENCES && (m = fence.exec(text)) !== null) blocks.push(m[1] ?? '');
  return blocks;
}

/** Index of the `}` that closes the `{` at `start` (strings and escapes respected), or -1. */
function closingBrace(text: string, start: number, budget: { steps: number }): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    if (--budget.steps < 0) return -1;
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */) depth++;
    else if (c === 125 /* } */ && --depth === 0) return i;
  }
  return -1;
}

/**
 * Calls `visit` with each balanced `{…}` in the text, earliest first, outermost first. `visit`
 * returns true to stop, 'skip' to pass over the inside of an object that parsed (so that a
 * fragment of a refused move is not taken for a move), or false to look inside it too.
 */
export function eachBalancedObject(text: string, visit: (json: string) => boolean | 'skip'): void {
  const budget = { steps: MAX_STEPS };
  let from = 0;
  for (let starts = 0; starts < MAX_STARTS && budget.steps > 0; starts++) {
    const start = text.indexOf('{', from);
    if (start < 0) return;
    const end = closingBrace(text, start, budget);
    if (end < 0) {
      from = start + 1;
      continue;
    }
    const verdict = visit(text.slice(start, end + 1));
    if (verdict === true) return;
    from = verdict === 'skip' ? end + 1 : start + 1;
  }
}

/** Parsed JSON, or the parser's own message (it goes into a problem's data). */
export type Parsed = Result<unknown, string>;

/**
 * JSON.parse, then once more after the slips models make most: trailing commas and bare keys.
 * The repair can touch string contents, which is why it is only the fallback.
 */
export function parseLoose(text: string): Parsed {
  try {
    return ok(JSON.parse(text));
  } catch (e) {
    const error = clip(e instanceof Error ? e.message : String(e), 160);
    const repaired = text.replace(/,(\s*[}\]])/g, '$1').replace(/([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)/g, '$1"$2"$3');
    if (repaired === text) return err(error);
    try {
      return ok(JSON.parse(repaired));
    } catch {
      return err(error);
    }
  }
}

/** At most `max` characters, saying how many were cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = Math.max(0, max - 40); // room for the note
  // Never half of a character written as a surrogate pair (an emoji).
  const last = text.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return `${text.slice(0, keep)}… [${text.length - keep} more characters]`;
}
