import { afterEach, beforeEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import RunPage from '../../src/ui/pages/RunPage.svelte';
import RunsPage from '../../src/ui/pages/RunsPage.svelte';
import ComparePage from '../../src/ui/pages/ComparePage.svelte';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import type { ParleyDb } from '../../src/storage/db';
import type { NegotiationRow, RunRow } from '../../src/storage/schema';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { href, parseRoute, type RunQuery } from '../../src/ui/state/router.svelte';
import { createRun, deleteRun } from '../../src/storage/runs';
import { freshDb, storedTournament, storeRows, TOURNAMENT, TOURNAMENT_CONFIG, tournamentRows } from '../storage/helpers';
import { cleanup, control, must, reactive, render, text } from './helpers.svelte';

afterEach(cleanup);
beforeEach(() => {
  const before = location.hash;
  onTestFinished(() => history.replaceState(null, '', before || '#'));
});

const standingsOf = (rows: NegotiationRow[], samples = 200): RunRow['standings'] => {
  const aggregator = new Aggregator();
  for (const row of rows) aggregator.add(row.buyer, row.seller, row.scenario, computeMetrics(row.scenario, row.events));
  return aggregator.standings({ samples, seed: 1 });
};

/** The same negotiation, ended by an error from the buyer instead. */
function failed(row: NegotiationRow, message = 'the model stopped answering'): NegotiationRow {
  const turn = row.events.at(-1)!.turn;
  return { ...row, outcome: 'error', events: [...row.events.slice(0, -1), { type: 'end', turn, outcome: { kind: 'error', actor: 'buyer', message, turn } }] };
}

/** Stores a done tournament run with `rows` (renumbered in plan order), its digests and standings. */
async function storeRun(db: ParleyDb, id: string, name: string, rows: NegotiationRow[], createdAt = 1_000): Promise<RunRow> {
  const own = rows.map((r, index) => ({ ...r, id: `${id}:${r.jobId}`, runId: id, index }));
  const run: RunRow = {
    id,
    game: 'bilateral',
    name,
    createdAt,
    updatedAt: createdAt,
    status: 'done',
    config: { kind: 'tournament', tournament: TOURNAMENT },
    planned: own.length,
    done: own.length,
    message: null,
    standings: standingsOf(own),
  };
  await db.runs.put(run);
  await storeRows(db, id, own);
  return run;
}

/** 72 negotiations: the 36 of TOURNAMENT twice over, so a run has two pages. */
async function twoPages(runId: string): Promise<NegotiationRow[]> {
  const rows = await tournamentRows(runId);
  return [...rows, ...rows.map((r) => ({ ...r, jobId: `${r.jobId}-again` }))];
}

/** Mounts the run page with its query following the hash, as the app's router does. */
function mountRunPage(store: RunsStore, runId: string) {
  const queryOf = (): RunQuery => {
    const route = parseRoute(location.hash);
    return route.page === 'run' ? route.query : {};
  };
  const props = reactive({ runId, query: queryOf(), store, tournament: new TournamentSession() });
  const follow = () => (props.query = queryOf());
  window.addEventListener('hashchange', follow);
  onTestFinished(() => window.removeEventListener('hashchange', follow));
  return { target: render(RunPage, props), props };
}

const shownNumbers = (target: HTMLElement) => [...target.querySelectorAll('table.list tbody tr td:first-child')].map((td) => Number(text(td)));
const matching = (target: HTMLElement) => text([...target.querySelectorAll('[role="status"]')].find((el) => text(el).includes('matching')));
/** A filter of the run page's negotiations (the results above have role filters of their own). */
const filterControl = (target: HTMLElement, name: string) => control<HTMLSelectElement>(must(target.querySelector('form.filters')), name);
const hashChange = () => new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));

