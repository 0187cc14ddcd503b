/**
 * A class in the teacher's browser: two students' Arena games, exported from their own browsers as
 * run files, import together, and the class export lists both games and ranks the students.
 */
import { afterAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import RunsPage from '../../src/ui/pages/RunsPage.svelte';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { generateScenarios, type Scenario } from '../../src/games/bilateral/scenario';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';
import type { ParleyDb } from '../../src/storage/db';
import { addBatches } from '../../src/storage/batches';
import { bilateralStore } from '../../src/storage/games/bilateral';
import { createRun, deleteRun, updateRun } from '../../src/storage/runs';
import { negotiationRow } from '../../src/storage/schema';
import { exportRunJson } from '../../src/storage/transfer';
import { playerRunName, type ClassExport } from '../../src/ui/class-export';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { database } from '../../src/ui/state/sim';
import { PLAYER_KEY, player } from '../../src/ui/state/player.svelte';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import { control } from './helpers.svelte';
import { freshDb } from '../storage/helpers';
import { agent, cleanup, must, render, text } from './helpers.svelte';

const imported: string[] = [];
afterAll(async () => {
  cleanup();
  for (const id of imported) await deleteRun(database(), id);
});

/** A student's Arena game stored as the worker stores one: the human seat played here by a scripted stand-in. */
async function studentGame(db: ParleyDb, id: string, player: string, scenario: Scenario): Promise<string> {
  const played = await playNegotiation(scenario, { buyer: agent('boulware', 'buyer'), seller: agent('conceder', 'seller') });
  const run = await createRun(db, {
    id,
    name: playerRunName(player, `human buys ${scenario.item.name} from conceder`),
    config: { kind: 'arena', buyer: 'human', seller: 'conceder', scenario, llm: { ...DEFAULT_LLM_SETTINGS } },
    planned: 1,
    createdAt: Date.now(),
  });
  await addBatches(db, bilateralStore, run.id, [
    negotiationRow(run.id, { id: '0', index: 0, scenarioIndex: 0, buyer: 'human', seller: 'conceder', scenario, ...played }),
  ]);
  const aggregator = new Aggregator();
  aggregator.add('human', 'conceder', scenario, played.metrics);
  await updateRun(db, run.id, { status: 'done', done: 1, standings: aggregator.standings({ samples: 0 }) });
  return exportRunJson(db, run.id);
}

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

describe("a student's name", () => {
  test('is asked for in the Arena when you take a seat, kept in this browser, and names the stored game once', async () => {
    const target = render(ArenaPage, { session: new ArenaSession() });
    expect(target.querySelector('.player')).toBeNull();
    await userEvent.click(control(target, 'The buyer'));
    await userEvent.fill(control<HTMLInputElement>(target, 'Your name (for your teacher)'), 'Ada Lovelace');
    expect(localStorage.getItem(PLAYER_KEY)).toBe('Ada Lovelace');
    onTestFinished(() => {
      player.set('');
      localStorage.removeItem(PLAYER_KEY);
    });

    const id = `named-${crypto.randomUUID()}`;
    imported.push(id);
    const scenario = generateScenarios({ preset: 'standard', seed: 2, count: 1 })[0]!;
    await createRun(database(), {
      id,
      name: 'human buys a thing from conceder',
      config: { kind: 'arena', buyer: 'human', seller: 'conceder', scenario },
      planned: 1,
      createdAt: 1,
    });
    await player.nameGame(id);
    await player.nameGame(id);
    expect((await database().runs.get(id))?.name).toBe('Ada Lovelace: human buys a thing from conceder');
  });
});

describe('class export', () => {
  test("students' games import together into the teacher's browser, and the class exports as JSON and CSV with a ranking", async () => {
    const scenarios = generateScenarios({ preset: 'wide', seed: 21, count: 2, deadline: { kind: 'fixed', turns: 12 } });
    const ids = [`class-ada-${crypto.randomUUID()}`, `class-bo-${crypto.randomUUID()}`];
    imported.push(...ids);
    const files = [
      new File([await studentGame(freshDb(), ids[0]!, 'Ada', scenarios[0]!)], 'ada.json', { type: 'application/json' }),
      new File([await studentGame(freshDb(), ids[1]!, 'Bo', scenarios[1]!)], 'bo.json', { type: 'application/json' }),
    ];

    const store = new RunsStore();
    const target = render(RunsPage, { store, tournament: new TournamentSession() });
    await store.init();
    await userEvent.upload(must(target.querySelector<HTMLInputElement>('input[type="file"]')), files);
    await expect.poll(() => ids.every((id) => target.querySelector(`tr[data-run-id="${id}"]`) !== null)).toBe(true);
    // The rows can show (the list refreshes) before the import's own report is drawn: wait for both.
    await expect
      .poll(() => [...target.querySelectorAll('[aria-label="Imported files"] li')].map((li) => text(li)))
      .toEqual(['Imported ada.json.', 'Imported bo.json.']);

    await userEvent.click(button(target, 'Show the ranking'));
    await expect.poll(() => target.querySelector('table.ranking') !== null).toBe(true);
    const names = [...target.querySelectorAll('table.ranking tbody tr')].map((tr) => text(tr.children[1]));
    expect(names).toEqual(expect.arrayContaining(['Ada', 'Bo', 'conceder']));

    const saved = downloads();
    await userEvent.click(button(target, 'Export the class (JSON)'));
    await expect.poll(() => saved.length).toBe(1);
    const data = (await (await fetch(saved[0]!.href)).json()) as ClassExport;
    expect(saved[0]?.name).toMatch(/^parley-class-\d{4}-\d{2}-\d{2}\.json$/);
    const ours = data.games.filter((g) => ids.includes(g.runId));
    expect(ours.map((g) => [g.buyer, g.seller, g.item])).toEqual(
      expect.arrayContaining([
        ['Ada', 'conceder', scenarios[0]!.item.name],
        ['Bo', 'conceder', scenarios[1]!.item.name],
      ]),
    );
    for (const g of ours) expect(g.moves.length).toBeGreaterThan(0);
    expect(data.ranking.filter((r) => r.kind === 'student').map((r) => r.name)).toEqual(expect.arrayContaining(['Ada', 'Bo']));

    await userEvent.click(button(target, 'Games (CSV)'));
    await expect.poll(() => saved.length).toBe(2);
    const csv = await (await fetch(saved[1]!.href)).text();
    expect(csv.split('\n')[0]).toMatch(/^played_at,buyer,seller,/);
    expect(csv).toContain(',Ada,conceder,1,0,');
  });
});
