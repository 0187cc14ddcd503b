/**
 * What this tab is playing, gathered from sessions that load with their own page (the Market's):
 * each says, in words, what it has in play, or null. The update prompt reads it through AppState,
 * without the first page loading those pages' code.
 */
const sources = new Set<() => string | null>();

/** Adds a session's say; the returned function takes it back. */
export function reportInPlay(source: () => string | null): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

/** The first thing a reporting session has in play, in words, or null. */
export function reportedInPlay(): string | null {
  for (const source of sources) {
    const playing = source();
    if (playing !== null) return playing;
  }
  return null;
}
