/**
 * One stored record that cannot be read, in real IndexedDB: a run row with `config: null`, a run
 * with garbage standings, a market run with no config, an Arena game with a broken event. Before,
 * the first left the Runs page on "Loading…" for good and the last made the class export fail; now
 * each is listed or named as damaged and every other run works.
 */
import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import RunsPage from '../../src/ui/pages/RunsPage.svelte';
import RunPage from '../../src/ui/pages/RunPage.svelte';
import NegotiationPage from '../../src/ui/pages/NegotiationPage.svelte';
import ClassExport from '../../src/ui/components/ClassExport.svelte';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { generateScenarios } from '../../src/games/bilateral/scenario';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';
import { addBatches, runBatches } from '../../src/storage/batches';
import { bilateralStore } from '../../src/storage/games/bilateral';
import type { ParleyDb } from '../../src/storage/db';
import { createRun, deleteRun, readRuns, salvageRun, updateRun } from '../../src/storage/runs';
import { negotiationRow } from '../../src/storage/schema';
import { ALL_MARKET_CONFIGS } from '../../src/games/market/scenario';
import type { ClassExport as ClassFile } from '../../src/ui/class-export';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { database } from '../../src/ui/state/sim';
import { freshDb, storedTournament, TOURNAMENT } from '../storage/helpers';
import { agent, cleanup, must, render, text } from './helpers.svelte';

afterEach(cleanup);

/** What a bug, an old version or a hand edit might leave: a run row whose config is gone. */
const noConfig = (id: string, name = 'a run with no config') => ({
  id,
  name,
  createdAt: 5_000,
  updatedAt: 5_000,
  status: 'done',
  config: null,
  planned: 4,
  done: 4,
  message: null,
  standings: null,
});

