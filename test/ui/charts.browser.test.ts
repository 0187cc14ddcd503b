import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { cdp, userEvent } from 'vitest/browser';
import { flushSync } from 'svelte';
import '../../src/ui/theme.css';
import OfferChart from '../../src/ui/components/OfferChart.svelte';
import PriceDistribution from '../../src/ui/components/PriceDistribution.svelte';
import TierChart from '../../src/ui/components/TierChart.svelte';
import ZoneChart from '../../src/ui/components/ZoneChart.svelte';
import BehaviourChart from '../../src/ui/components/BehaviourChart.svelte';
import { describeRelation, rankCorrelation } from '../../src/ui/components/behaviour';
import { loadChart, paddedLimits, readTheme } from '../../src/ui/charts';
import type { Standings } from '../../src/games/bilateral/aggregate';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { scenario } from '../games/bilateral/helpers';
import { agent, cleanup, must, play, reactive, render, standings, text } from './helpers.svelte';

afterEach(cleanup);

/** The Chart.js instance on the one canvas in `target`, once it has loaded (the canvas comes a task after its box). */
async function chartIn(target: HTMLElement) {
  const canvas = await vi.waitFor(() => must(target.querySelector('canvas'), 'canvas'));
  return chartOn(canvas);
}

async function chartOn(canvas: HTMLCanvasElement) {
  await vi.waitFor(() => expect(canvas.dataset.chartReady).toBe('true'), { timeout: 5000 });
  const chart = (await loadChart()).getChart(canvas);
  if (!chart) throw new Error('no chart on the canvas');
  return { canvas, chart };
}

describe('loadChart', () => {
  test('loads Chart.js once, with only the pieces Parley uses', async () => {
    const [a, b] = await Promise.all([loadChart(), loadChart()]);
    expect(a).toBe(b);
    expect(a.registry.getController('line')).toBeTruthy();
    expect(a.registry.getController('bar')).toBeTruthy();
    expect(a.registry.getController('scatter')).toBeTruthy();
    expect(() => a.registry.getController('pie')).toThrow();
  });

  test('reads the theme colours from CSS', () => {
    const theme = readTheme();
    expect(theme.buyer).toBe(matchMedia('(prefers-color-scheme: dark)').matches ? '#7aaef5' : '#1f63c6');
    expect(theme.series).toHaveLength(8);
  });
});

describe('dark mode', () => {
  const scheme = (value: 'light' | 'dark' | '') => cdp().send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value }] });
  afterEach(() => scheme(''));

  test('charts take their colours from the scheme and follow a change', async () => {
    await scheme('light');
    const target = render(OfferChart, { scenario: scenario(), events: [] });
    const { chart } = await chartIn(target);
    expect(chart.data.datasets[0]?.borderColor).toBe('#1f63c6');
    await scheme('dark');
    expect(readTheme().seller).toBe('#f0a06c');
    await vi.waitFor(() => expect(chart.data.datasets[0]?.borderColor).toBe('#7aaef5'));
  });
});