describe('Run page filters in the URL', () => {
  test('choosing filters writes them into the hash, a new filter starts at page 1, and Back restores the view', async () => {
    const db = freshDb();
    const rows = await twoPages('r');
    await storeRun(db, 'r', 'two pages', rows);
    const store = new RunsStore(() => db);
    location.hash = href.run('r');
    const { target } = mountRunPage(store, 'r');
    await vi.waitFor(() => expect(matching(target)).toBe('72 matching negotiations'));
    expect(shownNumbers(target)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));

    let changed = hashChange();
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Next')));
    await changed;
    expect(location.hash).toBe('#/runs/r?page=2');
    await vi.waitFor(() => expect(shownNumbers(target)[0]).toBe(51));
    expect(shownNumbers(target)).toHaveLength(22);

    changed = hashChange();
    await userEvent.selectOptions(filterControl(target, 'Outcome'), 'deal');
    await changed;
    expect(location.hash).toBe('#/runs/r?outcome=deal');
    const deals = rows.filter((r) => r.outcome === 'deal').length;
    await vi.waitFor(() => expect(matching(target)).toBe(`${deals} matching negotiations`));

    changed = hashChange();
    await userEvent.selectOptions(filterControl(target, 'Buyer'), 'conceder');
    await changed;
    expect(location.hash).toBe('#/runs/r?buyer=conceder&outcome=deal');
    const expected = rows.flatMap((r, i) => (r.outcome === 'deal' && r.buyer === 'conceder' ? [i + 1] : []));
    await vi.waitFor(() => expect(shownNumbers(target)).toEqual(expected));
    expect(text(target.querySelector('table.list tbody tr td:last-child'))).toMatch(/^deal at \$\d+\.\d\d$/);

    changed = hashChange();
    history.back();
    await changed;
    await vi.waitFor(() => expect(matching(target)).toBe(`${deals} matching negotiations`));
    expect(filterControl(target, 'Buyer').value).toBe('');
    expect(filterControl(target, 'Outcome').value).toBe('deal');
  });

  test('a linked hash opens with its filters applied and the right rows shown; unknown values are ignored', async () => {
    const db = freshDb();
    const rows = await twoPages('linked');
    await storeRun(db, 'linked', 'linked', rows);
    const tier = rows[0]!.tier;
    location.hash = `#/runs/linked?seller=hardliner&tier=${tier}&outcome=bribe&buyer=nobody&colour=red`;
    const { target } = mountRunPage(new RunsStore(() => db), 'linked');
    const route = parseRoute(location.hash);
    expect(route).toMatchObject({ page: 'run', query: { seller: 'hardliner', tier, buyer: 'nobody' } });
    const expected = rows.flatMap((r, i) => (r.seller === 'hardliner' && r.tier === tier ? [i + 1] : []));
    expect(expected.length).toBeGreaterThan(0);
    await vi.waitFor(() => expect(shownNumbers(target)).toEqual(expected));
    expect(filterControl(target, 'Seller').value).toBe('hardliner');
    expect(filterControl(target, 'Tier').value).toBe(String(tier));
    // "nobody" is not an agent of this run, so the buyer filter is off.
    expect(filterControl(target, 'Buyer').value).toBe('');
    expect(filterControl(target, 'Outcome').value).toBe('');

    // A page past the end says so and links to the last page.
    location.hash = '#/runs/linked?page=9';
    await hashChange();
    await vi.waitFor(() => expect(text(target)).toContain('Page 9 is past the end.'));
    expect(must(target.querySelector('a[href="#/runs/linked?page=2"]')).textContent).toContain('last page (2)');
  });
});

describe('Errors in run status', () => {
  test('"done, N errors" on the Runs list and the run page; the deadline and first mover are shown', async () => {
    const db = freshDb();
    const rows = await tournamentRows('e');
    const withErrors = rows.map((r, i) => (i % 12 === 5 ? failed(r) : r));
    await storeRun(db, 'e', 'with errors', withErrors, 2_000);
    await storeRun(db, 'clean', 'clean', rows, 1_000);
    const store = new RunsStore(() => db);

    const list = render(RunsPage, { store, tournament: new TournamentSession() });
    const status = (id: string) => text(must(list.querySelector(`tr[data-run-id="${id}"] .badge`)));
    await vi.waitFor(() => expect(status('e')).toBe('done, 3 errors'));
    expect(status('clean')).toBe('done');
    expect(text(list.querySelector('tr[data-run-id="e"]'))).toContain('20 turns (fixed), the seller opens');

    const page = render(RunPage, { runId: 'e', store, tournament: new TournamentSession() });
    await vi.waitFor(() => expect(text(page.querySelector('.meta .badge'))).toBe('done, 3 errors'));
    expect(text(page.querySelector('.meta'))).toContain('deadline 20 turns (fixed), the seller opens');
    await vi.waitFor(() => expect(matching(page)).toBe('36 matching negotiations'));
  });
});

