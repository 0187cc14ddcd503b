/**
 * Results that show everyone, at a laptop's and a projector's width: coinciding lines stay
 * distinguishable, point labels never overlap, the head-to-head fits or scrolls in its own box,
 * chart text grows with presentation mode, Compare uses the page's width and shows differences
 * only, and the Market form's controls do not overlap. Every check waits for a state (a chart
 * drawn, a table filled), never for time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import type { Chart } from 'chart.js';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import TierChart from '../../src/ui/components/TierChart.svelte';
import BehaviourChart from '../../src/ui/components/BehaviourChart.svelte';
import HeadToHead from '../../src/ui/components/HeadToHead.svelte';
import Results from '../../src/ui/pages/Results.svelte';
import MarketPage from '../../src/ui/pages/MarketPage.svelte';
import { labelsOf, loadChart } from '../../src/ui/charts';
import { MARKER_RADIUS, RING_STEP, type Box } from '../../src/ui/chart-marks';
import { pct } from '../../src/ui/components/format';
import { METRIC_INFO } from '../../src/ui/components/market/describe';
import { chartLabel } from '../../src/ui/names';
import { RATE_NAMES, type LeaderboardRow, type PairRow, type Standings, type TierRow } from '../../src/games/bilateral/aggregate';
import { PRESENTATION_KEY, presentation } from '../../src/ui/state/presentation.svelte';
import { marketSessions } from '../../src/ui/state/market.svelte';
import { database } from '../../src/ui/state/sim';
import { deleteRun, getRun } from '../../src/storage/runs';
import { storedTournament } from '../storage/helpers';
import { cleanup, control, must, render, standings, text } from './helpers.svelte';

afterEach(cleanup);

const AGENTS = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator'];
let six: Standings;
beforeAll(async () => {
  await page.viewport(1280, 800);
  six = await standings(AGENTS, 2);
});

/** The Chart.js instance on `canvas`, once its data is drawn. */
async function drawn(canvas: HTMLCanvasElement): Promise<Chart> {
  await vi.waitFor(() => expect(canvas.dataset.chartReady).toBe('true'));
  return defined((await loadChart()).getChart(canvas), 'chart');
}
const canvasIn = (root: Element) => vi.waitFor(() => must(root.querySelector('canvas'), 'canvas'));
function defined<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} not found`);
  return value;
}
const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const rect = (el: Element): Box => el.getBoundingClientRect();

describe('lines that coincide', () => {
  test('four agents on one deal-rate line: named under the chart, striped in their colours, with a ring each at every point', async () => {
    // Four agents given one deal rate in every tier they played (one no agent reaches by itself), as identical scripted agents would have.
    const shared = ['boulware', 'conceder', 'hardliner', 'linear'];
    const rateOf = new Map(six.byTier.filter((r) => r.agent === 'boulware' && r.role === 'buyer').map((r) => [r.tier, r.dealRate === null ? null : 0.4321]));
    const rows: TierRow[] = six.byTier.map((r) => (r.role === 'buyer' && shared.includes(r.agent) ? { ...r, dealRate: rateOf.get(r.tier) ?? null } : r));
    const target = render(TierChart, { rows, rate: 'dealRate', role: 'buyer' });
    const chart = await drawn(await canvasIn(target));

    const note = must(target.querySelector('[data-shared-line]'), 'note');
    expect(text(note)).toContain('4 agents share this line');
    for (const agent of shared) expect(text(note)).toContain(agent);
    expect(target.querySelectorAll('[data-shared-line]')).toHaveLength(1);

    const ids = shared.map((agent) => chart.data.datasets.findIndex((d) => d.label === agent));
    expect(ids.every((i) => i >= 0)).toBe(true);
    // Stripes: the same dash length, each line starting its dash at a different place, so each colour shows along the line.
    const dashes = ids.map((i) => chart.getDatasetMeta(i).dataset?.options as { borderDash: number[]; borderDashOffset: number });
    const period = (dashes[0]?.borderDash ?? []).reduce((a, b) => a + b, 0);
    expect(period).toBeGreaterThan(0);
    expect(new Set(dashes.map((d) => ((d.borderDashOffset % period) + period) % period)).size).toBe(4);
    // Rings: at every tier they share, the four markers have four sizes a ring apart, the larger ones hollow.
    const tiers = [...rateOf.entries()].filter(([, v]) => v !== null).map(([tier]) => tier - 1);
    expect(tiers.length).toBeGreaterThan(0);
    for (const t of tiers) {
      const options = ids.map((i) => chart.getDatasetMeta(i).data[t]?.options as unknown as { radius: number; backgroundColor: string });
      const radii = options.map((o) => o.radius).toSorted((a, b) => a - b);
      expect(radii[0]).toBe(MARKER_RADIUS);
      for (let k = 1; k < radii.length; k++) expect((radii[k] as number) - (radii[k - 1] as number)).toBeGreaterThanOrEqual(RING_STEP);
      expect(options.filter((o) => o.radius > MARKER_RADIUS).every((o) => o.backgroundColor === 'transparent')).toBe(true);
    }
    // The legend keeps one shape per agent, whatever the markers became.
    const legend = chart.legend?.legendItems ?? [];
    expect(new Set(legend.map((item) => String(item.pointStyle))).size).toBe(legend.length);
  });
});

describe('point labels', () => {
  test('fourteen agents crowded together: no two labels overlap, all lie in the plot, and each agent is labelled or named under the chart', async () => {
    const template = six.leaderboard.find((r) => r.role === 'buyer' && typeof r.opening === 'number') as LeaderboardRow;
    const names = Array.from({ length: 14 }, (_, i) => `webllm:Qwen3-${i}B-q4f32_1-MLC`);
    // Openings within 3% and shares within 4% of each other; the first two exactly on one spot.
    const rows = names.map((agent, i) => ({
      ...template,
      agent,
      opening: 0.6 + (i === 1 ? 0 : i) * 0.002,
      expectedSurplusShare: 0.4 + (i === 1 ? 0 : i % 5) * 0.008,
    }));
    const target = render(BehaviourChart, { rows, measure: 'opening', share: 'expectedSurplusShare' });
    const chart = await drawn(await canvasIn(target));
    const labels = await vi.waitFor(() => defined(labelsOf(chart), 'labels'));
    const area = chart.chartArea;
    for (const [i, a] of labels.placed.entries()) {
      expect(a.box.left >= area.left && a.box.right <= area.right && a.box.top >= area.top && a.box.bottom <= area.bottom, a.text).toBe(true);
      for (const b of labels.placed.slice(i + 1)) expect(overlap(a.box, b.box), `${a.text} / ${b.text}`).toBe(false);
    }
    expect(labels.placed.some((l) => l.text === `${chartLabel(names[0] as string)}, ${chartLabel(names[1] as string)}`)).toBe(true);
    const named = [...labels.placed.flatMap((l) => l.text.split(', ')), ...labels.unplaced];
    expect(named.toSorted()).toEqual(names.map((n) => chartLabel(n)).toSorted());
    if (labels.unplaced.length > 0) {
      const note = await vi.waitFor(() => must(target.querySelector('[data-unlabelled]'), 'note'));
      for (const name of labels.unplaced) expect(text(note)).toContain(name);
    } else expect(target.querySelector('[data-unlabelled]')).toBeNull();
  });
});

describe('the head-to-head matrix at 1280 px', () => {
  const LONG = ['webllm:Qwen3-8B-q4f32_1-MLC', 'openai:gpt-4o-mini-2024-07-18', 'anthropic:claude-3-5-haiku-latest', 'boulware', 'tit-for-tat', 'accommodator'];
  const pairsOf = (agents: string[]): PairRow[] =>
    agents.flatMap((buyer, i) =>
      agents
        .filter((s) => s !== buyer)
        .map((seller, j) => ({ buyer, seller, n: 4, errors: 0, dealRate: ((i + j) % 5) / 4, buyerShare: 0.5, sellerShare: 0.5 })),
    );

  test('six agents with long names fit whole in the results, beside nothing they push off the page', async () => {
    const renamed: Standings = { ...six, pairs: pairsOf(LONG) };
    const target = render(Results, { standings: renamed, agents: LONG });
    const box = await vi.waitFor(() => must(target.querySelector<HTMLElement>('.head-to-head .scroll')));
    expect(innerWidth).toBe(1280);
    // The matrix's last column is inside its box and the window; nothing scrolls.
    await vi.waitFor(() => expect(box.querySelectorAll('thead th')).toHaveLength(LONG.length));
    expect(box.scrollWidth).toBeLessThanOrEqual(box.clientWidth);
    expect(rect(must(box.querySelector('thead th:last-child'))).right).toBeLessThanOrEqual(rect(box).right + 0.5);
    expect(rect(box).right).toBeLessThanOrEqual(innerWidth);
    expect(target.querySelector('[data-scroll-hint]')).toBeNull();
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(innerWidth);
  });

  test("sixteen agents scroll in the matrix's own box, said so, the buyers' names held at its left edge", async () => {
    const many = [...LONG, ...Array.from({ length: 10 }, (_, i) => `openrouter:model-${i}`)];
    const target = render(HeadToHead, { pairs: pairsOf(many), agents: many });
    const box = must(target.querySelector<HTMLElement>('.head-to-head .scroll'));
    expect(getComputedStyle(box).overflowX).toBe('auto');
    await vi.waitFor(() => must(target.querySelector('[data-scroll-hint]'), 'hint'));
    expect(text(target.querySelector('[data-scroll-hint]'))).toContain('16 sellers');
    expect(box.scrollWidth).toBeGreaterThan(box.clientWidth);
    expect(rect(box).right).toBeLessThanOrEqual(innerWidth);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(innerWidth);
    box.scrollLeft = box.scrollWidth;
    await vi.waitFor(() => expect(box.scrollLeft).toBeGreaterThan(0));
    const buyer = must(box.querySelector('tbody th'));
    expect(Math.abs(rect(buyer).left - rect(box).left)).toBeLessThanOrEqual(1);
    expect(rect(must(box.querySelector('thead th:last-child'))).right).toBeLessThanOrEqual(rect(box).right + 1);
  });
});

describe('stored runs in the app', () => {
  const RUNS = ['layout-a', 'layout-b'];
  beforeAll(async () => {
    await storedTournament(database(), { id: RUNS[0], name: 'Layout run A', rows: 12 });
    await storedTournament(database(), { id: RUNS[1], name: 'Layout run B', createdAt: 5_000 });
  });
  afterAll(async () => {
    cleanup();
    presentation.set(false);
    localStorage.removeItem(PRESENTATION_KEY);
    location.hash = '';
    for (const id of RUNS) await deleteRun(database(), id);
  });

  test("presentation mode at 1366 × 768: ticks, legends and point labels grow with the page's text, and shrink back", async () => {
    await page.viewport(1366, 768);
    presentation.set(false);
    location.hash = `#/runs/${RUNS[1]}`;
    const target = render(App, {});
    // Every chart of the results drawn (the head-to-head comes last).
    await vi.waitFor(() => must(target.querySelector('#h2h-title')), { timeout: 15_000 });
    const canvases = () => [...target.querySelectorAll<HTMLCanvasElement>('main figure.chart canvas')];
    await vi.waitFor(() => expect(canvases().length).toBe(target.querySelectorAll('main figure.chart').length));
    const charts = await Promise.all(canvases().map(drawn));
    const scatter = defined(
      charts.find((c) => (c.config as { type: string }).type === 'scatter'),
      'scatter chart',
    );
    type Sized = { ticks: { font: { size: number } }; title: { font: { size: number } } };
    const scale = (c: Chart, id: string) => defined(c.scales[id], id).options as unknown as Sized;
    const sizes = () =>
      charts.map((c) => ({
        ticks: scale(c, 'y').ticks.font.size,
        title: scale(c, 'x').title.font.size,
        legend: Number((c.legend?.options.labels.font as { size: number } | undefined)?.size ?? 0),
      }));
    const labelHeight = () => {
      const first = labelsOf(scatter)?.placed[0];
      return first ? first.box.bottom - first.box.top : 0;
    };
    const body = () => parseFloat(getComputedStyle(document.body).fontSize);
    const normal = sizes();
    const normalLabel = await vi.waitFor(() => {
      expect(labelHeight()).toBeGreaterThan(0);
      return labelHeight();
    });
    const normalBody = body();
    // Chart text is in proportion to the body's (12 px beside 15 px).
    for (const s of normal) expect(s.ticks).toBeCloseTo(normalBody * 0.8, 0);

    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Presentation mode')));
    expect(body()).toBeGreaterThanOrEqual(normalBody * 1.3);
    const ratio = body() / normalBody;
    await vi.waitFor(() => {
      for (const [i, s] of sizes().entries()) {
        const before = normal[i] as (typeof normal)[number];
        expect(s.ticks).toBeCloseTo(before.ticks * ratio, 0);
        expect(s.title).toBeCloseTo(before.title * ratio, 0);
        if (before.legend > 0) expect(s.legend).toBeCloseTo(before.legend * ratio, 0);
      }
    });
    await vi.waitFor(() => expect(labelHeight()).toBeGreaterThanOrEqual(normalLabel * 1.25));

    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Presentation mode')));
    await vi.waitFor(() => expect(sizes()).toEqual(normal));
    await page.viewport(1280, 800);
  });

  test('Compare at 1280 px: the agents\' tables side by side across the page, and "differences only" keeps exactly the rows that differ', async () => {
    location.hash = `#/compare/${RUNS[0]}/${RUNS[1]}`;
    const target = render(App, {});
    await vi.waitFor(() => expect(target.querySelectorAll('main tbody[data-seat]').length).toBe(8));
    const main = must(target.querySelector('main'));
    const content = main.clientWidth - parseFloat(getComputedStyle(main).paddingLeft) - parseFloat(getComputedStyle(main).paddingRight);
    const grid = must(target.querySelector<HTMLElement>('main .seats'));
    expect(grid.getBoundingClientRect().width).toBeGreaterThanOrEqual(content - 1);
    const tables = [...grid.querySelectorAll('table')];
    const [first, second] = tables.map(rect);
    expect(second?.top).toBeCloseTo(first?.top ?? -1, 0);
    expect(second?.left).toBeGreaterThan(first?.right ?? Infinity);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(innerWidth);
    const allRows = target.querySelectorAll('main tr[data-rate]').length;
    expect(allRows).toBe(8 * RATE_NAMES.length);
    const tallAll = must(document.scrollingElement).scrollHeight;

    // The oracle: the two stored leaderboards, read directly.
    const [a, b] = await Promise.all(RUNS.map((id) => getRun(database(), id)));
    const board = (run: typeof a) => new Map((run?.standings?.leaderboard ?? []).map((r) => [`${r.agent}|${r.role}`, r]));
    const [boardA, boardB] = [board(a), board(b)];
    const expected = [...boardA.keys()].flatMap((seat) =>
      RATE_NAMES.filter((rate) => {
        const x = boardA.get(seat)?.[rate] ?? null;
        const y = boardB.get(seat)?.[rate] ?? null;
        return x === null || y === null ? (x === null) !== (y === null) : Math.abs(y - x) >= 0.0005;
      }).map((rate) => `${seat}/${rate}`),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(allRows);

    await userEvent.click(must(target.querySelector<HTMLInputElement>('main input[type="radio"][value="values"]')));
    const shown = () =>
      [...target.querySelectorAll('main tbody[data-seat]')].flatMap((tbody) =>
        [...tbody.querySelectorAll('tr[data-rate]')].map((tr) => `${tbody.getAttribute('data-seat')}/${tr.getAttribute('data-rate')}`),
      );
    await vi.waitFor(() => expect(shown().toSorted()).toEqual(expected.toSorted()));
    expect(text(target.querySelector('main .count'))).toBe(
      `${expected.length} of ${allRows} rows differ, for ${new Set(expected.map((e) => e.split('/')[0])).size} of 8 agent-role pairs.`,
    );
    expect([...target.querySelectorAll('main [data-diff]')].every((cell) => text(cell) !== '0.0 pp')).toBe(true);
    expect(must(document.scrollingElement).scrollHeight).toBeLessThan(tallAll);

    // Clear differences: only rows marked "differ".
    await userEvent.click(must(target.querySelector<HTMLInputElement>('main input[type="radio"][value="intervals"]')));
    await vi.waitFor(() => expect([...target.querySelectorAll('main [data-overlap]')].every((cell) => text(cell) === 'differ')).toBe(true));
  });
});

