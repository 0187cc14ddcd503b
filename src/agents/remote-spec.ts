// Remote model specs as text (`provider:model`), with no backend loaded.
import { PROVIDERS, REMOTE_PROVIDERS, type RemoteProvider } from './providers';

export { OPENAI_COMPATIBLE, PROVIDERS, REMOTE_PROVIDERS, canThink, type RemoteProvider } from './providers';

/** The environment variable each provider's key is read from by the command line. */
export const KEY_ENV = Object.fromEntries(REMOTE_PROVIDERS.map((p) => [p, PROVIDERS[p].keyEnv])) as Record<RemoteProvider, string>;

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
  if (!Object.hasOwn(PROVIDERS, provider) || model === '') return null;
  return { provider: provider as RemoteProvider, model };
}
