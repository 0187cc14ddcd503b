/**
 * The Market page with the real simulation worker and IndexedDB: a market played live shows the
 * allocation and the metrics core computes for the same config; stop works; bad input is named and
 * kept; a market tournament is stored, reopened on a fresh connection, listed with a market label,
 * and exported and imported back with the same results.
 */
import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { createMarketAgentFactory } from '../../src/games/market';
import { MARKET_METRIC_NAMES, salesOf } from '../../src/games/market/metrics';
import { optimalAllocation } from '../../src/games/market/matching';
import { generateMarket, marketConfigByName } from '../../src/games/market/scenario';
import { playMarket } from '../../src/games/market/tournament';
import { Seat } from '../../src/engine/seat';
import { openDb } from '../../src/storage/db';
import { createRun, deleteRun, getRun, loadLines } from '../../src/storage/runs';
import { RunWriter } from '../../src/storage/writer';
import { marketStandings } from '../../src/storage/market-file';
import { marketLine, tournamentOf, type MarketLine, type MarketRunConfig } from '../../src/storage/market-schema';
import { makeMarketAgent } from '../../src/games/market';
import { ALL_MARKET_CONFIGS } from '../../src/games/market/scenario';
import { showMetric } from '../../src/ui/components/market/describe';
import { money } from '../../src/ui/components/format';
import MarketPage from '../../src/ui/pages/MarketPage.svelte';
import MarketLog from '../../src/ui/components/market/MarketLog.svelte';
import type { MarketEvent } from '../../src/games/market/events';
import RunPage from '../../src/ui/pages/RunPage.svelte';
import RunsPage from '../../src/ui/pages/RunsPage.svelte';
import { marketSessions } from '../../src/ui/state/market.svelte';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { database, newId, sim } from '../../src/ui/state/sim';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { cleanup, control, must, render, text } from './helpers.svelte';
import { runTournament } from '../../src/engine/tournament';
import { marketGame } from '../../src/games/market/game';

afterEach(cleanup);

const WAIT = { timeout: 10_000 };
const status = (target: HTMLElement) => text(target.querySelector('.controls [role="status"]'));

async function configure(target: HTMLElement, fields: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(fields)) await userEvent.fill(control<HTMLInputElement>(target, label), value);
}

