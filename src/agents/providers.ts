/**
 * Every remote model provider, described once: where it is, how it is called, what it can do.
 * The backends, the spec parser (`+think`), the command line (key variables) and the Models page
 * read this table; nothing else lists providers. It imports nothing, so the page and the spec
 * parser load no backend for it.
 */

/** The wire protocol a provider speaks. */
export type WireDialect = 'openai' | 'anthropic' | 'gemini';

/**
 * How a provider is told to think, and told not to:
 * - `reasoning-effort`: OpenAI's `reasoning_effort: "low"`; off sends nothing (non-reasoning
 *   models refuse the field), and a thinking request sends no temperature (reasoning models refuse it);
 * - `openrouter-reasoning`: OpenRouter's `reasoning: { effort: "low" }`, off `{ effort: "none" }`;
 * - `deepseek-thinking`: `thinking: { type: "enabled" | "disabled" }`;
 * - `ollama-think`: Ollama's `think`, which its `/v1` endpoint takes as `reasoning_effort`
 *   (`"low"` on, `"none"` off);
 * - `chat-template-kwargs`: `chat_template_kwargs: { enable_thinking }`, Qwen3's switch on vLLM and SGLang;
 * - `anthropic-budget`: `thinking: { type: "enabled", budget_tokens }`; off sends nothing;
 * - `anthropic-adaptive`: `thinking: { type: "adaptive" }` with `output_config: { effort: "low" }`
 *   (Claude Opus 4.6, Sonnet 4.6 and later, which deprecate or refuse the budget); off sends nothing;
 * - `gemini-thinking-config`: `generationConfig.thinkingConfig`, a budget on, `thinkingBudget: 0` off;
 * - `none`: no setting reaches it, so a spec's `+think` is refused.
 */
export const THINKING_DIALECTS = [
  'reasoning-effort',
  'openrouter-reasoning',
  'deepseek-thinking',
  'ollama-think',
  'chat-template-kwargs',
  'anthropic-budget',
  'anthropic-adaptive',
  'gemini-thinking-config',
  'none',
] as const;
export type ThinkingDialect = (typeof THINKING_DIALECTS)[number];

/**
 * How a JSON answer is asked for: 'json_schema' decodes by the move's schema; 'json_object'
 * only guarantees JSON (the prompt carries the shape); 'none' sends nothing.
 */
export type JsonMode = 'json_schema' | 'json_object' | 'none';

/**
 * When the tools interface makes the model call a tool, rather than letting it answer in prose:
 * `always`; `without-thinking`, where a forced call and thinking do not go together (Anthropic
 * refuses them with a 400); `never`, where forcing is not known to be taken. It goes out in each
 * wire's words: `tool_choice: "required"`, Anthropic's `tool_choice: { type: "any" }`, Gemini's
 * `toolConfig.functionCallingConfig.mode: "ANY"`.
 */
export type ForceTool = 'always' | 'without-thinking' | 'never';

/**
 * One family of a provider's models, told apart by its id, where it differs from the provider's
 * defaults: the first family whose pattern matches a model id (case aside) describes that model.
 */
export interface ModelFamily {
  /** Named in docs/models.md's table. */
  label: string;
  pattern: RegExp;
  /** The model's temperature is its own (any other is refused): none is sent. */
  fixedTemperature?: boolean;
  thinking?: ThinkingDialect;
  json?: JsonMode;
  strict?: boolean;
}

export interface ProviderInfo {
  label: string;
  wire: WireDialect;
  /** The provider's own address; OpenAI-compatible ones end in `/v1`. */
  baseUrl: string;
  /** Where the command line reads its key. */
  keyEnv: string;
  needsKey: boolean;
  /** Runs on the user's own machine. */
  local: boolean;
  /** Takes function tools (the `tools` interface uses them natively). */
  tools: boolean;
  json: JsonMode;
  /**
   * Takes `strict: true` on a JSON-schema response format and on function tools, so that the
   * answer is decoded to the schema exactly. On the OpenAI wire it is sent only with a schema
   * strict mode accepts (every property required, no others allowed: strictReady), so a looser
   * one still goes, unflagged; Anthropic's strict tools get the schema in its subset (toAnthropicSchema).
   */
  strict: boolean;
  forceTool: ForceTool;
  thinking: ThinkingDialect;
  /** Takes a sampling `seed`, so a rerun can draw the same tokens. */
  seed: boolean;
  /** OpenAI's reasoning models refuse `max_tokens` and want `max_completion_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /**
   * Tokens of context assumed for its models, prompt and answer together: the prompt is fitted
   * under it. Local servers default to small windows (Ollama and LM Studio load 4,096 unless told).
   */
  contextWindow: number;
  /** A small, cheap model for the Models page's connection test. */
  testModel: string;
  /** Where some of its models differ from the above: the first family that matches the id. */
  families?: readonly ModelFamily[];
}

