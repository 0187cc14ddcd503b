/**
 * A language model in a market seat (the seller, or the buyer pool) over any ChatBackend, asked as
 * the bilateral seats are (modelSeat in src/games/bilateral/llm/agent.ts): tools or JSON, temperature, token limit,
 * thinking, a seed per request, and every call recorded on its event. A refused answer comes back
 * as an invalid reply (the runner retries with the reason); a failing backend throws.
 */
import type { MarketMove, MarketRole } from '../moves';
import type { MarketObservation } from '../state';
import type { MarketAgent } from '../tournament';
import type { ChatBackend } from '../../../agents/backends/types';
import { modelSeat, type LlmAgentOptions } from '../../../agents/llm/seat';
import { buildMarketPrompt } from './prompt';
import { decodeMarketMove, MARKET_SCHEMA_NAMES, marketAnswerProblem, marketJsonSchema, marketTools } from './schema';

/** A model seat for `role`; the options are the bilateral seat's. */
export function marketLlmAgent(backend: ChatBackend, role: MarketRole, opts: LlmAgentOptions = {}): MarketAgent {
  return modelSeat<MarketObservation, MarketMove>(
    backend,
    {
      tools: () => marketTools(role),
      jsonSchema: () => marketJsonSchema(role),
      schemaName: MARKET_SCHEMA_NAMES[role],
      prompt: buildMarketPrompt,
      decode: (text, toolCalls) => decodeMarketMove(role, text, toolCalls),
      refuse: (obs) => (obs.role === role ? null : marketAnswerProblem('wrong-seat', { seat: role, asked: obs.role })),
    },
    opts,
  );
}
