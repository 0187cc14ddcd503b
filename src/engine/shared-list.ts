/**
 * A list that successive protocol states share: each state sees the first `n` items. Appending to
 * the newest state's list pushes in place; appending to an older one (a state applied twice)
 * copies first. So a session costs one array per list instead of one per turn, and states stay values.
 */
export function append<T>(items: T[], n: number, item: T): T[] {
  if (items.length === n) {
    items.push(item);
    return items;
  }
  const copy = items.slice(0, n);
  copy.push(item);
  return copy;
}

/** The first `n` items, as a list of its own (read only when a caller asks for it). */
export const prefix = <T>(items: readonly T[], n: number): T[] => (items.length === n ? items.slice() : items.slice(0, n));
