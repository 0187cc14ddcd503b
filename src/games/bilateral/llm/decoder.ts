/**
 * The tolerant action decoder: whatever a model answered, a Move or a reason it is not one.
 * It never throws. Tool calls come first, then the text: thinking split off, then the whole
 * answer, fenced blocks, and balanced objects in the prose, in that order; the first that makes
 * a valid move wins, else the most telling problem is returned (agent.ts records the raw output).
 */
import type { Move } from '../moves';
import { err, ok } from '../../../engine/result';
import { asText, MAX_RAW_LENGTH, MAX_TOOL_CALLS, withThinking, type Decoding, type ToolCallLike } from '../../../agents/llm/answer';
import { clip, eachBalancedObject, fencedBlocks, MAX_SCAN, parseLoose, splitThinking } from '../../../agents/llm/json-text';
import { fieldsOf, first, isPlainObject, kindOf, show } from '../../../agents/llm/fields';
import { finishMove, moveFromValue, type Decoded } from './normalize';
import { moveProblem, type MoveProblem } from './problems';
import { toolCallToMove } from './schema';

export type DecodeResult = Decoding<Move, MoveProblem>;

export function decodeMove(text: unknown, toolCalls?: unknown): DecodeResult {
  let thinking: string | undefined;
  try {
    const split = splitThinking(asText(text));
    thinking = split.thinking === undefined ? undefined : clip(split.thinking, MAX_RAW_LENGTH);
    let toolFailure: Decoded | undefined;
    if (Array.isArray(toolCalls) && toolCalls.length > 0) {
      const fromTools = decodeToolCalls(toolCalls);
      if (fromTools.ok) return withThinking(fromTools, thinking);
      toolFailure = fromTools;
    }
    const fromText = decodeText(split.answer, split.unclosed);
    return withThinking(fromText.ok ? fromText : (toolFailure ?? fromText), thinking);
  } catch (e) {
    // Nothing above should throw; if it does, the model's answer is still only an invalid move.
    return withThinking(err(moveProblem('answer-unreadable', { error: clip(e instanceof Error ? e.message : asText(e), 200) })), thinking);
  }
}

/** One move from the tool calls: at most one binding action; messages are joined. */
function decodeToolCalls(calls: readonly unknown[]): Decoded {
  const moves: Move[] = [];
  for (const call of calls.slice(0, MAX_TOOL_CALLS) as ToolCallLike[]) {
    const name = call?.name;
    const decoded = toolCallToMove(name, call?.arguments);
    if (!decoded.ok) return err(moveProblem('in-tool-call', { tool: show(name, 40), problem: decoded.error }));
    moves.push(decoded.value);
  }
  if (moves.length === 1) return ok(moves[0] as Move);
  const actions = moves.flatMap((m) => (m.action ? [m.action] : []));
  if (actions.length > 1) return err(moveProblem('too-many-actions', { count: actions.length }));
  const messages = moves.flatMap((m) => (m.message === undefined ? [] : [m.message]));
  return finishMove(messages.length > 0 ? messages.join(' ') : undefined, actions[0]);
}

function decodeText(answer: string, unclosed: boolean): Decoded {
  const scan = answer.slice(0, MAX_SCAN).trim();
  if (scan === '') return err(moveProblem(unclosed ? 'unclosed-thinking' : 'answer-empty'));
  let moveFailure: Decoded | undefined;
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
      found = decoded.value;
      return true;
    }
    moveFailure ??= decoded;
    return 'skip';
  };

  if ((scan.startsWith('{') || scan.startsWith('[')) && attempt(scan) === true && found) return ok(found);
  for (const block of fencedBlocks(scan)) {
    const inner = block.trim();
    if (inner.startsWith('{') && attempt(inner) === true && found) return ok(found);
  }
  eachBalancedObject(scan, attempt);
  if (found) return ok(found);

  const bare = bareAction(scan);
  if (bare) return bare;
  if (moveFailure !== undefined) return moveFailure;
  if (parseError !== undefined) return err(moveProblem('json-unparsable', { error: parseError }));
  return err(moveProblem('no-json-move'));
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
