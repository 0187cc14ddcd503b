/** The browser refused a write for lack of space; nothing of that write was stored. */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';
  constructor(options?: { cause?: unknown }) {
    super('storage is full: free some space (delete or export old runs) and try again', options);
  }
}

/**
 * Whether an error is the browser's quota error. Dexie hands it on as is, or as the `inner` of an
 * AbortError when the transaction fails at commit; a bulk operation lists it among its failures.
 */
export function isQuotaError(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; inner?: unknown; cause?: unknown; failures?: unknown };
  if (e.name === 'QuotaExceededError' || e.name === 'StorageFullError') return true;
  if (isQuotaError(e.inner, depth + 1) || isQuotaError(e.cause, depth + 1)) return true;
  return Array.isArray(e.failures) && e.failures.some((f) => isQuotaError(f, depth + 1));
}

/** Rethrows a quota error as StorageFullError and anything else unchanged. */
export function asStorageError(error: unknown): unknown {
  return isQuotaError(error) && !(error instanceof StorageFullError) ? new StorageFullError({ cause: error }) : error;
}
