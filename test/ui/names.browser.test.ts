/**
 * Long and bidirectional names (issue 10): a 200-character agent or run name, and one holding a
 * right-to-left override, on the pages that show them. No name may widen the page, reorder the
 * text beside it, or be cut from the page.
 */
import { afterEach, beforeAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import NegotiationPage from '../../src/ui/pages/NegotiationPage.svelte';
import RunsPage from '../../src/ui/pages/RunsPage.svelte';
import RunPage from '../../src/ui/pages/RunPage.svelte';
import TournamentPage from '../../src/ui/pages/TournamentPage.svelte';
import Leaderboard from '../../src/ui/components/Leaderboard.svelte';
import HeadToHead from '../../src/ui/components/HeadToHead.svelte';
import TierChart from '../../src/ui/components/TierChart.svelte';
import BehaviourChart from '../../src/ui/components/BehaviourChart.svelte';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { generateScenarios } from '../../src/games/bilateral/scenario';
import { deleteRun } from '../../src/storage/runs';
import type { NegotiationRow, RunRow } from '../../src/storage/schema';
import { loadChart } from '../../src/ui/charts';
import { CHART_LABEL_LENGTH } from '../../src/ui/names';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { database } from '../../src/ui/state/sim';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { freshDb, storeRows, TOURNAMENT, tournamentRows } from '../storage/helpers';
import { agent, cleanup, control, must, play, render, text } from './helpers.svelte';

afterEach(cleanup);

const WIDTH = 1280;
beforeAll(() => page.viewport(WIDTH, 800));

/** 200 characters with nowhere to break a line (no space, hyphen or slash). */
const LONG = `openrouter:${'VeryLongModelName'.repeat(11)}`.padEnd(200, 'x');
/** A right-to-left override, never closed: unisolated, it turns everything after it around. */
const RLO = 'hard\u202Eliner';
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const bare = (s: string) => s.replace(BIDI_CONTROLS, '');

/** Tournament rows with boulware renamed LONG and conceder renamed RLO, as an imported file could have them. */
async function renamedRows(runId: string): Promise<NegotiationRow[]> {
  const rename = (name: string) => (name === 'boulware' ? LONG : name === 'conceder' ? RLO : name);
  return (await tournamentRows(runId)).map((r) => ({ ...r, buyer: rename(r.buyer), seller: rename(r.seller) }));
}
const AGENTS = TOURNAMENT.agents.map((a) => (a === 'boulware' ? LONG : a === 'conceder' ? RLO : a));

function standingsOf(rows: NegotiationRow[]): NonNullable<RunRow['standings']> {
  const aggregator = new Aggregator();
  for (const row of rows) aggregator.add(row.buyer, row.seller, row.scenario, computeMetrics(row.scenario, row.events));
  return aggregator.standings({ samples: 100, seed: 1 });
}

/** The page is no wider than the viewport. */
function fitsTheViewport(): void {
  expect(innerWidth).toBe(WIDTH);
  expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Every text node in `root` that holds (part of) `name`, by a run of its characters no other text has. */
function nodesNaming(root: Element, name: string): Text[] {
  const probe = bare(name).slice(0, 8);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (bare(node.textContent ?? '').includes(probe)) found.push(node as Text);
  return found;
}

/**
 * Each place `root` shows `name` is isolated (a <bdi> or unicode-bidi: isolate) around the
 * whole name and nothing else, so the full name is on the page and nothing beside it is reordered.
 * Returns the isolating elements.
 */
function expectIsolated(root: Element, name: string, atLeast = 1): HTMLElement[] {
  const nodes = nodesNaming(root, name);
  expect(nodes.length, `${name.slice(0, 12)} shown`).toBeGreaterThanOrEqual(atLeast);
  return nodes.map((node) => {
    let el = node.parentElement;
    while (el && el !== root && el.tagName !== 'BDI' && getComputedStyle(el).unicodeBidi !== 'isolate') el = el.parentElement;
    const isolating = must(el && el !== root ? el : null, `an isolating element around ${name.slice(0, 12)}`);
    expect(getComputedStyle(isolating).unicodeBidi).toBe('isolate');
    expect(bare(isolating.textContent ?? '')).toBe(bare(name));
    return isolating;
  });
}

/** No element in `root` is wider than the viewport (a box may scroll sideways inside; none spills out). */
function expectNoBoxWiderThanTheViewport(root: Element): void {
  for (const el of root.querySelectorAll('*')) expect(el.getBoundingClientRect().right, el.tagName).toBeLessThanOrEqual(innerWidth + 1);
}

describe('the Arena', () => {
  test('a 200-character remote model typed into the picker, and names with an override in a played game, fit and stay apart', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 3, count: 1 })[0]!;
    const played = await play(scenario, agent('linear', 'buyer'), agent('conceder', 'seller'));
    const session = new ArenaSession();
    session.scenario = scenario;
    session.agents = { buyer: LONG, seller: RLO };
    session.events = played.events;
    session.status = 'finished';
    const overriding = `openai:${RLO}`;
    const target = render(ArenaPage, { session, remoteModels: [LONG, overriding] });

    // The buyer picks a model with an override by name from the list, the seller types a long one.
    const [buyer, seller] = [...target.querySelectorAll<HTMLFieldSetElement>('fieldset.agent-picker')] as [HTMLFieldSetElement, HTMLFieldSetElement];
    await userEvent.selectOptions(control<HTMLSelectElement>(buyer, 'Agent'), overriding);
    await vi.waitFor(() => expect(bare(text(buyer.querySelector('.spec')))).toBe(bare(`Spec: ${overriding}`)));
    expectIsolated(must(buyer.querySelector('.spec')), overriding);
    await userEvent.selectOptions(control<HTMLSelectElement>(seller, 'Agent'), 'remote model…');
    await userEvent.fill(control<HTMLInputElement>(seller, 'Remote model'), `openai:${'m'.repeat(150)}`);

    await vi.waitFor(() => expect(target.querySelector('.outcome')).not.toBeNull());
    fitsTheViewport();
    expectNoBoxWiderThanTheViewport(target);
    expectIsolated(must(target.querySelector('.transcript')), LONG, 2);
    expectIsolated(must(target.querySelector('.transcript')), RLO, 2);
    expectIsolated(must(target.querySelector('.outcome')), LONG, 2);
    expectIsolated(must(target.querySelector('.outcome')), RLO, 1);
  });
});

