import { afterEach, describe, expect, test, vi } from 'vitest';
import { cdp } from 'vitest/browser';
import { flushSync } from 'svelte';
import '../../src/ui/theme.css';
import OfferChart from '../../src/ui/components/OfferChart.svelte';
import PriceDistribution from '../../src/ui/components/PriceDistribution.svelte';
import TierChart from '../../src/ui/components/TierChart.svelte';
import { loadChart, readTheme } from '../../src/ui/charts';
import type { BilateralEvent } from '../../src/core/bilateral/events';
import { scenario } from '../core/helpers';
import { agent, cleanup, must, play, reactive, render, standings, text } from './helpers.svelte';

afterEach(cleanup);

/** The Chart.js instance on the one canvas in `target`, once it has loaded. */
async function chartIn(target: HTMLElement) {
  const canvas = must(target.querySelector('canvas'), 'canvas');
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
    expect(() => a.registry.getController('pie')).toThrow();
  });

  test('reads the theme colours from CSS', () => {
    const theme = readTheme();
    expect(theme.buyer).toBe(matchMedia('(prefers-color-scheme: dark)').matches ? '#7aaef5' : '#1f63c6');
    expect(theme.series).toHaveLength(8);
  });
});

describe('dark mode', () => {
  const scheme = (value: 'light' | 'dark' | '') =>
    cdp().send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value }] });
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
    expect(value?.data).toEqual([{ x: 1, y: 150 }, { x: 20, y: 150 }]);
    expect(cost?.data).toEqual([{ x: 1, y: 90 }, { x: 20, y: 90 }]);
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
