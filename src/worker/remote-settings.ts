import type { RemoteSettings } from '../agents/remote';
import type { RemoteConfig } from './messages';

/** The registry's settings from what the page sent: each provider's key and base URL, nothing stored. */
export function remoteSettings(config: RemoteConfig | undefined): RemoteSettings {
  if (!config) return {};
  const providers = config.providers;
  const baseUrls = Object.fromEntries(Object.entries(providers).flatMap(([provider, p]) => (p?.baseUrl ? [[provider, p.baseUrl]] : [])));
  return {
    apiKey: (provider) => providers[provider]?.apiKey || undefined,
    baseUrls,
  };
}