describe('Compare two runs', () => {
  test('tick two runs from the keyboard to open #/compare/<earlier>/<later>', async () => {
    const db = freshDb();
    const rows = await tournamentRows('x');
    await storeRun(db, 'older', 'older run', rows, 1_000);
    await storeRun(db, 'newer', 'newer run', rows.slice(0, 24), 2_000);
    await storeRun(db, 'third', 'third run', rows.slice(0, 12), 3_000);
    const store = new RunsStore(() => db);
    const target = render(RunsPage, { store, tournament: new TournamentSession() });
    const box = (name: string) => must(target.querySelector<HTMLInputElement>(`input[aria-label="Compare ${name}"]`));
    await vi.waitFor(() => box('third run'));
    box('newer run').focus();
    await userEvent.keyboard(' ');
    expect(text(target.querySelector('[role="group"]'))).toContain('(one more)');
    box('older run').focus();
    await userEvent.keyboard(' ');
    expect(box('third run').disabled).toBe(true);
    const link = must(target.querySelector<HTMLAnchorElement>('[role="group"] a'));
    expect(link.getAttribute('href')).toBe(href.compare('older', 'newer'));
    expect(text(link)).toBe('Compare “older run” (A) with “newer run” (B)');
    await userEvent.click(box('newer run'));
    expect(target.querySelector('[role="group"] a')).toBeNull();
    expect(box('third run').disabled).toBe(false);
  });

  test('rates of both runs side by side per agent and role, with B − A and an overlap marker; old runs show –', async () => {
    const db = freshDb();
    const rows = await tournamentRows('c');
    const a = await storeRun(db, 'a', 'all of it', rows);
    const b = await storeRun(db, 'b', 'a third of it', rows.slice(0, 12));
    const store = new RunsStore(() => db);
    const target = render(ComparePage, { a: 'a', b: 'b', store });
    await vi.waitFor(() => expect(target.querySelectorAll('tbody[data-seat]').length).toBeGreaterThan(0));
    expect(text(target.querySelector('h1'))).toBe('Compare runs');
    expect(must(target.querySelector('a[href="#/runs"]')).textContent).toContain('Runs');

    const seats = [...target.querySelectorAll('tbody[data-seat]')].map((t) => t.getAttribute('data-seat'));
    const agents = [...new Set(a.standings!.leaderboard.map((r) => r.agent))];
    expect(agents.toSorted()).toEqual(TOURNAMENT.agents.toSorted());
    expect(seats).toEqual(agents.flatMap((agent) => [`${agent}|buyer`, `${agent}|seller`]));
    const rowA = a.standings!.leaderboard.find((r) => r.agent === 'boulware' && r.role === 'seller')!;
    const rowB = b.standings!.leaderboard.find((r) => r.agent === 'boulware' && r.role === 'seller')!;
    const cell = (seat: string, rate: string, which: string) =>
      text(must(target.querySelector(`tbody[data-seat="${seat}"] tr[data-rate="${rate}"] [data-${which}]`)));
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    expect(cell('boulware|seller', 'dealRate', 'run="a"')).toContain(pct(rowA.dealRate!));
    expect(cell('boulware|seller', 'dealRate', 'run="b"')).toContain(pct(rowB.dealRate!));
    const diff = (rowB.dealRate! - rowA.dealRate!) * 100;
    expect(cell('boulware|seller', 'dealRate', 'diff')).toBe(Math.abs(diff) < 0.05 ? '0.0 pp' : `${diff > 0 ? '+' : '−'}${Math.abs(diff).toFixed(1)} pp`);
    const [lowA, highA] = rowA.ci.dealRate!;
    const [lowB, highB] = rowB.ci.dealRate!;
    expect(cell('boulware|seller', 'dealRate', 'overlap')).toBe(lowA <= highB && lowB <= highA ? 'overlap' : 'differ');
    const markers = [...target.querySelectorAll('[data-overlap]')].map((c) => text(c));
    expect(new Set(markers)).toContain('overlap');
    expect(markers.every((m) => m === 'overlap' || m === 'differ' || m === '–')).toBe(true);

    // One rate only, for a quicker read.
    await userEvent.selectOptions(control(target, 'Rate'), 'errorRate');
    expect([...target.querySelectorAll('tbody[data-seat="boulware|seller"] tr[data-rate]')].map((r) => r.getAttribute('data-rate'))).toEqual(['errorRate']);
  });

  test('a run stored before the newer rates existed shows – for them', async () => {
    const db = freshDb();
    const rows = await tournamentRows('o');
    const now = await storeRun(db, 'now', 'today', rows);
    const oldRun = await storeRun(db, 'old', 'last year', rows);
    // As such a run was stored: no errors, behaviour measures or walk-away share, and the retired walkAwayRateNoGft.
    const leaderboard = oldRun.standings!.leaderboard.map((r) => ({
      agent: r.agent,
      role: r.role,
      n: r.n,
      dealRate: r.dealRate,
      walkAwayRateNoGft: r.noDealRateNoGft,
      surplusShare: r.surplusShare,
      ci: { dealRate: r.ci.dealRate, surplusShare: r.ci.surplusShare },
    }));
    await db.runs.update('old', { standings: { ...oldRun.standings!, leaderboard } as unknown as RunRow['standings'] });
    const target = render(ComparePage, { a: 'old', b: 'now', store: new RunsStore(() => db) });
    await vi.waitFor(() => expect(target.querySelectorAll('tbody[data-seat]').length).toBe(8));
    const row = (rate: string) => [...must(target.querySelector(`tbody[data-seat="hardliner|buyer"] tr[data-rate="${rate}"]`)).children].map((c) => text(c));
    const nowRow = now.standings!.leaderboard.find((r) => r.agent === 'hardliner' && r.role === 'buyer')!;
    expect(row('opening').slice(1, 2)).toEqual(['–']);
    expect(row('opening')[2]).toContain(`${(nowRow.opening! * 100).toFixed(1)}%`);
    expect(row('opening').slice(3)).toEqual(['–', '–']);
    expect(row('noDealRateNoGft').slice(3)).toEqual(['–', '–']);
    // The rates both have compare as usual: the same negotiations, so no difference.
    expect(row('dealRate').slice(3)).toEqual(['0.0 pp', 'overlap']);
  });

  test('a run that is not stored is named, and nothing is compared', async () => {
    const db = freshDb();
    await storeRun(db, 'here', 'here', (await tournamentRows('h')).slice(0, 6));
    const target = render(ComparePage, { a: 'here', b: 'gone', store: new RunsStore(() => db) });
    await vi.waitFor(() => expect(text(target)).toContain('No run “gone” is stored in this browser'));
    expect(target.querySelector('table')).toBeNull();
  });
});