describe('OfferChart', () => {
  test('draws both sides, the reservation lines, the zone and the deal, and follows new events', async () => {
    const s = scenario(); // v = 150, c = 90, 20 turns
    const { events } = await play(s, agent('conceder', 'buyer'), agent('boulware', 'seller'));
    const props = reactive({ scenario: s, events: events.slice(0, 3) as BilateralEvent[] });
    const target = render(OfferChart, props);
    const { canvas, chart } = await chartIn(target);
    expect(canvas.getAttribute('role')).toBe('img');
    expect(canvas.getAttribute('aria-label')).toContain('zone of agreement');

    const [buyer, seller, value, cost, deal] = chart.data.datasets;
    expect(buyer?.data).toHaveLength(1);
    expect(seller?.data).toHaveLength(2);
    expect(value?.data).toEqual([
      { x: 0.5, y: 150 },
      { x: 20.5, y: 150 },
    ]);
    expect(cost?.data).toEqual([
      { x: 0.5, y: 90 },
      { x: 20.5, y: 90 },
    ]);
    expect((value as { fill?: unknown }).fill).toBe('+1');
    expect(deal?.data).toHaveLength(0);

    const moves = events.filter((e) => e.type === 'move' && e.move.action?.type === 'offer');
    for (const e of events.slice(3)) props.events.push(e);
    flushSync();
    const sameChart = (await loadChart()).getChart(canvas);
    expect(sameChart).toBe(chart);
    // Redraws run in a task of their own, after the update that asked for them.
    await expect.poll(() => chart.data.datasets[0]!.data.length + chart.data.datasets[1]!.data.length).toBe(moves.length);
    const end = events.at(-1);
    if (end?.type !== 'end' || end.outcome.kind !== 'deal') throw new Error('conceder and boulware should close');
    expect(chart.data.datasets[4]?.data).toEqual([{ x: end.outcome.turn, y: end.outcome.price }]);
    expect(text(target.querySelector('figcaption'))).toContain(`Deal at $${end.outcome.price.toFixed(2)}`);
  });

  test('pads both axes: no offer, reservation line or deal sits on the edge of the plot, and the turn ticks stay whole', async () => {
    const s = scenario(); // v = 150, c = 90, 20 turns
    const { events } = await play(s, agent('conceder', 'buyer'), agent('boulware', 'seller'));
    const target = render(OfferChart, { scenario: s, events });
    const { chart } = await chartIn(target);
    const { x, y } = chart.scales as Record<string, { min: number; max: number; ticks: { value: number }[] }>;
    const points = chart.data.datasets.flatMap((d) => d.data as { x: number; y: number }[]);
    const offers = chart.data.datasets.slice(0, 2).flatMap((d) => d.data as { x: number; y: number }[]);
    expect(offers.some((p) => p.x === 1)).toBe(true);
    for (const p of offers) expect(p.x > x!.min && p.x < x!.max, `turn ${p.x} inside (${x!.min}, ${x!.max})`).toBe(true);
    for (const p of points) expect(p.y > y!.min && p.y < y!.max, `price ${p.y} inside (${y!.min}, ${y!.max})`).toBe(true);
    const turnTicks = x!.ticks.map((t) => t.value);
    expect(turnTicks[0]).toBe(1);
    for (const t of turnTicks) expect(Number.isInteger(t) && t >= 1 && t <= 20, `tick ${t}`).toBe(true);
    const { chartArea } = chart;
    for (const meta of chart.data.datasets.map((_, i) => chart.getDatasetMeta(i)).slice(0, 2))
      for (const el of meta.data) {
        expect(el.x).toBeGreaterThan(chartArea.left + 4);
        expect(el.x).toBeLessThan(chartArea.right - 4);
        expect(el.y).toBeGreaterThan(chartArea.top + 4);
        expect(el.y).toBeLessThan(chartArea.bottom - 4);
      }
  });

  test('shades no zone without gains from trade', async () => {
    const s = scenario({ buyerValue: 80, sellerCost: 120 });
    const { events } = await play(s, agent('boulware', 'buyer'), agent('boulware', 'seller'));
    const target = render(OfferChart, { scenario: s, events });
    const { chart } = await chartIn(target);
    expect((chart.data.datasets[2] as { fill?: unknown }).fill).toBe(false);
    expect(text(target.querySelector('figcaption'))).toContain('no gains from trade');
  });

  test('destroys its chart when unmounted', async () => {
    const s = scenario();
    const target = render(OfferChart, { scenario: s, events: [] });
    const { canvas } = await chartIn(target);
    cleanup();
    expect((await loadChart()).getChart(canvas)).toBeUndefined();
  });
});

describe('TierChart and PriceDistribution', () => {
  test('one line per agent over the five tiers, with a table for screen readers', async () => {
    const { byTier } = await standings(['boulware', 'conceder', 'hardliner'], 12);
    const target = render(TierChart, { rows: byTier, rate: 'dealRate', role: 'buyer' });
    const { chart } = await chartIn(target);
    expect(chart.data.datasets.map((d) => d.label)).toEqual(['boulware', 'conceder', 'hardliner']);
    for (const d of chart.data.datasets) expect(d.data).toHaveLength(5);
    const row = byTier.find((r) => r.agent === 'conceder' && r.role === 'buyer' && r.dealRate !== null);
    if (!row) throw new Error('conceder should have tier rows');
    expect(chart.data.datasets[1]?.data[row.tier - 1]).toBe(row.dealRate);
    expect(target.querySelectorAll('figcaption tbody tr')).toHaveLength(3);
  });

  test('deal positions with below-cost and above-value bars at the ends', async () => {
    const positions = { bins: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], below: 2, above: 3 };
    const target = render(PriceDistribution, { positions });
    const { chart } = await chartIn(target);
    expect(chart.data.labels?.[0]).toBe("Below the seller's cost");
    expect(chart.data.labels?.at(-1)).toBe("Above the buyer's value");
    expect(chart.data.labels?.[1]).toBe('0–10%');
    expect(chart.data.datasets[0]?.data).toEqual([2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3]);
    expect(must(target.querySelector('canvas')).getAttribute('aria-label')).toContain('50 deals');
  });
});

