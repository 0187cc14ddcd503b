import { checkApiKey, checkBaseUrl, type RemoteInputProblem } from '../../agents/remote-input';
import { REMOTE_PROVIDERS, type RemoteProvider } from '../../agents/remote-spec';
import type { ParleyDb } from '../../storage/db';
import { deleteKey, getKeys, putKey } from '../../storage/keys';
import type { RemoteConfig } from '../../worker/messages';
import { database } from './sim';

export interface ProviderEntry {
  apiKey: string;
  /** Replaces the provider's default address; '' keeps the default. */
  baseUrl: string;
  /** Kept in IndexedDB on this device; otherwise in this tab's memory only. */
  remember: boolean;
}

const blank = (): ProviderEntry => ({ apiKey: '', baseUrl: '', remember: false });

/** Why a provider's key or base URL is refused, field by field (none: both are usable). */
export interface EntryProblems {
  apiKey?: RemoteInputProblem;
  baseUrl?: RemoteInputProblem;
}

/** What is wrong with an entry as typed; no problem holds the key or a password. */
export function entryProblems(entry: ProviderEntry): EntryProblems {
  const key = checkApiKey(entry.apiKey);
  const url = entry.baseUrl.trim() === '' ? null : checkBaseUrl(entry.baseUrl);
  return {
    ...(key.ok ? {} : { apiKey: key.error }),
    ...(url === null || url.ok ? {} : { baseUrl: url.error }),
  };
}

/** A refusal as the form shows it: one sentence. */
export const problemSentence = (problem: RemoteInputProblem): string => `${problem.message.charAt(0).toUpperCase()}${problem.message.slice(1)}.`;

const usable = (problems: EntryProblems): boolean => problems.apiKey === undefined && problems.baseUrl === undefined;

/**
 * The user's API keys and base URLs, per remote provider. Held in memory; written to IndexedDB
 * only for a provider whose "remember on this device" is ticked. Never logged or exported. A key
 * or base URL that is refused (too long, a password in the URL, …) says why on the form, is
 * neither stored nor sent to the worker, and leaves its provider unconfigured until it is mended.
 */
export class KeyRing {
  entries = $state<Record<RemoteProvider, ProviderEntry>>(
    Object.fromEntries(REMOTE_PROVIDERS.map((p) => [p, blank()])) as Record<RemoteProvider, ProviderEntry>,
  );
  /** Remote models (`provider:model`) that answered a connection test in this tab, oldest first. */
  working = $state<string[]>([]);
  /** Why the remembered keys could not be read or written, if they could not. */
  error = $state<string | null>(null);
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly db: () => ParleyDb = database) {}

  /** Reads the remembered keys back. */
  async load(): Promise<void> {
    try {
      for (const row of await getKeys(this.db())) {
        if (!(REMOTE_PROVIDERS as readonly string[]).includes(row.provider)) continue;
        this.entries[row.provider as RemoteProvider] = { apiKey: row.apiKey, baseUrl: row.baseUrl, remember: true };
      }
    } catch {
      this.error = 'The remembered keys could not be read from this browser’s storage.';
    }
  }

  /** Changes a provider's entry; a remembered one is stored, and unticking "remember" deletes it. */
  set(provider: RemoteProvider, patch: Partial<ProviderEntry>): Promise<void> {
    const was = this.entries[provider];
    const entry = { ...was, ...patch };
    this.entries[provider] = entry;
    // A key held in memory only touches no storage at all, and a refused one is not stored either.
    if (!entry.remember && !was.remember) return this.writes;
    if (entry.remember && !usable(entryProblems(entry))) return this.writes;
    const db = this.db();
    // Writes go in order, so the last change is the one stored.
    this.writes = this.writes
      .then(() => (entry.remember ? putKey(db, { provider, apiKey: entry.apiKey, baseUrl: entry.baseUrl.trim() }) : deleteKey(db, provider)))
      .then(
        () => {
          this.error = null;
        },
        () => {
          this.error = 'The key could not be saved in this browser’s storage; it is kept in memory for this tab.';
        },
      );
    return this.writes;
  }

  /** Notes a remote model that answered, so the agent pickers can offer it. */
  noteWorking(spec: string): void {
    if (!this.working.includes(spec)) this.working.push(spec);
  }

  /** Why a provider's key or base URL, as typed, is refused. */
  problems(provider: RemoteProvider): EntryProblems {
    return entryProblems(this.entries[provider]);
  }

  /** Providers with a usable key or a base URL of their own: the ones offered for agents. */
  get configured(): RemoteProvider[] {
    return REMOTE_PROVIDERS.filter((p) => {
      const { apiKey, baseUrl } = this.entries[p];
      return (apiKey.trim() !== '' || baseUrl.trim() !== '') && usable(this.problems(p));
    });
  }

  /** What the worker needs for remote agents, as plain data (keys and URLs as checked); undefined when nothing is set. */
  remote(): RemoteConfig | undefined {
    const providers: RemoteConfig['providers'] = {};
    for (const p of this.configured) {
      const apiKey = this.entries[p].apiKey.trim();
      const baseUrl = this.entries[p].baseUrl.trim();
      providers[p] = { ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) };
    }
    return Object.keys(providers).length ? { providers } : undefined;
  }
}