test('the run page follows its query prop without a reload', async () => {
  const db = freshDb();
  await storedTournament(db, { id: 'plain' });
  const { target, props } = mountRunPage(new RunsStore(() => db), 'plain');
  await vi.waitFor(() => expect(matching(target)).toBe('36 matching negotiations'));
  props.query = { outcome: 'turn_limit' };
  flushSync();
  await vi.waitFor(() => expect(matching(target)).not.toBe('36 matching negotiations'));
  expect(filterControl(target, 'Outcome').value).toBe('turn_limit');
});

/** Counts the reads of one table of `db` (Dexie's own middleware, installed before the database opens). */
function countReads(db: ParleyDb, table: string): () => number {
  let reads = 0;
  db.use({
    stack: 'dbcore',
    name: `count-${table}-reads`,
    create: (down) => ({
      ...down,
      table: (name) => {
        const core = down.table(name);
        if (name !== table) return core;
        const counted =
          <Args extends unknown[], R>(read: (...args: Args) => R) =>
          (...args: Args): R => {
            reads++;
            return read(...args);
          };
        return {
          ...core,
          get: counted(core.get.bind(core)),
          getMany: counted(core.getMany.bind(core)),
          query: counted(core.query.bind(core)),
          openCursor: counted(core.openCursor.bind(core)),
          count: counted(core.count.bind(core)),
        };
      },
    }),
  });
  return () => reads;
}