describe('results', () => {
  test('the leaderboard and the head-to-head matrix keep long names in their columns, isolated and whole', async () => {
    const rows = await renamedRows('names');
    const standings = standingsOf(rows);
    const board = render(Leaderboard, { rows: standings.leaderboard });
    const matrix = render(HeadToHead, { pairs: standings.pairs, agents: AGENTS });
    fitsTheViewport();

    for (const cell of expectIsolated(board, LONG, 2)) expect(cell.getBoundingClientRect().width).toBeLessThanOrEqual(20 * 16 + 1);
    expectIsolated(board, RLO, 2);
    // Every agent heads a row and a column of the matrix.
    for (const cell of expectIsolated(matrix, LONG, 2)) expect(cell.getBoundingClientRect().width).toBeLessThanOrEqual(12 * 16 + 1);
    expectIsolated(matrix, RLO, 2);
    const table = must(matrix.querySelector('table'));
    expect(table.getBoundingClientRect().width).toBeLessThanOrEqual(WIDTH);
  });

  test('chart legends and point labels are short and free of bidi controls; the text alternative names every agent in full', async () => {
    const standings = standingsOf(await renamedRows('charts'));
    const tiers = render(TierChart, { rows: standings.byTier, rate: 'dealRate', role: 'buyer' });
    const behaviour = render(BehaviourChart, { rows: standings.leaderboard, measure: 'opening', share: 'expectedSurplusShare' });
    const chartOf = async (target: HTMLElement) => {
      const canvas = await vi.waitFor(() => must(target.querySelector('canvas')));
      await vi.waitFor(() => expect(canvas.dataset.chartReady).toBe('true'));
      const chart = (await loadChart()).getChart(canvas);
      if (!chart) throw new Error('no chart on the canvas');
      return chart;
    };

    const legends = (await chartOf(tiers)).data.datasets.map((d) => String(d.label));
    const labels = (await chartOf(behaviour)).data.datasets.flatMap((d) => (d.data as unknown as { label: string }[]).map((p) => p.label));
    for (const label of [...legends, ...labels]) {
      expect([...label].length).toBeLessThanOrEqual(CHART_LABEL_LENGTH);
      expect(label).not.toMatch(BIDI_CONTROLS);
    }
    expect(legends).toContain('hardliner');
    expect(legends.some((l) => l.startsWith('openrouter:') && l.includes('…'))).toBe(true);
    expect(labels).toContain('hardliner');

    for (const target of [tiers, behaviour]) {
      const alternative = must(target.querySelector('figcaption'));
      expectIsolated(alternative, LONG);
      expectIsolated(alternative, RLO);
    }
    fitsTheViewport();
  });
});

