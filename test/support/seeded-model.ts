/**
 * A language model for the conformance suite: it reads its prompt (the policy of policy-model.ts)
 * and samples like a real model, from the request's seed alone. Some answers are no move at all,
 * some are cut off at the token limit; offers are jittered by the draw. So the same seeds give
 * the same answers, and other seeds other ones, as a seeded provider does.
 */
import type { ChatBackend, ChatResponse } from '../../src/agents/backends/types';
import { createRng } from '../../src/engine/rng';
import { roundCents } from '../../src/engine/money';
import { policy } from './policy-model';

export function seededModel(): ChatBackend {
  return {
    name: 'seeded',
    model: 'seeded-policy',
    capabilities: { jsonSchema: true, tools: true, thinking: true },
    async complete(request, signal): Promise<ChatResponse> {
      signal.throwIfAborted();
      if (request.seed === undefined) throw new Error('the seeded model needs a seed');
      const rng = createRng(request.seed);
      const prompt = request.messages.map((m) => m.content).join('\n');
      const usage = { tokensIn: Math.ceil(prompt.length / 4), tokensOut: 20, latencyMs: 7 };
      const draw = rng.next();
      if (draw < 0.08) return { text: 'Let me think about a fair price first.', ...usage };
      if (draw < 0.12) return { text: '{"message":"I can offer', ...usage, tokensOut: request.maxTokens ?? 0, truncated: true };
      const move = policy(prompt);
      const action = move.action?.type === 'offer' ? { ...move.action, price: roundCents(move.action.price * (0.98 + 0.04 * rng.next())) } : move.action;
      const said = move.message === undefined ? {} : { message: move.message };
      if (request.tools === undefined) return { text: JSON.stringify({ ...said, ...(action && { action }) }), ...usage };
      const call =
        action?.type === 'offer'
          ? { name: 'make_offer', arguments: JSON.stringify({ price: action.price, ...said }) }
          : { name: 'respond_to_offer', arguments: JSON.stringify({ decision: 'accept', ...said }) };
      return { text: '', toolCalls: [call], ...usage };
    },
  };
}