let run: Promise<Standings> | null = null;
/** One small round-robin shared by the chart tests below. */
const results = () => (run ??= standings(['boulware', 'conceder', 'hardliner', 'random'], 10));

describe('ZoneChart', () => {
  test('one line per agent over the zone widths with gains from trade, values from the zone rows', async () => {
    const { byZone } = await results();
    const target = render(ZoneChart, { rows: byZone, rate: 'surplusShare', role: 'seller' });
    const { chart } = await chartIn(target);
    expect(chart.data.labels).toEqual(['0–10%', '10–20%', '20–40%', 'over 40%']);
    expect(chart.data.datasets.map((d) => d.label)).toEqual(['boulware', 'conceder', 'hardliner', 'random']);
    const zoneRows = byZone.filter((r) => r.role === 'seller' && r.zone > 1);
    expect(zoneRows.length).toBeGreaterThan(4);
    for (const row of zoneRows) {
      const dataset = chart.data.datasets.find((d) => d.label === row.agent);
      expect(dataset?.data[row.zone - 2]).toBe(row.surplusShare);
    }
    // Padded: no share sits on the plot's top or bottom edge.
    const values = chart.data.datasets.flatMap((d) => d.data as (number | null)[]).filter((v): v is number => v !== null);
    const y = chart.scales.y!;
    expect(y.min).toBeLessThan(Math.min(0, ...values));
    expect(y.max).toBeGreaterThan(Math.max(1, ...values));
    expect(y.ticks.map((t) => t.value)).toContain(0);
    expect((chart.options.scales?.x as { offset?: boolean }).offset).toBe(true);
    expect(must(target.querySelector('canvas')).getAttribute('aria-label')).toBe('Surplus share over deals as seller, by zone width, one line per agent');
  });
});