describe('Market page', () => {
  test('plays a market live and shows the allocation and metrics core computes for the same config', async () => {
    const target = render(MarketPage, {});
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Speed'), 'Fast');
    await configure(target, { Seed: '3', Seller: 'greedy' });
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('form[aria-label="Market settings"] button[type="submit"]')));
    await vi.waitFor(() => expect(status(target)).toBe('Finished'), WAIT);

    const scenario = generateMarket(marketConfigByName('small')!.config, 3, 0, 'small');
    const make = createMarketAgentFactory();
    const seat = (role: 'seller' | 'buyer', spec: string) => make(spec, role, new Seat(3, 'small-0-0', role));
    const played = await playMarket(scenario, { seller: seat('seller', 'greedy'), buyer: seat('buyer', 'margin') });
    expect(text(target.querySelector('.market-log li:last-child'))).toContain('End');
    expect(target.querySelectorAll('.market-log li')).toHaveLength(played.events.length);

    const optimal = optimalAllocation(scenario);
    const sales = salesOf(played.events);
    expect(sales.length).toBeGreaterThan(0);
    for (const [i, buyer] of scenario.buyers.entries()) {
      const row = must(target.querySelector(`.allocation-table tr[data-buyer="${buyer.id}"]`), buyer.id);
      const best = optimal.assignments.find((a) => a.buyer === buyer.id);
      expect(text(row.querySelector('.optimal-cell'))).toBe(best ? `${best.product} (${money(best.welfare)})` : 'nothing');
      const sale = sales.find((s) => s.buyer === buyer.id);
      const value = sale && scenario.buyers[i]!.values[scenario.products.findIndex((p) => p.id === sale.product)]!;
      expect(text(row.querySelector('.realised-cell'))).toBe(sale ? `${sale.product} at ${money(sale.price)} (value ${money(value!)})` : 'nothing');
    }
    expect(target.querySelectorAll('svg line.realised')).toHaveLength(played.metrics.sales);
    expect(target.querySelectorAll('svg line.optimal')).toHaveLength(optimal.assignments.length);
    for (const name of MARKET_METRIC_NAMES) {
      const item = must(target.querySelector(`.market-metrics [data-metric="${name}"]`), name);
      expect(text(item.querySelector('.value')), name).toBe(showMetric(name, played.metrics[name]));
      expect(text(item.querySelector('.explain')).length, name).toBeGreaterThan(20);
    }
    // Saved as a run of one market, with the same events.
    const runId = marketSessions().game.runId;
    if (runId) onTestFinished(() => deleteRun(database(), runId));
    expect(runId).not.toBeNull();
    expect((await loadLines(database(), runId as string, 'market')).lines[0]?.events).toEqual(played.events);
  });

  test('stop ends a paused market as stopped, and nothing is saved', async () => {
    const target = render(MarketPage, {});
    const { game } = marketSessions();
    if (!game.paused) await userEvent.click(must(target.querySelector<HTMLButtonElement>('.controls button'), 'Pause'));
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('form[aria-label="Market settings"] button[type="submit"]')));
    await vi.waitFor(() => expect(status(target)).toBe('Playing: 0 of 6 seller turns used (paused)'), WAIT);
    const stop = [...target.querySelectorAll<HTMLButtonElement>('.controls button')].find((b) => text(b) === 'Stop');
    await userEvent.click(must(stop, 'Stop'));
    await vi.waitFor(() => expect(status(target)).toBe('Stopped'), WAIT);
    expect(game.runId).toBeNull();
    await userEvent.click(must([...target.querySelectorAll<HTMLButtonElement>('.controls button')].find((b) => text(b) === 'Resume')));
  });

  test('bad input is named beside its field and kept as typed', async () => {
    const target = render(MarketPage, {});
    await configure(target, { Seed: 'abc', Seller: 'haggler' });
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('form[aria-label="Market settings"] button[type="submit"]')));
    const seed = control<HTMLInputElement>(target, 'Seed');
    expect(seed.value).toBe('abc');
    expect(seed.getAttribute('aria-invalid')).toBe('true');
    expect(text(document.getElementById(seed.getAttribute('aria-describedby') as string))).toBe(
      'Seed must be a whole number from 0 to 4294967295 (it is “abc”).',
    );
    const seller = control<HTMLInputElement>(target, 'Seller');
    expect(text(document.getElementById(seller.getAttribute('aria-describedby') as string))).toMatch(
      /^unknown market seller "haggler"; choose one of: catalog, greedy, explore, random/,
    );
  });
});