describe('the Market page at 1280 and 1366 px', () => {
  const boxesOf = (form: Element) => [...form.children].filter((el) => el.getBoundingClientRect().width > 0).map((el) => ({ el, box: rect(el) }));
  function expectNoOverlap(form: Element): void {
    const items = boxesOf(form);
    expect(items.length).toBeGreaterThan(3);
    for (const [i, a] of items.entries())
      for (const b of items.slice(i + 1)) expect(overlap(a.box, b.box), `${text(a.el).slice(0, 30)} / ${text(b.el).slice(0, 30)}`).toBe(false);
    // Every control inside its own field.
    for (const { el, box } of items)
      for (const control of el.querySelectorAll('input, select, button')) {
        const c = rect(control);
        if (c.right === c.left) continue;
        expect(c.left >= box.left - 0.5 && c.right <= box.right + 0.5, text(el).slice(0, 30)).toBe(true);
      }
  }

  test.each([1280, 1366])("at %i px the play form's controls do not overlap, with a preset or a custom market", async (width) => {
    await page.viewport(width, 800);
    const target = render(MarketPage, {});
    const form = must(target.querySelector('form[aria-label="Market settings"]'));
    expectNoOverlap(form);
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Configuration'), 'custom');
    await vi.waitFor(() => expect(form.querySelectorAll('input').length).toBeGreaterThan(4));
    expectNoOverlap(form);
    expectNoOverlap(must(target.querySelector('form[aria-label="Market tournament settings"]')));
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(width);
    await page.viewport(1280, 800);
  });

  test('market standings are percentages, with the one formatter the bilateral pages use', async () => {
    const target = render(MarketPage, {});
    const { tournament } = marketSessions();
    await userEvent.fill(control<HTMLInputElement>(target, 'Markets per configuration'), '2');
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('form[aria-label="Market tournament settings"] button[type="submit"]')));
    await vi.waitFor(() => expect(tournament.status).toBe('done'), { timeout: 30_000 });
    const runId = tournament.runId as string;
    try {
      await vi.waitFor(() => must(target.querySelector('.market-standings tr[data-seller]')));
      let checked = 0;
      for (const row of tournament.standings) {
        const tr = must(target.querySelector(`.market-standings table[data-config="${row.scope}|${row.config}"] tr[data-seller="${row.seller}"]`));
        for (const cell of tr.querySelectorAll('td[data-metric]')) {
          const name = cell.getAttribute('data-metric') as keyof typeof METRIC_INFO;
          const e = row.metrics[name as keyof typeof row.metrics];
          if (METRIC_INFO[name].money || !e || e.value === null) continue;
          expect(text(cell)).toBe(e.ci === null ? pct(e.value, 1) : `${pct(e.value, 1)} [${pct(e.ci[0], 1)}, ${pct(e.ci[1], 1)}]`);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(10);
    } finally {
      await deleteRun(database(), runId);
    }
  });
});
