/**
 * The tolerant action decoder: whatever a model answered, a Move or a reason it is not one.
 * It never throws. Tool calls come first, then the text: thinking split off, then the whole
 * answer, fenced blocks, and balanced objects in the prose, in that order; the first that makes
 * a valid move wins, else the most telling reason is returned with the raw output.
 */
import type { Move } from '../../core/bilateral/moves';
import { clip, eachBalancedObject, fencedBlocks, MAX_SCAN, parseLoose, splitThinking } from './json-text';
import { fieldsOf, finishMove, first, isPlainObject, kindOf, moveFromValue, show, type Decoded } from './normalize';
import { toolCallToMove } from './schema';

export type DecodeResult =
  | { ok: true; move: Move; thinking?: string }
  | { ok: false; reason: string; raw: string; thinking?: string };

/** Raw output and thinking are kept up to this length (the event schema's limit). */
export const MAX_RAW_LENGTH = 200_000;
/** Reasons are kept short: they go on the event and back to the model. */
const MAX_REASON_LENGTH = 500;
const MAX_TOOL_CALLS = 8;

interface ToolCallLike {
  name?: unknown;
  arguments?: unknown;
}

/** Text of any value, never throwing. */
function asText(x: unknown): string {
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

export function decodeMove(text: unknown, toolCalls?: unknown): DecodeResult {
  let thinking: string | undefined;
  try {
    const split = splitThinking(asText(text));
    thinking = split.thinking === undefined ? undefined : clip(split.thinking, MAX_RAW_LENGTH);
    let toolFailure: string | undefined;
    if (Array.isArray(toolCalls) && toolCalls.length > 0) {
      const fromTools = decodeToolCalls(toolCalls);
      if (fromTools.ok) return withThinking({ ok: true, move: fromTools.move }, thinking);
      toolFailure = fromTools.reason;
    }
    const fromText = decodeText(split.answer, split.unclosed);
    if (fromText.ok) return withThinking({ ok: true, move: fromText.move }, thinking);
    const reason = toolFailure ?? fromText.reason;
    return withThinking({ ok: false, reason: clip(reason, MAX_REASON_LENGTH), raw: renderRaw(text, toolCalls) }, thinking);
  } catch (e) {
    // Nothing above should throw; if it does, the model's answer is still only an invalid move.
    const reason = `the answer could not be read (${clip(e instanceof Error ? e.message : asText(e), 200)})`;
    let raw: string;
    try {
      raw = renderRaw(text, toolCalls);
    } catch {
      raw = '';
    }
    return withThinking({ ok: false, reason, raw }, thinking);
  }
}

function withThinking<R extends DecodeResult>(result: R, thinking: string | undefined): R {
  return thinking === undefined ? result : { ...result, thinking };
}

/** One move from the tool calls: at most one binding action; messages are joined. */
function decodeToolCalls(calls: readonly unknown[]): Decoded {
  const moves: Move[] = [];
  for (const call of calls.slice(0, MAX_TOOL_CALLS) as ToolCallLike[]) {
    const name = call?.name;
    const decoded = toolCallToMove(name, call?.arguments);
    if (!decoded.ok) return { ok: false, reason: `tool call ${show(name, 40)}: ${decoded.reason}` };
    moves.push(decoded.move);
  }
  if (moves.length === 1) return { ok: true, move: moves[0] as Move };
  const actions = moves.flatMap((m) => (m.action ? [m.action] : []));
  if (actions.length > 1) return { ok: false, reason: `one action per turn, but the answer called ${actions.length} action tools` };
  const messages = moves.flatMap((m) => (m.message === undefined ? [] : [m.message]));
  return finishMove(messages.length > 0 ? messages.join(' ') : undefined, actions[0]);
}

function decodeText(answer: string, unclosed: boolean): Decoded {
  const scan = answer.slice(0, MAX_SCAN).trim();
  if (scan === '')
    return {
      ok: false,
      reason: unclosed ? 'the answer ended inside <think> with no move after it' : 'the answer is empty',
    };
  let moveReason: string | undefined;
  let parseError: string | undefined;
  let found: Move | undefined;
  /** Tries one candidate: true when it is a move, 'skip' when it parsed as JSON but is not one. */
  const attempt = (json: string): boolean | 'skip' => {
    const parsed = parseLoose(json);
    if (!parsed.ok) {
      parseError ??= parsed.error;
      return false;
    }
    const decoded = moveFromParsed(parsed.value);
    if (decoded.ok) {
      found = decoded.move;
      return true;
    }
    moveReason ??= decoded.reason;
    return 'skip';
  };

  if ((scan.startsWith('{') || scan.startsWith('[')) && attempt(scan) === true && found) return { ok: true, move: found };
  for (const block of fencedBlocks(scan)) {
    const inner = block.trim();
    if (inner.startsWith('{') && attempt(inner) === true && found) return { ok: true, move: found };
  }
  eachBalancedObject(scan, attempt);
  if (found) return { ok: true, move: found };

  const bare = bareAction(scan);
  if (bare) return bare;
  if (moveReason !== undefined) return { ok: false, reason: moveReason };
  if (parseError !== undefined) return { ok: false, reason: `the JSON in the answer does not parse: ${parseError}` };
  return {
    ok: false,
    reason: 'no JSON move in the answer; answer with one JSON object such as {"action":{"type":"accept"}}',
  };
}

/** A move from parsed JSON, including a tool call written out as text, as Qwen does without native tools. */
function moveFromParsed(value: unknown): Decoded {
  if (isPlainObject(value)) {
    const f = fieldsOf(value);
    const args = first(f, ['arguments', 'parameters', 'args', 'input']);
    if (typeof f.get('name') === 'string' && args !== undefined) return toolCallToMove(f.get('name'), args[1]);
  }
  return moveFromValue(value);
}

/** A whole answer that is one action word: "ACCEPT", "walk away." (an offer needs a price, so not "offer"). */
function bareAction(scan: string): Decoded | undefined {
  if (scan.length > 40) return undefined;
  const word = scan.replace(/^[\s"'`*]+|[\s"'`*.!]+$/g, '');
  if (!/^(?:accept(?:ed)?(?:[ _]offer)?|reject(?:ed)?(?:[ _]offer)?|decline|walk[ _-]?away)$/i.test(word)) return undefined;
  const kind = kindOf(word);
  if (kind === 'accept' || kind === 'reject' || kind === 'walk_away') return finishMove(undefined, { type: kind });
  return undefined;
}