describe('Market log', () => {
  test("shows a model seat's message and its call as text, never as markup", () => {
    const markup = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    const call = {
      backend: 'webllm',
      model: 'Qwen3-0.6B-q4f16_1-MLC',
      latencyMs: 1500,
      tokensIn: 300,
      tokensOut: 20,
      prompt: `prompt ${markup}`,
      raw: `raw ${markup}`,
    };
    const events: MarketEvent[] = [
      { type: 'move', turn: 0, actor: 'seller', move: { buyer: 'b1', product: 'p2', price: 40, message: markup }, call },
      { type: 'move', turn: 1, actor: 'buyer', move: { response: { type: 'counter', price: 35 } } },
      { type: 'end', turn: 2, outcome: { kind: 'budget_spent', turn: 2 } },
    ];
    const target = render(MarketLog, { events });
    const lines = [...target.querySelectorAll('.market-log > li')];
    expect(text(lines[0]!.firstElementChild)).toBe('Turn 1');
    expect(text(lines[0])).toContain(`Seller offers p2 to b1 at $40.00: “${markup}”`);
    expect(text(lines[0]!.querySelector('summary'))).toBe('Model call: webllm · Qwen3-0.6B-q4f16_1-MLC · 300 in / 20 out · 1.5 s');
    expect(text(lines[1])).toBe('Turn 2 b1 counters at $35.00');
    expect(text(lines[2])).toBe('End The seller’s turn budget was spent.');
    expect(target.querySelector('img, b')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });
});

describe('market tournaments', () => {
  test('a tournament is stored, reopened on a fresh connection, listed as market, and exported and imported back with the same results', async () => {
    const target = render(MarketPage, {});
    await configure(target, { Sellers: 'catalog, greedy', 'Markets per configuration': '2', 'Tournament seed': '5' });
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('form[aria-label="Market tournament settings"] button[type="submit"]')));
    const { tournament } = marketSessions();
    await vi.waitFor(() => expect(tournament.status).toBe('done'), WAIT);
    const runId = tournament.runId as string;
    onTestFinished(() => deleteRun(database(), runId));
    expect(tournament.done).toBe(12);
    expect(text(target.querySelector('.market-standings'))).toContain('held-out-7x5-segmented (held out)');
    const live = text(target.querySelector('.market-standings'));

    // A fresh connection, as a reloaded page has, finds it whole.
    const fresh = new RunsStore(() => openDb());
    const page = render(RunPage, { runId, store: fresh, tournament: new TournamentSession() });
    await vi.waitFor(() => expect(text(page.querySelector('.market-standings'))).toBe(live), WAIT);
    await vi.waitFor(() => expect(page.querySelectorAll('table.markets tbody tr')).toHaveLength(12), WAIT);
    const list = render(RunsPage, { store: fresh, tournament: new TournamentSession() });
    await vi.waitFor(() => expect(text(list.querySelector(`tr[data-run-id="${runId}"]`))).toContain('market market tournament'), WAIT);

    const db = database();
    for (const format of ['json', 'jsonl'] as const) {
      const exported = await sim().request({ type: 'export', requestId: newId(), runId, format });
      if (exported.type !== 'exported') throw new Error(exported.message);
      const file = new File([await exported.blob.text()], exported.fileName);
      const imported = await sim().request({ type: 'import', requestId: newId(), file });
      if (imported.type !== 'imported') throw new Error(imported.message);
      onTestFinished(() => deleteRun(db, imported.runId));
      expect(imported.runId).not.toBe(runId);
      expect((await getRun(db, imported.runId, 'market'))?.standings).toEqual((await getRun(db, runId, 'market'))?.standings);
      expect(await loadLines(db, imported.runId, 'market')).toEqual(await loadLines(db, runId, 'market'));
    }
    const bad = await sim().request({
      type: 'import',
      requestId: newId(),
      file: new File(['{"format":"parley-market-jsonl","version":1,"run":{}}\n'], 'bad.jsonl'),
    });
    expect(bad.type === 'failed' ? bad.message : null).toMatch(/^line 1: run\.id: expected string/);
  });

  test('a stopped tournament resumes from the Runs page, plays only what it lacks, and ends as if never stopped', async () => {
    const config: MarketRunConfig = {
      sellers: ['catalog', 'greedy'],
      buyer: 'margin',
      configs: ALL_MARKET_CONFIGS.filter((c) => c.name === 'small' || c.name === 'held-out-4x9-lognormal').map((c) => ({ ...c })),
      marketsPerConfig: 2,
      seed: 6,
      samples: 200,
    };
    const whole: MarketLine[] = [];
    await runTournament(marketGame, tournamentOf(config), makeMarketAgent, { onResult: (r) => void whole.push(marketLine(r)) });
    // The worker's database, as a tab closed after five markets left it.
    const db = database();
    const runId = newId();
    onTestFinished(() => deleteRun(db, runId));
    await createRun(db, { game: 'market', id: runId, name: 'stopped after five', config, planned: 8, createdAt: Date.now() });
    const writer = new RunWriter(db, runId, { game: 'market', now: () => 0 });
    for (const line of whole.slice(0, 5)) await writer.add(line);
    await writer.flush();

    const list = render(RunsPage, { store: new RunsStore(() => openDb()), tournament: new TournamentSession() });
    const row = () => list.querySelector(`tr[data-run-id="${runId}"]`);
    await vi.waitFor(() => expect(text(row())).toContain('interrupted'), WAIT);
    await userEvent.click(
      must(
        [...must(row()).querySelectorAll('button')].find((b) => text(b) === 'Resume'),
        'Resume',
      ),
    );
    const { tournament } = marketSessions();
    await vi.waitFor(() => expect(tournament.status).toBe('done'), WAIT);
    expect(tournament.done).toBe(8);
    expect((await loadLines(db, runId, 'market')).lines).toEqual(whole);
    expect((await getRun(db, runId, 'market'))?.standings).toEqual(marketStandings(config, whole));
  });
});
