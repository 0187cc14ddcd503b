import { anthropicBackend } from './backends/anthropic';
import { geminiBackend } from './backends/gemini';
import { Limiter } from './backends/http';
import { presetBackend, type ProviderId } from './backends/openai';
import type { ChatBackend } from './backends/types';
import { OPENAI_COMPATIBLE, type RemoteModel, type RemoteProvider } from './remote-spec';

export * from './remote-spec';

// The spec module lists the OpenAI-compatible presets without loading them; they must agree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const samePresets: Same<(typeof OPENAI_COMPATIBLE)[number], ProviderId> = true;
void samePresets;


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