describe('stored reads follow the database', () => {
  test('the Runs list shows a run written elsewhere (another tab, the worker), its progress, its end and its deletion, never reading an event log', async () => {
    const db = freshDb();
    const batchReads = countReads(db, 'batches');
    const rows = await tournamentRows('live');
    const target = render(RunsPage, { store: new RunsStore(() => db), tournament: new TournamentSession() });
    await vi.waitFor(() => expect(text(target)).toContain('No runs yet.'));
    const cell = (column: number) => text(target.querySelector(`tr[data-run-id="live"] td:nth-child(${column})`));

    // A run starts, as another tab's worker writes it: the same record the writer keeps.
    const run = await createRun(db, { id: 'live', name: 'written elsewhere', config: TOURNAMENT_CONFIG, planned: rows.length, createdAt: 5_000 });
    await vi.waitFor(() => expect(cell(6)).toBe(`0 / ${rows.length}`));
    // It is running and no worker here holds it, so it reads as interrupted, ready to resume.
    expect(text(target.querySelector('tr[data-run-id="live"] .badge'))).toBe('interrupted');

    // Its negotiations are stored batch by batch, an error among them, with its progress.
    const firstBatch = rows.slice(0, 12).map((r, i) => (i === 3 ? failed(r) : r));
    await db.transaction('rw', db.runs, db.batches, db.digests, async () => {
      await storeRows(db, 'live', firstBatch);
      await db.runs.update('live', { done: firstBatch.length });
    });
    await vi.waitFor(() => expect(cell(6)).toBe(`12 / ${rows.length}`));
    expect(text(target.querySelector('tr[data-run-id="live"] .badge'))).toBe('interrupted, 1 error');

    // It ends, renamed in passing.
    await db.runs.put({ ...run, name: 'renamed', status: 'done', done: 12, standings: standingsOf(firstBatch) });
    await vi.waitFor(() => expect(text(target.querySelector('tr[data-run-id="live"] .badge'))).toBe('done, 1 error'));
    expect(text(target.querySelector('tr[data-run-id="live"] a'))).toBe('renamed');

    // The list read run records and digests only: the batches, which hold the event logs, were only written.
    expect(batchReads()).toBe(0);

    await deleteRun(db, 'live');
    await vi.waitFor(() => expect(text(target)).toContain('No runs yet.'));
  });

  test("a run's page shows negotiations as they are stored, and its progress, without a reload", async () => {
    const db = freshDb();
    const rows = await tournamentRows('grow');
    await createRun(db, { id: 'grow', name: 'growing', config: TOURNAMENT_CONFIG, planned: rows.length, createdAt: 1_000 });
    const { target } = mountRunPage(new RunsStore(() => db), 'grow');
    await vi.waitFor(() => expect(matching(target)).toBe('0 matching negotiations'));
    expect(text(target.querySelector('.meta'))).toContain(`0 of ${rows.length} negotiations`);

    await db.transaction('rw', db.runs, db.batches, db.digests, async () => {
      await storeRows(db, 'grow', rows.slice(0, 20));
      await db.runs.update('grow', { done: 20 });
    });
    await vi.waitFor(() => expect(matching(target)).toBe('20 matching negotiations'));
    expect(shownNumbers(target)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // The run's record is a live read of its own, which may answer a moment after the negotiations'.
    await vi.waitFor(() => expect(text(target.querySelector('.meta'))).toContain(`20 of ${rows.length} negotiations`));
  });
});
