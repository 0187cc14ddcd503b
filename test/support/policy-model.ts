/**
 * A scripted "model" for the local chat server that reads its prompt, so a test can recompute
 * every move it made from the prompt stored on the move's call record.
 */
import type { Move } from '../../src/games/bilateral/moves';
import type { Role } from '../../src/games/bilateral/scenario';
import { roundCents } from '../../src/engine/money';
import { move, promptOf, toolCall, type Answer, type RecordedRequest } from './chat-server';

/**
 * A "model" that reads its prompt: it accepts a pending offer within 10% of its own value and
 * otherwise concedes a fixed step per own turn. Pure, so the test can recompute every move.
 */
export function policy(prompt: string): Move {
  const role = /You are the (buyer|seller)/.exec(prompt)?.[1] as Role;
  const own = Number(/Your private (?:value for it|cost): \$(\d+(?:\.\d+)?)/.exec(prompt)?.[1]);
  const ownTurn = Number(/your turn (\d+)/.exec(prompt)?.[1]);
  const pendingText = /binding offer of \$(\d+(?:\.\d+)?); you may accept it/.exec(prompt)?.[1];
  const pending = pendingText === undefined ? null : Number(pendingText);
  const message = ownTurn === 1 ? `Hello from the ${role}.` : undefined;
  const withMessage = (m: Move): Move => (message === undefined ? m : { message, ...m });
  if (role === 'buyer') {
    if (pending !== null && pending <= own * 0.9) return withMessage({ action: { type: 'accept' } });
    return withMessage({ action: { type: 'offer', price: roundCents(own * Math.min(0.9, 0.5 + 0.08 * (ownTurn - 1))) } });
  }
  if (pending !== null && pending >= own * 1.1) return withMessage({ action: { type: 'accept' } });
  return withMessage({ action: { type: 'offer', price: roundCents(own * Math.max(1.1, 2 - 0.15 * (ownTurn - 1))) } });
}

export const promptTextOf = (req: RecordedRequest): string => {
  const { system, user } = promptOf(req);
  return `${system}\n${user}`;
};

/** The policy's move in the form the request asked for: a tool call where tools were given, else JSON. */
export function policyAnswer(req: RecordedRequest): Answer {
  const m = policy(promptTextOf(req));
  const asksTools = Array.isArray((req.body as { tools?: unknown }).tools);
  const usage = { tokensIn: 200 + req.index, tokensOut: 17 };
  if (!asksTools) return move(m, usage);
  const { action, message } = m;
  const said = message === undefined ? {} : { message };
  if (action?.type === 'offer') return toolCall('make_offer', { price: action.price, ...said }, usage);
  if (action?.type === 'accept') return toolCall('respond_to_offer', { decision: 'accept', ...said }, usage);
  throw new Error(`the policy made an unexpected move ${JSON.stringify(m)}`);
}