describe('the negotiation page', () => {
  test('a long buyer and a seller with an override: the heading keeps its words in order and the page its width', async () => {
    const db = database();
    const runId = `names-test-${crypto.randomUUID()}`;
    const row = (await tournamentRows(runId)).find((r) => r.buyer === 'boulware' && r.seller === 'conceder');
    if (!row) throw new Error('no boulware–conceder negotiation');
    const stored: NegotiationRow = { ...row, buyer: LONG, seller: RLO };
    await storeRows(db, runId, [stored]);
    onTestFinished(() => deleteRun(db, runId));

    const target = render(NegotiationPage, { runId, jobId: stored.jobId });
    const heading = await vi.waitFor(() => must(target.querySelector('h1')));
    await vi.waitFor(() => expect(target.querySelector('.outcome')).not.toBeNull());
    fitsTheViewport();
    expectNoBoxWiderThanTheViewport(target);
    expect(bare(text(heading))).toBe(bare(`${LONG} buys ${stored.scenario.item.name} from ${RLO}`));
    expectIsolated(heading, LONG);
    const [seller] = expectIsolated(heading, RLO);

    // Seen on screen: "from" stands left of the seller's name, on its line; an unisolated override would turn it around.
    const from = document.createRange();
    const words = [...heading.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.includes('from'))!;
    const at = words.textContent!.indexOf('from');
    from.setStart(words, at);
    from.setEnd(words, at + 4);
    const fromBox = from.getBoundingClientRect();
    const sellerBox = seller!.getBoundingClientRect();
    expect(Math.abs(fromBox.top - sellerBox.top)).toBeLessThan(4);
    expect(fromBox.right).toBeLessThanOrEqual(sellerBox.left + 1);

    expectIsolated(must(target.querySelector('.transcript')), LONG, 2);
    expectIsolated(must(target.querySelector('.transcript')), RLO, 2);
  });
});