/**
 * Claude's families, oldest first. Claude Opus 4.6 and Sonnet 4.6 take adaptive thinking and
 * deprecate the budget; the models after them refuse the budget and any temperature but 1.0 (a
 * 400), so an id that matches no older family is taken to be one of those. JSON-schema output
 * (`output_config.format`) and strict tools came with the 4.5 models.
 */
const ANTHROPIC_FAMILIES: readonly ModelFamily[] = [
  { label: 'Claude 3', pattern: /^claude-3-/, thinking: 'anthropic-budget', json: 'none', strict: false },
  {
    label: 'Claude Opus 4, 4.1 and Sonnet 4',
    pattern: /^claude-(opus|sonnet)-4(-[01])?(-\d{8}|-latest)?$/,
    thinking: 'anthropic-budget',
    json: 'none',
    strict: false,
  },
  { label: 'Claude 4.5 (Haiku, Sonnet, Opus)', pattern: /^claude-(haiku|sonnet|opus)-4-5/, thinking: 'anthropic-budget' },
  { label: 'Claude Opus 4.6 and Sonnet 4.6', pattern: /^claude-(opus|sonnet)-4-6/, thinking: 'anthropic-adaptive' },
  { label: 'later Claude models (Opus 4.7 on)', pattern: /./, fixedTemperature: true },
];

/** JSON modes are the safe choice for most of each provider's models (Groq, Together and DeepSeek take `json_object` everywhere, `json_schema` only on some). */
export const PROVIDERS = {
  openai: {
    label: 'OpenAI',
    wire: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    keyEnv: 'OPENAI_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    json: 'json_schema',
    strict: true,
    forceTool: 'always',
    thinking: 'reasoning-effort',
    seed: true,
    maxTokensField: 'max_completion_tokens',
    contextWindow: 128_000,
    testModel: 'gpt-4o-mini',
    families: [
      // "Only the default (1) value is supported", whether or not they are told to think.
      { label: 'reasoning models (o1, o3, o4-mini, gpt-5…)', pattern: /^(o\d|gpt-5)/, fixedTemperature: true },
    ],
  },
  openrouter: {
    label: 'OpenRouter',
    wire: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    keyEnv: 'OPENROUTER_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    json: 'json_schema',
    strict: false,
    forceTool: 'without-thinking',
    thinking: 'openrouter-reasoning',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 32_768,
    testModel: 'openai/gpt-4o-mini',
  },
  groq: {
    label: 'Groq',
    wire: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    keyEnv: 'GROQ_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    json: 'json_object',
    strict: false,
    forceTool: 'always',
    // Its reasoning models each take other values (qwen3: none/default, gpt-oss: low/medium/high).
    thinking: 'none',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 32_768,
    testModel: 'llama-3.1-8b-instant',
  },
  together: {
    label: 'Together AI',
    wire: 'openai',
    baseUrl: 'https://api.together.ai/v1',
    keyEnv: 'TOGETHER_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    json: 'json_object',
    strict: false,
    forceTool: 'never',
    thinking: 'none',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 32_768,
    testModel: 'meta-llama/Llama-3.2-3B-Instruct-Turbo',
  },
  deepseek: {
    label: 'DeepSeek',
    wire: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    keyEnv: 'DEEPSEEK_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    json: 'json_object',
    strict: false,
    forceTool: 'without-thinking',
    thinking: 'deepseek-thinking',
    seed: false,
    maxTokensField: 'max_tokens',
    contextWindow: 65_536,
    testModel: 'deepseek-chat',
  },
  ollama: {
    label: 'Ollama',
    wire: 'openai',
    baseUrl: 'http://localhost:11434/v1',
    keyEnv: 'OLLAMA_API_KEY',
    needsKey: false,
    local: true,
    tools: true,
    json: 'json_schema',
    strict: false,
    forceTool: 'never',
    thinking: 'ollama-think',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 4_096,
    testModel: 'qwen3:0.6b',
  },
  lmstudio: {
    label: 'LM Studio',
    wire: 'openai',
    baseUrl: 'http://localhost:1234/v1',
    keyEnv: 'LMSTUDIO_API_KEY',
    needsKey: false,
    local: true,
    tools: true,
    json: 'json_schema',
    strict: false,
    forceTool: 'never',
    thinking: 'none',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 4_096,
    testModel: 'qwen3-0.6b',
  },
  vllm: {
    label: 'vLLM',
    wire: 'openai',
    baseUrl: 'http://localhost:8000/v1',
    keyEnv: 'VLLM_API_KEY',
    needsKey: false,
    local: true,
    tools: true,
    json: 'json_schema',
    strict: false,
    forceTool: 'without-thinking',
    thinking: 'chat-template-kwargs',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 32_768,
    testModel: 'Qwen/Qwen3-0.6B',
  },
  sglang: {
    label: 'SGLang',
    wire: 'openai',
    baseUrl: 'http://localhost:30000/v1',
    keyEnv: 'SGLANG_API_KEY',
    needsKey: false,
    local: true,
    tools: true,
    json: 'json_schema',
    strict: false,
    forceTool: 'never',
    thinking: 'chat-template-kwargs',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 32_768,
    testModel: 'Qwen/Qwen3-0.6B',
  },
  anthropic: {
    label: 'Anthropic',
    wire: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    keyEnv: 'ANTHROPIC_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    // What its newest models take; the families below say where older ones differ.
    json: 'json_schema',
    strict: true,
    forceTool: 'without-thinking',
    thinking: 'anthropic-adaptive',
    seed: false,
    maxTokensField: 'max_tokens',
    contextWindow: 200_000,
    testModel: 'claude-haiku-4-5',
    families: ANTHROPIC_FAMILIES,
  },
  gemini: {
    label: 'Gemini',
    wire: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    keyEnv: 'GEMINI_API_KEY',
    needsKey: true,
    local: false,
    tools: true,
    json: 'json_schema',
    strict: false,
    forceTool: 'always',
    thinking: 'gemini-thinking-config',
    seed: true,
    maxTokensField: 'max_tokens',
    contextWindow: 1_000_000,
    testModel: 'gemini-2.5-flash',
  },
} as const satisfies Record<string, ProviderInfo>;

