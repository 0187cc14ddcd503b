/**
 * Where marks go on a chart so that none hides another: markers that fall on the same spot (nested
 * rings of different sizes), lines that coincide everywhere (named, and striped in their colours),
 * and point labels placed where no other label is, or left off and named. Pure: pixels and values in,
 * positions out, so the rules are tested without a canvas.
 */

/** Indices of the values that lie within `tolerance` of a neighbour (chained), each group in index order; nulls join none. */
export function coincidentGroups(values: readonly (number | null)[], tolerance: number): number[][] {
  const present = values.flatMap((v, i) => (v === null || !Number.isFinite(v) ? [] : [{ v, i }])).sort((a, b) => a.v - b.v || a.i - b.i);
  const groups: number[][] = [];
  let run: { v: number; i: number }[] = [];
  for (const p of present) {
    const last = run.at(-1);
    if (last && p.v - last.v > tolerance) {
      groups.push(run.map((q) => q.i));
      run = [];
    }
    run.push(p);
  }
  if (run.length) groups.push(run.map((q) => q.i));
  return groups.map((g) => g.sort((a, b) => a - b));
}

/** How one series draws its marker at one bin. */
export interface Marker {
  /** The marker's size; markers sharing a spot each get a different one. */
  radius: number;
  /** Shares its spot with at least one other series: drawn as a ring around the smaller ones. */
  shared: boolean;
}

export const MARKER_RADIUS = 4;
/** Between nested rings: twice a ring's stroke and a pixel of air, so each ring shows apart. */
export const RING_STEP = 4;

/**
 * `series[s][b]` is series s's value at bin b: per series and bin, its marker. Where values
 * coincide (within `tolerance`), the first series of the group keeps the smallest marker and each
 * next one a ring `RING_STEP` larger, so every series stays visible at every bin.
 */
export function nestedMarkers(series: readonly (readonly (number | null)[])[], tolerance: number): Marker[][] {
  const out = series.map((values) => values.map((): Marker => ({ radius: MARKER_RADIUS, shared: false })));
  const bins = Math.max(0, ...series.map((s) => s.length));
  for (let b = 0; b < bins; b++) {
    for (const group of coincidentGroups(
      series.map((s) => s[b] ?? null),
      tolerance,
    )) {
      if (group.length < 2) continue;
      group.forEach((s, rank) => {
        (out[s] as Marker[])[b] = { radius: MARKER_RADIUS + rank * RING_STEP, shared: true };
      });
    }
  }
  return out;
}

/**
 * Series that are the same line: equal (within `tolerance`) at every bin, and missing at the same
 * bins. Groups of two or more series, in index order; a series with no value at all joins none.
 */
export function sharedLines(series: readonly (readonly (number | null)[])[], tolerance: number): number[][] {
  const same = (a: readonly (number | null)[], b: readonly (number | null)[]) =>
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i] ?? null;
      return x === null || y === null ? x === y : Math.abs(x - y) <= tolerance;
    });
  const groups: number[][] = [];
  const taken = new Set<number>();
  series.forEach((values, s) => {
    if (taken.has(s) || values.every((v) => v === null)) return;
    const group = [s];
    for (let t = s + 1; t < series.length; t++) if (!taken.has(t) && same(values, series[t] as (number | null)[])) group.push(t);
    if (group.length > 1) {
      groups.push(group);
      for (const t of group) taken.add(t);
    }
  });
  return groups;
}

/** Dashes that stripe one drawn line in the colours of the `of` series sharing it: `rank` takes every `of`-th dash. */
export function stripe(rank: number, of: number, dash = 8): { borderDash: number[]; borderDashOffset: number } {
  return of < 2 ? { borderDash: [], borderDashOffset: 0 } : { borderDash: [dash, dash * (of - 1)], borderDashOffset: -rank * dash };
}

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
export interface LabelPoint {
  x: number;
  y: number;
  label: string;
}
export interface PlacedLabel {
  text: string;
  box: Box;
  /** Where the text starts (its left edge, vertical middle). */
  at: { x: number; y: number };
}

const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const inside = (b: Box, area: Box) => b.left >= area.left && b.right <= area.right && b.top >= area.top && b.bottom <= area.bottom;

/**
 * Labels beside their points with no two overlapping: points within `merge` pixels of each other
 * share one label (their names joined); each label takes the first spot around its point (right,
 * left, above, below, then farther out) that lies in `area` and meets no placed label, preferring
 * spots that cover no other point; a label with no such spot is left off and named in `unplaced`.
 */
export function placeLabels(
  points: readonly LabelPoint[],
  widthOf: (text: string) => number,
  area: Box,
  { height = 14, gap = 7, marker = 6, merge = 3 }: { height?: number; gap?: number; marker?: number; merge?: number } = {},
): { placed: PlacedLabel[]; unplaced: string[] } {
  const spots: { x: number; y: number; labels: string[] }[] = [];
  for (const p of points) {
    const near = spots.find((s) => Math.abs(s.x - p.x) <= merge && Math.abs(s.y - p.y) <= merge);
    if (!near) spots.push({ x: p.x, y: p.y, labels: [p.label] });
    else if (!near.labels.includes(p.label)) near.labels.push(p.label);
  }
  const markers: Box[] = spots.map((s) => ({ left: s.x - marker, top: s.y - marker, right: s.x + marker, bottom: s.y + marker }));
  const placed: PlacedLabel[] = [];
  const unplaced: string[] = [];
  for (const [k, spot] of spots.entries()) {
    const text = spot.labels.join(', ');
    const width = widthOf(text);
    const candidates: Box[] = [];
    for (let ring = 0; ring < 3; ring++) {
      const dx = gap + ring * (width / 2 + gap);
      const dy = height * (ring + 1);
      const rows = [0, -dy, dy, -2 * dy, 2 * dy].slice(0, ring === 0 ? 3 : 5);
      for (const oy of rows)
        for (const toRight of [true, false]) {
          const left = toRight ? spot.x + dx : spot.x - dx - width;
          candidates.push({ left, top: spot.y + oy - height / 2, right: left + width, bottom: spot.y + oy + height / 2 });
        }
      // Centred above and below the point.
      for (const oy of [-dy, dy])
        candidates.push({ left: spot.x - width / 2, top: spot.y + oy - height / 2, right: spot.x + width / 2, bottom: spot.y + oy + height / 2 });
    }
    const free = (b: Box) => inside(b, area) && !placed.some((p) => overlap(b, p.box));
    const clearOfPoints = (b: Box) => !markers.some((m, j) => j !== k && overlap(b, m));
    const box = candidates.find((b) => free(b) && clearOfPoints(b)) ?? candidates.find(free);
    if (box) placed.push({ text, box, at: { x: box.left, y: (box.top + box.bottom) / 2 } });
    else unplaced.push(...spot.labels);
  }
  return { placed, unplaced };
}