function downloads(): { name: string; href: string }[] {
  const saved: { name: string; href: string }[] = [];
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, href: this.href });
  });
  onTestFinished(() => click.mockRestore());
  return saved;
}
const button = (target: HTMLElement, name: string) =>
  must(
    [...target.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );
const row = (target: HTMLElement, id: string) => target.querySelector<HTMLTableRowElement>(`tr[data-run-id="${id}"]`);

/** A finished Arena game stored as the worker stores one; `breakEvent` spoils one of its stored events. */
async function arenaGame(db: ParleyDb, id: string, name: string, breakEvent = false): Promise<void> {
  const scenario = generateScenarios({ preset: 'wide', seed: 3, count: 1, deadline: { kind: 'fixed', turns: 10 } })[0]!;
  const played = await playNegotiation(scenario, { buyer: agent('boulware', 'buyer'), seller: agent('conceder', 'seller') });
  await createRun(db, {
    id,
    name,
    config: { kind: 'arena', buyer: 'human', seller: 'conceder', scenario, llm: { ...DEFAULT_LLM_SETTINGS } },
    planned: 1,
    createdAt: Date.now(),
  });
  await addBatches(db, bilateralStore, id, [
    negotiationRow(id, { id: '0', index: 0, scenarioIndex: 0, buyer: 'human', seller: 'conceder', scenario, ...played }),
  ]);
  const aggregator = new Aggregator();
  aggregator.add('human', 'conceder', scenario, played.metrics);
  await updateRun(db, id, { status: 'done', done: 1, standings: aggregator.standings({ samples: 0 }) });
  if (!breakEvent) return;
  const batch = (await runBatches(db, id).toArray())[0]!;
  const negotiation = JSON.parse(batch.negotiations[0]!) as { events: unknown[] };
  const at = negotiation.events.findIndex((e) => (e as { type: string }).type === 'move');
  negotiation.events[at] = { type: 'move', turn: 0, actor: 'seller', move: null };
  await db.batches.update(batch.id, { negotiations: [JSON.stringify(negotiation)] });
}

describe('a stored run that cannot be read', () => {
  test('is listed as damaged on the Runs page, beside the runs that can be read, and can be deleted', async () => {
    const db = freshDb();
    const { run: good } = await storedTournament(db, { id: 'good', name: 'a good run' });
    await db.runs.put(noConfig('broken') as never);
    await storedTournament(db, { id: 'garbled', name: 'garbled standings', createdAt: 2_000 });
    await db.runs.update('garbled', { standings: { leaderboard: 'not a list' } as never });
    await db.runs.put({ id: 'market-broken', game: 'market', name: 'a market run with no config', createdAt: 3_000, status: 'done', config: null } as never);

    const store = new RunsStore(() => db);
    const target = render(RunsPage, { store, tournament: new TournamentSession() });
    await store.init();
    await expect.poll(() => row(target, good.id) !== null).toBe(true);
    expect(text(target)).not.toContain('Loading…');
    // The good run reads and links as always.
    expect(text(row(target, good.id))).toContain('done');
    expect(must(row(target, good.id)?.querySelector('a')).getAttribute('href')).toBe('#/runs/good');
    // The damaged one says so, and why, with its two actions.
    const broken = must(row(target, 'broken'));
    expect(text(broken)).toContain('damaged');
    expect(text(broken)).toMatch(/a run with no config.*cannot be read \(config: .+\)/);
    expect([...broken.querySelectorAll('button')].map((b) => text(b))).toEqual(['Export what can be read', 'Delete']);
    // Garbage standings cost the standings, not the run: listed, openable, with a note.
    const garbled = must(row(target, 'garbled'));
    expect(text(garbled)).toContain('done');
    expect(text(garbled)).toMatch(/Part of this run is damaged: its stored standings could not be read/);
    // A damaged market run is listed with the other damaged runs, in the one list of them, marked market.
    await expect.poll(() => text(row(target, 'market-broken'))).toMatch(/market.*damaged/);
    expect(row(target, 'market-broken')?.closest('section[aria-labelledby="market-runs-title"]')).toBeNull();
    expect([...must(row(target, 'market-broken')).querySelectorAll('button')].map((b) => text(b))).toEqual(['Export what can be read', 'Delete']);

    await userEvent.click(must(broken.querySelector<HTMLButtonElement>('button[aria-label="Delete a run with no config"]')));
    await userEvent.click(button(broken, 'Confirm delete'));
    await expect.poll(() => row(target, 'broken')).toBeNull();
    expect(await db.runs.get('broken')).toBeUndefined();
    expect(row(target, good.id)).not.toBeNull();
  });

  test('its page says it is damaged instead of loading for good; a run with garbage standings opens without them', async () => {
    const db = freshDb();
    await db.runs.put(noConfig('broken', 'the broken one') as never);
    const store = new RunsStore(() => db);
    const target = render(RunPage, { runId: 'broken', store, tournament: new TournamentSession() });
    await expect.poll(() => text(target)).toContain('This run cannot be read');
    expect(text(target.querySelector('[role="alert"]'))).toMatch(/“the broken one” stored in this browser is damaged \(config: .+\)/);

    await storedTournament(db, { id: 'garbled' });
    await db.runs.update('garbled', { standings: 42 as never });
    const other = render(RunPage, { runId: 'garbled', store, tournament: new TournamentSession() });
    await expect.poll(() => text(other)).toContain('36 matching negotiations');
    expect(text(other)).toMatch(/Part of this run is damaged: its stored standings could not be read/);
  });

  test('"Export what can be read" saves the record as stored and every negotiation that parses, naming the rest', async () => {
    // The worker exports, and it reads the app's own database: the record goes there, under an id of its own.
    const db = database();
    const id = `damaged-${crypto.randomUUID()}`;
    onTestFinished(() => deleteRun(db, id));
    await storedTournament(db, { id, rows: 3 });
    const batch = (await runBatches(db, id).toArray())[0]!;
    await db.batches.update(batch.id, { negotiations: [batch.negotiations[0]!, '{"not": "a negotiation"}', batch.negotiations[2]!] });
    // Damaged but still a tournament (an unknown status), so no class export elsewhere takes it for a game.
    await db.runs.update(id, { status: 'lost in time' as never });

    const store = new RunsStore();
    const target = render(RunsPage, { store, tournament: new TournamentSession() });
    await store.init();
    await expect.poll(() => row(target, id) !== null).toBe(true);
    const saved = downloads();
    await userEvent.click(button(must(row(target, id)), 'Export what can be read'));
    await expect.poll(() => saved.length).toBe(1);
    expect(saved[0]!.name).toMatch(new RegExp(`^parley-salvage-four-scripted-agents-${id.slice(0, 8)}\\.json$`));
    const file = (await (await fetch(saved[0]!.href)).json()) as Record<string, unknown>;
    expect(file).toMatchObject({
      format: 'parley-salvage',
      version: 2,
      game: 'bilateral',
      problem: expect.stringMatching(/^status: /),
      record: { id, status: 'lost in time', config: { kind: 'tournament', tournament: TOURNAMENT } },
      unreadable: [{ batch: batch.id, at: 1, problem: expect.any(String) }],
    });
    expect((file.negotiations as { jobId: string }[]).map((n) => n.jobId)).toEqual([0, 2].map((i) => JSON.parse(batch.negotiations[i]!).jobId));
    // The same file, from storage directly: nothing of it depends on the page.
    expect(JSON.parse((await salvageRun(db, id))!.text)).toEqual(file);
  });

  test('readRuns sets the damaged apart and reads the rest, newest first', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'old', createdAt: 1_000 });
    await storedTournament(db, { id: 'new', createdAt: 3_000 });
    await db.runs.put({ ...noConfig('no-time'), createdAt: null } as never);
    await db.runs.put({ id: 'bare' } as never);
    await db.runs.put(noConfig('timed') as never);
    const { runs, damaged } = await readRuns(db);
    expect(runs.map((r) => r.id)).toEqual(['new', 'old']);
    expect(damaged.map((d) => [d.id, d.name])).toEqual([
      ['timed', 'a run with no config'],
      ['bare', null],
      ['no-time', 'a run with no config'],
    ]);
  });
});

