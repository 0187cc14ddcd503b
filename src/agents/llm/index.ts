export { llmAgent, requestSeed, type LlmAgentOptions } from './agent';
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
export { DEFAULT_LLM_SETTINGS, DEFAULT_TEMPERATURE, LlmSettingsSchema, MOVE_INTERFACES, llmSettings, type LlmSettings, type MoveInterface } from './settings';
export { estimateTokens } from './tokens';
