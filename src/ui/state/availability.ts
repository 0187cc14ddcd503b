import { PROVIDERS, type RemoteProvider } from '../../agents/remote-spec';
import { parseAgentSpec } from '../../games/bilateral/specs';
import { isolateText } from '../names';

/** What the page knows when it asks whether agents can play offline. */
export interface OfflineContext {
  /** The address a provider is reached at: the user's base URL, or the provider's own. */
  addressOf?: (provider: RemoteProvider) => string;
  /** WebLLM model ids in the browser's cache; unknown (undefined) when the cache could not be asked. */
  cachedModels?: ReadonlySet<string>;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A server on this machine (a local Ollama, LM Studio or vLLM) answers with the network gone. */
export function isOnThisMachine(address: string): boolean {
  try {
    const host = new URL(address).hostname;
    return LOOPBACK.has(host) || host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/** The agents among `specs` that need the network, each as its spec text, in order, once. */
export function needsNetwork(specs: readonly string[], context: OfflineContext = {}): string[] {
  const addressOf = context.addressOf ?? ((p: RemoteProvider) => PROVIDERS[p].baseUrl);
  const out: string[] = [];
  for (const text of specs) {
    const parsed = parseAgentSpec(text);
    if (!parsed.ok || out.includes(text)) continue;
    const { remote, webllm } = parsed.value;
    if (remote && !isOnThisMachine(addressOf(remote.provider))) out.push(text);
    // A model not yet downloaded needs the network for its first load.
    else if (webllm !== undefined && context.cachedModels && !context.cachedModels.has(webllm)) out.push(text);
  }
  return out;
}

/**
 * Why a game or run with these agents cannot start offline, in one sentence, or null when it can:
 * said before it starts, rather than as errors part way through.
 */
export function offlineProblem(specs: readonly string[], context: OfflineContext = {}): string | null {
  const blocked = needsNetwork(specs, context);
  if (blocked.length === 0) return null;
  const names = blocked.map((s) => isolateText(s)).join(', ');
  return `You are offline, and ${names} ${blocked.length === 1 ? 'needs' : 'need'} the network: choose scripted agents or downloaded WebLLM models, or reconnect.`;
}
