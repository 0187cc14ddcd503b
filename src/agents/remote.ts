import { z } from 'zod';
import { anthropicBackend } from './backends/anthropic';
import { geminiBackend } from './backends/gemini';
import { Limiter } from './backends/http';
import { presetBackend } from './backends/openai';
import type { ChatBackend } from './backends/types';
import { PROVIDERS, type OpenAiCompatibleProvider } from './providers';
import type { RemoteModel, RemoteProvider } from './remote-spec';

export * from './remote-spec';

/**
 * Where remote calls go and which key each host gets. A key travels only with the address it was
 * given for: a provider's key to that provider's address (its own, or the one set beside the key
 * in the app's form), the `baseUrl` key to the `baseUrl` server; never one to the other's host.
 */
export interface RemoteSettings {
  /** Replaces every provider's base URL, e.g. a lab's own vLLM cluster (the CLI's --base-url). */
  baseUrl?: string;
  /** The key for the `baseUrl` server (the CLI's PARLEY_API_KEY), and the only key it is sent. */
  baseUrlKey?: string;
  /** Replaces one provider's base URL, to be sent that provider's own key; wins over `baseUrl`. */
  baseUrls?: Partial<Record<RemoteProvider, string>>;
  /** The user's key for a provider: sent to its own address (or its entry in `baseUrls`) alone. */
  apiKey?: (provider: RemoteProvider) => string | undefined;
  /** Requests in flight at once per provider (default 8). */
  concurrency?: number;
  /** Time allowed for one HTTP call. */
  timeoutMs?: number;
}

/** The limits of the remote settings (the command line's --concurrency and --timeout-ms read them). */
export const RemoteLimitsSchema = z.object({
  concurrency: z.int().min(1).max(1024),
  timeoutMs: z.int().min(100).max(3_600_000),
});

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
    const own = s.baseUrls?.[provider];
    // The address and the key are chosen together, so a key never reaches another's host.
    const [baseUrl, apiKey] = own ? [own, s.apiKey?.(provider)] : s.baseUrl ? [s.baseUrl, s.baseUrlKey] : [undefined, s.apiKey?.(provider)];
    const common = {
      model,
      apiKey: apiKey || undefined,
      limiter,
      ...(baseUrl ? { baseUrl } : {}),
      ...(s.timeoutMs !== undefined ? { timeoutMs: s.timeoutMs } : {}),
    };
    switch (PROVIDERS[provider].wire) {
      case 'anthropic':
        return anthropicBackend(common);
      case 'gemini':
        return geminiBackend(common);
      case 'openai':
        return presetBackend(provider as OpenAiCompatibleProvider, common);
    }
  }
}
