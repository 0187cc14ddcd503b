import type { RemoteProvider } from '../../agents/remote-spec';
import { err, ok, type Result } from '../../engine/result';
import { entryProblems, problemSentence } from './keys.svelte';

/** The model that answered, or why the test failed (the key never in the message). */
export type ConnectionResult = Result<{ model: string }, { message: string }>;

/** Time allowed for the test request. */
const TEST_TIMEOUT_MS = 20_000;

/**
 * Sends one tiny request through the real backend, so a key, base URL and model can be checked
 * before a run; a key or base URL the form refuses is not sent at all, and the test says why. The
 * backends are loaded only here, on demand; the key never enters the message.
 */
export async function testConnection(
  provider: RemoteProvider,
  model: string,
  entry: { apiKey: string; baseUrl: string },
  signal?: AbortSignal,
): Promise<ConnectionResult> {
  const problems = entryProblems({ ...entry, remember: false });
  const refused = problems.apiKey ?? problems.baseUrl;
  if (refused !== undefined) return err({ message: problemSentence(refused) });
  const { RemoteBackends } = await import('../../agents/remote');
  const apiKey = entry.apiKey.trim();
  const baseUrl = entry.baseUrl.trim();
  const backends = new RemoteBackends({
    apiKey: () => apiKey || undefined,
    ...(baseUrl ? { baseUrls: { [provider]: baseUrl } } : {}),
    timeoutMs: TEST_TIMEOUT_MS,
  });
  try {
    const backend = backends.get({ provider, model });
    const answer = await backend.complete(
      { messages: [{ role: 'user', content: 'Reply with the word OK.' }], maxTokens: 16, thinking: false },
      signal ?? new AbortController().signal,
    );
    return ok({ model: answer.model ?? model });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return err({ message: apiKey ? message.split(apiKey).join('[key]') : message });
  }
}