describe('runs', () => {
  async function storeRun(db: ReturnType<typeof freshDb>, id: string, name: string, createdAt: number): Promise<void> {
    const rows = (await renamedRows(id)).map((r, index) => ({ ...r, id: `${id}:${r.jobId}`, runId: id, index }));
    await db.runs.put({
      id,
      game: 'bilateral',
      name,
      createdAt,
      updatedAt: createdAt,
      status: 'done',
      config: { kind: 'tournament', tournament: { ...TOURNAMENT, agents: AGENTS } },
      planned: rows.length,
      done: rows.length,
      message: null,
      standings: standingsOf(rows),
    });
    await storeRows(db, id, rows);
  }

  test('the runs list and a run’s page with a 200-character run name, an overriding one and such agents', async () => {
    const db = freshDb();
    await storeRun(db, 'long', LONG, 1_000);
    await storeRun(db, 'rlo', RLO, 2_000);
    await db.runs.put({
      id: 'arena',
      game: 'bilateral',
      name: 'an arena game',
      createdAt: 3_000,
      updatedAt: 3_000,
      status: 'done',
      config: { kind: 'arena', buyer: LONG, seller: RLO, scenario: generateScenarios({ preset: 'standard', seed: 1, count: 1 })[0]! },
      planned: 1,
      done: 0,
      message: null,
      standings: null,
    });
    const store = new RunsStore(() => db);

    const list = render(RunsPage, { store, tournament: new TournamentSession() });
    await vi.waitFor(() => expect(list.querySelectorAll('tr[data-run-id]')).toHaveLength(3));
    fitsTheViewport();
    expectIsolated(must(list.querySelector('tr[data-run-id="long"]')), LONG);
    expectIsolated(must(list.querySelector('tr[data-run-id="rlo"]')), RLO);
    // An Arena game's set-up names both its agents.
    expectIsolated(must(list.querySelector('tr[data-run-id="arena"] .config')), LONG);
    expectIsolated(must(list.querySelector('tr[data-run-id="arena"] .config')), RLO);
    expect(bare(text(list.querySelector('tr[data-run-id="arena"] .config')))).toBe(bare(`${LONG} (buyer) vs ${RLO} (seller)`));
    for (const id of ['long', 'rlo']) await userEvent.click(must(list.querySelector(`tr[data-run-id="${id}"] input[type="checkbox"]`)));
    const compare = await vi.waitFor(() => must(list.querySelector('[role="group"] a')));
    expect(bare(text(compare))).toBe(bare(`Compare “${LONG}” (A) with “${RLO}” (B)`));
    expectIsolated(compare, LONG);
    expectIsolated(compare, RLO);
    fitsTheViewport();
    cleanup();

    const run = render(RunPage, { runId: 'long', store, tournament: new TournamentSession() });
    await vi.waitFor(() => expect(run.querySelectorAll('table.list tbody tr').length).toBeGreaterThan(0));
    expectIsolated(must(run.querySelector('h1')), LONG);
    expectIsolated(must(run.querySelector('table.list')), LONG);
    expectIsolated(must(run.querySelector('table.list')), RLO);
    // Option labels are text: the override is closed inside an isolate (FSI … PDI), and the value is the name itself.
    const options = [...run.querySelectorAll<HTMLOptionElement>('form.filters option')];
    expect(options.find((o) => o.value === RLO)?.text).toBe(`\u2068${RLO}\u202C\u2069`);
    expect(options.find((o) => o.value === LONG)?.text).toBe(LONG);
    await vi.waitFor(() => expect(run.querySelector('.leaderboard')).not.toBeNull());
    fitsTheViewport();
  });
});

describe('the tournament form', () => {
  test('a long agent in the list and on the Add button wraps instead of widening the form', async () => {
    const target = render(TournamentPage, { session: new TournamentSession(), runs: new RunsStore(() => freshDb()), remoteModels: [LONG] });
    const picker = must(target.querySelector<HTMLFieldSetElement>('fieldset.agent-picker'));
    await userEvent.selectOptions(control<HTMLSelectElement>(picker, 'Agent'), LONG);
    await vi.waitFor(() => expect(text(picker.querySelector('.spec'))).toBe(`Spec: ${LONG}`));
    expectIsolated(must(picker.querySelector('.spec')), LONG);
    const add = await vi.waitFor(() => must([...target.querySelectorAll('button')].find((b) => text(b) === `Add ${LONG}`)));
    await userEvent.click(add);
    await vi.waitFor(() => expect(text(target.querySelector('.agents'))).toContain(LONG));
    fitsTheViewport();
    expectNoBoxWiderThanTheViewport(target);
    expectIsolated(must(target.querySelector('.agents')), LONG);
  });
});