describe('BehaviourChart', () => {
  test('one labelled point per agent and role, opening against share, with a sentence per role', async () => {
    const { leaderboard } = await results();
    const target = render(BehaviourChart, { rows: leaderboard, measure: 'opening', share: 'expectedSurplusShare' });
    const { chart } = await chartIn(target);
    expect((chart.config as { type?: string }).type).toBe('scatter');
    expect(chart.data.datasets.map((d) => d.label)).toEqual(['as buyer', 'as seller']);
    for (const [i, role] of (['buyer', 'seller'] as const).entries()) {
      const expected = leaderboard
        .filter((r) => r.role === role && r.opening !== null && r.expectedSurplusShare !== null)
        .map((r) => ({ x: r.opening, y: r.expectedSurplusShare, label: r.agent }));
      expect(chart.data.datasets[i]?.data).toEqual(expected);
      expect(expected.length).toBe(4);
    }
    const x = chart.scales.x!;
    const xs = leaderboard.map((r) => r.opening!);
    expect(x.min).toBeLessThan(Math.min(...xs));
    expect(x.max).toBeGreaterThan(Math.max(...xs));
    const sentences = [...target.querySelectorAll('li')].map(text);
    expect(sentences).toHaveLength(2);
    expect(sentences[0]).toMatch(/^As buyer \(4 agents\): /);
    expect(sentences[1]).toMatch(/^As seller \(4 agents\): .*rank correlation -?\d\.\d\d\)\.$/);
    expect(target.querySelectorAll('figcaption tbody tr')).toHaveLength(8);
  });

  test('patience on x; rows stored without behaviour measures are left out', async () => {
    const { leaderboard } = await results();
    const rows = leaderboard.map((r) => (r.agent === 'random' ? { ...r, patience: undefined } : r));
    const target = render(BehaviourChart, { rows, measure: 'patience', share: 'surplusShare' });
    const { chart } = await chartIn(target);
    const labels = chart.data.datasets.flatMap((d) => (d.data as unknown as { label: string }[]).map((p) => p.label));
    expect(labels).not.toContain('random');
    expect(labels).toHaveLength(6);
    expect((chart.options.scales?.x as { title?: { text?: string } }).title?.text).toMatch(/^Patience/);
  });

  test('the words follow the rank correlation, a buyer anchoring hard by opening low', () => {
    expect(
      rankCorrelation([
        [1, 2],
        [2, 4],
        [3, 9],
      ]),
    ).toBeCloseTo(1);
    expect(
      rankCorrelation([
        [1, 3],
        [2, 2],
        [3, 1],
      ]),
    ).toBeCloseTo(-1);
    expect(
      rankCorrelation([
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
    ).toBeNull();
    expect(
      rankCorrelation([
        [1, 1],
        [2, 2],
      ]),
    ).toBeNull();
    const lowOpeningsWin = [
      [0.3, 0.7],
      [0.5, 0.5],
      [0.7, 0.2],
    ] as const;
    expect(describeRelation('opening', 'buyer', lowOpeningsWin)).toBe('As buyer (3 agents): harder openings went with a higher share (rank correlation 1.00).');
    expect(describeRelation('opening', 'seller', lowOpeningsWin)).toBe(
      'As seller (3 agents): harder openings went with a lower share (rank correlation -1.00).',
    );
    expect(describeRelation('patience', 'seller', [[0.1, 0.5]])).toBe('As seller (1 agent): too few agents, or no spread, to tell.');
  });
});

describe('paddedLimits', () => {
  test('widens the range of the values and the included bounds on both sides', () => {
    expect(paddedLimits([0.2, 0.8], [0, 1], 0.1)).toEqual({ min: -0.1, max: 1.1 });
    expect(paddedLimits([null, 2, undefined, 4], [], 0.5)).toEqual({ min: 1, max: 5 });
    expect(paddedLimits([3, 3], [], 0.1)).toEqual({ min: 2.7, max: 3.3 });
    expect(paddedLimits([], [])).toEqual({ min: 0, max: 1 });
  });
});

describe('Save PNG', () => {
  test('every chart has a Save PNG button that saves the drawn chart as a PNG named after the run and chart', async () => {
    const saved: { name: string; href: string }[] = [];
    // Saving encodes a PNG, which takes what it takes: the test waits for the download itself.
    let downloaded!: () => void;
    const download = new Promise<void>((resolve) => (downloaded = resolve));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, href: this.href });
      downloaded();
    });
    onTestFinished(() => click.mockRestore());
    const { byTier } = await results();
    const target = render(TierChart, { rows: byTier, rate: 'dealRate', role: 'buyer', fileName: 'parley-my-run-deal-rate-by-tier-as-buyer' });
    const { canvas } = await chartIn(target);
    const button = must([...target.querySelectorAll('button')].find((b) => text(b) === 'Save PNG'));
    expect(button.getAttribute('aria-label')).toContain('Deal rate with gains from trade as buyer, by price tier');
    button.focus();
    await userEvent.keyboard('{Enter}');
    await download;
    expect(saved).toHaveLength(1);
    expect(saved[0]!.name).toBe('parley-my-run-deal-rate-by-tier-as-buyer.png');
    const blob = await (await fetch(saved[0]!.href)).blob();
    expect(blob.type).toBe('image/png');
    const bytes = new Uint8Array(await blob.arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // The whole chart at the canvas's own size, drawn on an opaque background.
    const image = await createImageBitmap(blob);
    expect([image.width, image.height]).toEqual([canvas.width, canvas.height]);
    const probe = new OffscreenCanvas(1, 1).getContext('2d')!;
    probe.drawImage(image, 0, 0);
    expect(probe.getImageData(0, 0, 1, 1).data[3]).toBe(255);
  });

  test('a chart with no file name saves under its label', async () => {
    const saved: string[] = [];
    let downloaded!: () => void;
    const download = new Promise<void>((resolve) => (downloaded = resolve));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
      downloaded();
    });
    onTestFinished(() => click.mockRestore());
    const target = render(PriceDistribution, { positions: { bins: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], below: 0, above: 0 } });
    await chartIn(target);
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Save PNG')));
    await download;
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatch(/^where-55-deals-with-gains-from-trade.*\.png$/);
  });
});
