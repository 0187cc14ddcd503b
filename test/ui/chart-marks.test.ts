import { describe, expect, test } from 'vitest';
import { coincidentGroups, MARKER_RADIUS, nestedMarkers, placeLabels, RING_STEP, sharedLines, stripe, type Box } from '../../src/ui/chart-marks';
import { createRng } from '../../src/engine/rng';

const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('coincident markers', () => {
  test('values within the tolerance of a neighbour form one group, chained; nulls join none', () => {
    expect(coincidentGroups([1, 0.5, 1, null, 0.51, 0.2], 0.02)).toEqual([[5], [1, 4], [0, 2]]);
    // Chained: 0.50 ~ 0.515 ~ 0.53, though 0.50 and 0.53 are farther apart than the tolerance.
    expect(coincidentGroups([0.5, 0.53, 0.515], 0.02)).toEqual([[0, 1, 2]]);
    expect(coincidentGroups([null, Number.NaN], 0.02)).toEqual([]);
  });

  test('six agents at one spot get six different sizes, one step apart; an agent alone keeps the plain marker', () => {
    const series = [
      [1, 1, 0.2],
      [1, 1, 0.9],
      [1, 1, 0.5],
      [1, 1, 0.2],
      [1, 0.6, null],
      [1, 1, 0.21],
    ];
    const markers = nestedMarkers(series, 0.02);
    const at = (bin: number) => markers.map((m) => m[bin]);
    expect(at(0).map((m) => m?.radius)).toEqual([0, 1, 2, 3, 4, 5].map((k) => MARKER_RADIUS + k * RING_STEP));
    expect(at(0).every((m) => m?.shared)).toBe(true);
    // Bin 1: agent 4 stands apart; the other five nest.
    expect(at(1)[4]).toEqual({ radius: MARKER_RADIUS, shared: false });
    expect(
      new Set(
        at(1)
          .filter((m) => m?.shared)
          .map((m) => m?.radius),
      ).size,
    ).toBe(5);
    // Bin 2: agents 0, 3 and 5 are within the tolerance; 1 and 2 are alone; 4 has no value.
    expect([0, 3, 5].map((s) => at(2)[s]?.radius)).toEqual([MARKER_RADIUS, MARKER_RADIUS + RING_STEP, MARKER_RADIUS + 2 * RING_STEP]);
    expect([1, 2].map((s) => at(2)[s]?.shared)).toEqual([false, false]);
  });
});

describe('shared lines', () => {
  test('series equal at every bin and missing at the same bins are one line; a partly equal one is not', () => {
    const series = [
      [1, 1, null],
      [0.5, 1, 1],
      [1, 1, null],
      [1, 1, 1],
      [1, 1, null],
      [null, null, null],
      [null, null, null],
    ];
    expect(sharedLines(series, 0.0005)).toEqual([[0, 2, 4]]);
  });

  test('the stripes of a line shared by three take every third dash, each starting a dash later', () => {
    const dashes = [0, 1, 2].map((rank) => stripe(rank, 3, 8));
    expect(dashes.map((d) => d.borderDash)).toEqual([
      [8, 16],
      [8, 16],
      [8, 16],
    ]);
    expect(new Set(dashes.map((d) => ((d.borderDashOffset % 24) + 24) % 24)).size).toBe(3);
    expect(stripe(0, 1)).toEqual({ borderDash: [], borderDashOffset: 0 });
  });
});

describe('placeLabels', () => {
  const area: Box = { left: 0, top: 0, right: 400, bottom: 240 };
  const widthOf = (text: string) => text.length * 6.5;

  test('a dense cloud of points: no two labels overlap, every label lies in the plot, and every name is labelled or named as left off', () => {
    const rng = createRng(11);
    for (let round = 0; round < 20; round++) {
      const points = Array.from({ length: 16 }, (_, i) => ({ x: 150 + rng.next() * 90, y: 80 + rng.next() * 70, label: `agent-${round}-${i}` }));
      const { placed, unplaced } = placeLabels(points, widthOf, area);
      for (const [i, a] of placed.entries()) {
        expect(a.box.left >= area.left && a.box.right <= area.right && a.box.top >= area.top && a.box.bottom <= area.bottom).toBe(true);
        for (const b of placed.slice(i + 1)) expect(overlap(a.box, b.box), `${a.text} / ${b.text}`).toBe(false);
      }
      const named = [...placed.flatMap((p) => p.text.split(', ')), ...unplaced];
      expect(named.toSorted()).toEqual(points.map((p) => p.label).toSorted());
    }
  });

  test('points on one spot share one label, each name once', () => {
    const { placed, unplaced } = placeLabels(
      [
        { x: 100, y: 100, label: 'boulware' },
        { x: 101, y: 99, label: 'linear' },
        { x: 100, y: 100, label: 'boulware' },
        { x: 300, y: 50, label: 'conceder' },
      ],
      widthOf,
      area,
    );
    expect(placed.map((p) => p.text)).toEqual(['boulware, linear', 'conceder']);
    expect(unplaced).toEqual([]);
  });

  test('a label that fits nowhere free is left off, never drawn over another', () => {
    const tiny: Box = { left: 0, top: 0, right: 120, bottom: 20 };
    const { placed, unplaced } = placeLabels(
      [
        { x: 20, y: 10, label: 'first' },
        { x: 24, y: 10, label: 'second' },
      ],
      widthOf,
      tiny,
    );
    expect(placed.map((p) => p.text)).toEqual(['first']);
    expect(unplaced).toEqual(['second']);
  });
});
