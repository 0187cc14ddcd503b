import { PROVIDERS, type RemoteProvider } from '../../agents/remote-spec';
import { webllmModels } from '../../agents/specs';
import { needsNetwork, offlineProblem } from './availability';
import type { KeyRing } from './keys.svelte';
import { online, type Online } from './online.svelte';

/**
 * Whether the browser says it is online (`online.svelte.ts`), and where each remote provider is
 * reached (the user's base URL or its own), which decides whether a remote agent can play with the
 * network gone: a server on this machine still answers.
 */
export class Connectivity {
  private addresses: (provider: RemoteProvider) => string = (p) => PROVIDERS[p].baseUrl;

  constructor(private readonly network: Online = online) {}

  get online(): boolean {
    return this.network.now;
  }

  set online(now: boolean) {
    this.network.now = now;
  }

  /** Follows the browser for the whole page; later calls only change where providers are reached. */
  start(options: { keys?: KeyRing; target?: Window } = {}): void {
    const { keys } = options;
    if (keys) this.addresses = (p) => keys.entries[p].baseUrl.trim() || PROVIDERS[p].baseUrl;
    this.network.start(options.target);
  }

  addressOf(provider: RemoteProvider): string {
    return this.addresses(provider);
  }

  /** Whether an agent can play now; only ever false while offline. */
  available(spec: string): boolean {
    return this.online || needsNetwork([spec], { addressOf: (p) => this.addressOf(p) }).length === 0;
  }
}

/** The page's one view of the network. */
export const connectivity = new Connectivity();

/** The WebLLM models in the browser's cache, asked of the worker; undefined where it cannot say. */
async function cachedModels(): Promise<ReadonlySet<string> | undefined> {
  try {
    // Imported here: the header's badge reads this module on every page, and Home starts no worker.
    const { newId, sim } = await import('./sim');
    const reply = await sim().request({ type: 'models.list', requestId: newId() });
    if (reply.type !== 'models.listed') return undefined;
    return new Set(
      Object.entries(reply.cached)
        .filter(([, cached]) => cached)
        .map(([id]) => id),
    );
  } catch {
    return undefined;
  }
}

/**
 * Asked by a page just before it starts a game or a run: null when these agents can play now, or
 * one sentence saying which need the network while it is gone. Online, it answers at once.
 */
export async function checkBeforeStart(specs: readonly string[]): Promise<string | null> {
  if (connectivity.online) return null;
  const cached = webllmModels(specs).length > 0 ? await cachedModels() : undefined;
  return offlineProblem(specs, { addressOf: (p) => connectivity.addressOf(p), ...(cached ? { cachedModels: cached } : {}) });
}
