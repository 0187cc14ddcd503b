export { llmAgent, resolveMode, type LlmAgentOptions, type LlmMode } from './agent';
export { decodeMove, renderRaw, MAX_RAW_LENGTH, type DecodeResult } from './decoder';
export { buildPrompt, promptText, money, type PromptStyle } from './prompt';
export {
  MODEL_MOVE_SCHEMA,
  MOVE_SCHEMA_NAME,
  MOVE_TOOLS,
  MOVE_TOOL_NAMES,
  TOOL_SCHEMAS,
  moveJsonSchema,
  moveTools,
  toolCallToMove,
  type MoveToolName,
} from './schema';
