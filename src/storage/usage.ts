/** How much this origin stores and may store, as the browser estimates it; null where it cannot say. */
export async function storageUsage(): Promise<{ usage: number; quota: number } | null> {
  if (typeof navigator === 'undefined' || typeof navigator.storage?.estimate !== 'function') return null;
  try {
    const { usage, quota } = await navigator.storage.estimate();
    return usage === undefined || quota === undefined ? null : { usage, quota };
  } catch {
    return null;
  }
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** `0 B`, `999 B`, `1.5 KB`, `12 MB`, `1.2 GB`: binary multiples, one decimal below 10. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${shown} ${UNITS[unit]}`;
}
