export { llmAgent } from './agent';
export { requestSeed, type LlmAgentOptions } from './seat';
export { decodeMove, type DecodeResult } from './decoder';
export { renderRaw, MAX_RAW_LENGTH } from './answer';
export { buildPrompt, money, type PromptStyle } from './prompt';
export { promptText } from './seat';
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
export { DEFAULT_LLM_SETTINGS, DEFAULT_TEMPERATURE, LlmSettingsSchema, MOVE_INTERFACES, llmSettings, type LlmSettings, type MoveInterface } from './settings';
export { estimateTokens } from './tokens';