export type RemoteProvider = keyof typeof PROVIDERS;
/** Remote model providers an agent spec may name: `openai:gpt-4o-mini`, `vllm:Qwen/Qwen3-8B`. */
export const REMOTE_PROVIDERS = Object.keys(PROVIDERS) as [RemoteProvider, ...RemoteProvider[]];

/** The providers that speak the OpenAI Chat Completions protocol. */
export type OpenAiCompatibleProvider = { [P in RemoteProvider]: (typeof PROVIDERS)[P]['wire'] extends 'openai' ? P : never }[RemoteProvider];
export const OPENAI_COMPATIBLE = REMOTE_PROVIDERS.filter((p) => PROVIDERS[p].wire === 'openai') as OpenAiCompatibleProvider[];

export const providerInfo = (provider: RemoteProvider): ProviderInfo => PROVIDERS[provider];

/** Whether `+think` can reach a provider's models. */
export const canThink = (provider: RemoteProvider): boolean => PROVIDERS[provider].thinking !== 'none';

/** What one model of a provider takes: its family's word where it has one, else the provider's. */
export interface ModelTraits {
  /** Whether a temperature may be sent (no: the model's own is fixed). */
  temperature: boolean;
  thinking: ThinkingDialect;
  json: JsonMode;
  strict: boolean;
  forceTool: ForceTool;
  /** The family that matched, where one did. */
  family?: string;
}

/** A model's traits, by the first of its provider's families whose pattern matches the id. */
export function modelTraits(provider: RemoteProvider, model: string): ModelTraits {
  const p: ProviderInfo = PROVIDERS[provider];
  const family = p.families?.find((f) => f.pattern.test(model.trim().toLowerCase()));
  const traits: ModelTraits = {
    temperature: !(family?.fixedTemperature ?? false),
    thinking: family?.thinking ?? p.thinking,
    json: family?.json ?? p.json,
    strict: family?.strict ?? p.strict,
    forceTool: p.forceTool,
  };
  if (family) traits.family = family.label;
  return traits;
}

/** Whether a tool call is forced, under a provider's rule, for a request that does or does not think. */
export const forcesTool = (rule: ForceTool, thinking: boolean): boolean => rule === 'always' || (rule === 'without-thinking' && !thinking);
