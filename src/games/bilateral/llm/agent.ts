/**
 * The bilateral game's model seat: its prompt, its move tools and JSON Schema, and its decoder,
 * given to the generic model seat (agents/llm/seat.ts).
 */
import type { Move } from '../moves';
import type { BilateralObservation } from '../protocol';
import type { BilateralAgent } from '../tournament';
import type { BackendCapabilities, ChatBackend } from '../../../agents/backends/types';
import { modelSeat, moveAsk, type LlmAgentOptions, type ModelSeatGame, type MoveAsk } from '../../../agents/llm/seat';
import { decodeMove } from './decoder';
import { buildPrompt } from './prompt';
import { MOVE_SCHEMA_NAME, moveJsonSchema, moveTools } from './schema';

/** The bilateral move's ask (moveAsk) for a seat with these options. */
export const bilateralMoveAsk = (capabilities: BackendCapabilities, opts: Pick<LlmAgentOptions, 'interface' | 'thinking'> = {}): MoveAsk =>
  moveAsk(capabilities, bilateralSeat, opts);

const bilateralSeat: ModelSeatGame<BilateralObservation, Move> = {
  tools: moveTools,
  jsonSchema: moveJsonSchema,
  schemaName: MOVE_SCHEMA_NAME,
  prompt: buildPrompt,
  decode: decodeMove,
};

export function llmAgent(backend: ChatBackend, opts: LlmAgentOptions = {}): BilateralAgent {
  return modelSeat(backend, bilateralSeat, opts);
}
