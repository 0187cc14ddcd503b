// Remote model specs as text (`provider:model`), with no backend loaded.
/** The OpenAI-compatible presets (backends/openai.ts), named here without loading them. */
export const OPENAI_COMPATIBLE = ['openai', 'openrouter', 'groq', 'together', 'deepseek', 'ollama', 'lmstudio', 'vllm'] as const;
/** Remote model providers an agent spec may name: `openai:gpt-4o-mini`, `vllm:Qwen/Qwen3-8B`. */
export const REMOTE_PROVIDERS = [...OPENAI_COMPATIBLE, 'anthropic', 'gemini'] as const;
export type RemoteProvider = (typeof REMOTE_PROVIDERS)[number];

/** The environment variable each provider's key is read from by the command line. */
export const KEY_ENV: Record<RemoteProvider, string> = {
  openai: 'OPENAI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  groq: 'GROQ_API_KEY',
  together: 'TOGETHER_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  ollama: 'OLLAMA_API_KEY',
  lmstudio: 'LMSTUDIO_API_KEY',
  vllm: 'VLLM_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

export interface RemoteModel {
  provider: RemoteProvider;
  /** Everything after the first colon, so model names may hold colons (`ollama:qwen3:8b`). */
  model: string;
}

/** `provider:model` for a known provider, else null (the text may name a scripted strategy). */
export function parseRemoteSpec(text: string): RemoteModel | null {
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  const provider = text.slice(0, colon);
  const model = text.slice(colon + 1).trim();
  if (!(REMOTE_PROVIDERS as readonly string[]).includes(provider) || model === '') return null;
  return { provider: provider as RemoteProvider, model };
}

