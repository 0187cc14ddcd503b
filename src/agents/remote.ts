import { anthropicBackend } from './backends/anthropic';
import { geminiBackend } from './backends/gemini';
import { Limiter } from './backends/http';
import { PROVIDER_IDS, presetBackend, type ProviderId } from './backends/openai';
import type { ChatBackend } from './backends/types';

/** Remote model providers an agent spec may name: `openai:gpt-4o-mini`, `vllm:Qwen/Qwen3-8B`. */
export const REMOTE_PROVIDERS = [...PROVIDER_IDS, 'anthropic', 'gemini'] as const;
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

export interface RemoteSettings {
  /** Replaces every provider's base URL, e.g. a lab's own vLLM cluster (the CLI's --base-url). */
  baseUrl?: string;
  /** Replaces one provider's base URL; wins over `baseUrl`. */
  baseUrls?: Partial<Record<RemoteProvider, string>>;
  /** The user's key for a provider; it is sent to that provider's host alone. */
  apiKey?: (provider: RemoteProvider) => string | undefined;
  /** Requests in flight at once per provider (default 8). */
  concurrency?: number;
  /** Time allowed for one HTTP call. */
  timeoutMs?: number;
  thinking?: boolean;
  temperature?: number;
}

/**
 * Backends for remote models, one per provider and model, sharing one concurrency limit per
 * provider, so a tournament never has more calls in flight to a provider than it allows.
 */
export class RemoteBackends {
  private readonly backends = new Map<string, ChatBackend>();
  private readonly limiters = new Map<RemoteProvider, Limiter>();

  constructor(private readonly settings: RemoteSettings = {}) {}

  get(spec: RemoteModel): ChatBackend {
    const key = `${spec.provider}:${spec.model}`;
    let backend = this.backends.get(key);
    if (!backend) {
      backend = this.create(spec);
      this.backends.set(key, backend);
    }
    return backend;
  }

  private create({ provider, model }: RemoteModel): ChatBackend {
    const s = this.settings;
    let limiter = this.limiters.get(provider);
    if (!limiter) {
      limiter = new Limiter(s.concurrency ?? 8);
      this.limiters.set(provider, limiter);
    }
    const baseUrl = s.baseUrls?.[provider] || s.baseUrl;
    const common = {
      model,
      apiKey: s.apiKey?.(provider),
      limiter,
      ...(baseUrl ? { baseUrl } : {}),
      ...(s.timeoutMs !== undefined ? { timeoutMs: s.timeoutMs } : {}),
    };
    if (provider === 'anthropic') return anthropicBackend(common);
    if (provider === 'gemini') return geminiBackend(common);
    return presetBackend(provider as ProviderId, common);
  }
}
