/**
 * Why a bilateral answer is not a move, by code (engine/errors.ts): the reading problems every game
 * shares (agents/llm/problems.ts) and the bilateral move's own. The English goes back to the model
 * on its retry and onto the `invalid` event, so each message is part of every stored log.
 */
import { BILATERAL_REFUSALS } from '../protocol';
import { problems, type Problem, type ProblemOf } from '../../../engine/errors';
import { MOVE_REFUSALS } from '../../../engine/refusals';
import { ANSWER_PROBLEMS } from '../../../agents/llm/problems';

/** Why a bilateral answer is not a move. */
export const MOVE_PROBLEMS = {
  ...ANSWER_PROBLEMS,
  'price-below-minimum': MOVE_REFUSALS['price-below-minimum'],
  'price-not-positive': MOVE_REFUSALS['price-not-positive'],
  'empty-move': BILATERAL_REFUSALS['empty-move'],
  'answer-unreadable': (d: { error: string }) => `the answer could not be read (${d.error})`,
  'answer-empty': () => 'the answer is empty',
  'unclosed-thinking': () => 'the answer ended inside <think> with no move after it',
  'json-unparsable': (d: { error: string }) => `the JSON in the answer does not parse: ${d.error}`,
  'no-json-move': () => 'no JSON move in the answer; answer with one JSON object such as {"action":{"type":"accept"}}',
  'move-not-object': (d: { value: string; array: boolean }) => `expected a JSON object for the move, got ${d.array ? 'an array' : d.value}`,
  'no-action-or-message': () => 'the JSON has no "action" and no "message"',
  'action-not-object': (d: { value: string }) => `"action" must be an object such as {"type":"accept"}, not ${d.value}`,
  'action-without-type': () => 'the action has no "type"; use offer, accept, reject or walk_away',
  'action-type-not-text': (d: { value: string }) => `the action type must be text such as "offer", not ${d.value}`,
  'unknown-action': (d: { name: string }) => `unknown action "${d.name}"; use offer, accept, reject or walk_away`,
  'response-needs-decision': (d: { value: string }) => `a response needs decision "accept" or "reject", not ${d.value}`,
  'offer-needs-price': () => 'an offer needs a "price", a number in dollars',
  'not-a-move': (d: { issue: string }) => `not a valid move: ${d.issue}`,
  'unknown-tool': (d: { tool: string; tools: readonly string[] }) => `unknown tool "${d.tool}"; use ${d.tools.join(', ')}`,
  'tool-needs-price': (d: { tool: string }) => `${d.tool} needs a "price", a number in dollars`,
  'tool-needs-decision': (d: { tool: string; value: string }) => `${d.tool} needs decision "accept" or "reject", not ${d.value}`,
  'tool-needs-message': (d: { tool: string }) => `${d.tool} needs a message`,
  /** A tool call that makes no move: the tool's name and why. */
  'in-tool-call': (d: { tool: string; problem: Problem }) => `tool call ${d.tool}: ${d.problem.message}`,
  'too-many-actions': (d: { count: number }) => `one action per turn, but the answer called ${d.count} action tools`,
} as const;

export type MoveProblem = ProblemOf<typeof MOVE_PROBLEMS>;
export const moveProblem = problems(MOVE_PROBLEMS);