describe('the class export with a damaged game', () => {
  test('exports every game it can read and names the one it cannot', async () => {
    const db = database();
    const ids = { good: `class-good-${crypto.randomUUID()}`, bad: `class-bad-${crypto.randomUUID()}` };
    onTestFinished(async () => {
      await deleteRun(db, ids.good);
      await deleteRun(db, ids.bad);
    });
    await arenaGame(db, ids.good, 'Ada: human buys it from conceder');
    await arenaGame(db, ids.bad, 'Bo: human buys it from conceder', true);

    const target = render(ClassExport, {});
    const saved = downloads();
    await userEvent.click(button(target, 'Export the class (JSON)'));
    await expect.poll(() => saved.length).toBe(1);
    const file = (await (await fetch(saved[0]!.href)).json()) as ClassFile;
    expect(file.games.map((g) => g.runId)).toContain(ids.good);
    expect(file.games.map((g) => g.runId)).not.toContain(ids.bad);
    expect(file.skipped).toContainEqual({
      runId: ids.bad,
      runName: 'Bo: human buys it from conceder',
      problem: expect.stringMatching(/^its negotiation cannot be read \(events\.\d+/),
    });
    const alert = must(target.querySelector('[role="alert"]'));
    expect(text(alert)).toMatch(/left out because .* could not be read/);
    expect(text(alert)).toContain('“Bo: human buys it from conceder”: its negotiation cannot be read');
    expect(text(target)).not.toContain('Could not read the games');
  });
});

describe('a stored market run whose markets cannot be read', () => {
  test('its page says so instead of loading for good', async () => {
    const db = freshDb();
    const config = {
      sellers: ['catalog'],
      buyer: 'margin',
      configs: ALL_MARKET_CONFIGS.filter((c) => c.name === 'small').map((c) => ({ ...c })),
      marketsPerConfig: 1,
      seed: 6,
      samples: 0,
    };
    await createRun(db, { game: 'market', id: 'markets-broken', name: 'broken markets', config, planned: 1, createdAt: 1 });
    await db.batches.put({ id: 'markets-broken:0', runId: 'markets-broken', first: 0, count: 1, negotiations: ['{ not json'] });
    await db.digests.put({ id: 'markets-broken:0', runId: 'markets-broken', first: 0, game: 'market', jobIds: [''], indexes: [0] });
    const target = render(RunPage, { runId: 'markets-broken', store: new RunsStore(() => db), tournament: new TournamentSession() });
    await expect.poll(() => text(target.querySelector('[role="alert"]'))).toMatch(/^The markets stored for this run could not be read/);
    expect(text(target)).not.toContain('Loading…');
  });
});

describe('a stored negotiation that cannot be read', () => {
  test('its inspector page says so; the run page leaves it out and counts it', async () => {
    const db = database();
    const id = `damaged-game-${crypto.randomUUID()}`;
    onTestFinished(() => deleteRun(db, id));
    await arenaGame(db, id, 'a game with a broken move', true);
    const page = render(NegotiationPage, { runId: id, jobId: '0' });
    await expect.poll(() => text(page)).toContain('This negotiation cannot be read');
    expect(text(page.querySelector('[role="alert"]'))).toMatch(/damaged \(events\.\d+/);

    const store = new RunsStore();
    const run = render(RunPage, { runId: id, store, tournament: new TournamentSession() });
    await expect.poll(() => text(run)).toContain('1 negotiation on this page could not be read and is not shown.');
    expect(run.querySelectorAll('table.list tbody tr')).toHaveLength(0);
  });
});
