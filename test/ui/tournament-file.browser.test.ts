/**
 * The Tournament page's scenarios from a file, through the real worker and IndexedDB: the file is
 * read and summed up on the page, the run plays exactly its scenarios, and a bad file is named by
 * its line without losing the form.
 */
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import FIXTURE from '../fixtures/negmas-reference-3.jsonl?raw';
import TournamentPage from '../../src/ui/pages/TournamentPage.svelte';
import { parseScenarioFile } from '../../src/games/bilateral/scenario-file';
import { planTournament, type NegotiationResult } from '../../src/games/bilateral/tournament';
import { makeAgent } from '../../src/games/bilateral/registry';
import { createRun, deleteRun, getRun, loadNegotiations, openDb, updateRun } from '../../src/storage';
import { RunWriter } from '../../src/storage/writer';
import { fullTournamentConfig, negotiationRow } from '../../src/storage/schema';
import { newId, sim } from '../../src/ui/state/sim';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { database } from '../../src/ui/state/sim';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { describeConfig } from '../../src/ui/describe';
import { cleanup, control, must, reactive, render, text } from './helpers.svelte';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

afterEach(cleanup);
const played: string[] = [];
afterAll(async () => {
  for (const id of played) await deleteRun(database(), id);
});

const WAIT = { timeout: 30_000 };
const SCENARIOS = (() => {
  const read = parseScenarioFile(FIXTURE);
  if (!read.ok) throw new Error(read.error.message);
  return read.value.scenarios;
})();

const GENERATED = 'Generated (preset, seed, deadline, first mover)';
const FROM_FILE = 'From a file (JSONL)';
const fileInput = (target: HTMLElement) => control<HTMLInputElement>(target, 'Scenario file');
const runButton = (target: HTMLElement) => must(target.querySelector<HTMLButtonElement>('button.primary'));
const alerts = (target: HTMLElement) => [...target.querySelectorAll('[role="alert"]')].map((a) => text(a));

/** The page with only these agents, the scenarios taken from a file. */
async function pageWithAgents(agents: readonly string[], session = new TournamentSession()) {
  const target = render(TournamentPage, { session, runs: new RunsStore(() => openDb()) });
  for (const button of [...target.querySelectorAll<HTMLButtonElement>('.agents button')])
    if (!agents.includes(button.getAttribute('aria-label')?.replace(/^Remove /, '') ?? '')) await userEvent.click(button);
  expect([...target.querySelectorAll('.agents code')].map((c) => text(c))).toEqual(agents);
  await userEvent.click(control(target, FROM_FILE));
  return { target, session };
}

describe('Tournament scenarios from a file', () => {
  test('the file is summed up, the run plays exactly its scenarios, and they are what is stored', async () => {
    const { target, session } = await pageWithAgents(['boulware', 'linear']);
    // The drawn-scenario fields give way to the file; nothing runs before a file is chosen.
    expect(() => control(target, 'Scenarios per ordered pair')).toThrow();
    expect(() => control(target, 'Fewest turns')).toThrow();
    expect(runButton(target).disabled).toBe(true);
    await userEvent.upload(fileInput(target), new File([FIXTURE], 'negmas-reference-3.jsonl'));
    await vi.waitFor(() =>
      expect(text(target.querySelector('.file-summary'))).toBe(
        'negmas-reference-3.jsonl: 3 scenarios (24 repeated lines read as the first): 101-0, 101-1, 101-2',
      ),
    );
    expect(alerts(target)).toEqual([]);
    expect(text(runButton(target))).toBe('Run 6 negotiations');

    // A link cannot carry the file, and says so instead of handing out generated scenarios.
    const share = must(target.parentElement?.querySelector('.share'));
    expect(text(share)).toMatch(/A link cannot hold this setup: its scenarios come from a file, which a link cannot carry/);
    await userEvent.click(must([...share.querySelectorAll('button')].find((b) => text(b) === 'Copy link')));
    expect(text(share.querySelector('[role="status"]'))).toMatch(/^No link copied: its scenarios come from a file/);
    expect(share.querySelector('input')).toBeNull();

    await userEvent.click(runButton(target));
    await vi.waitFor(() => expect(session.status).toBe('done'), WAIT);
    const runId = session.runId;
    if (runId === null) throw new Error('no run started');
    played.push(runId);
    const run = await getRun(database(), runId);
    if (!run) throw new Error('the run was not stored');
    expect(run.name).toBe('2 agents × 3 scenarios from negmas-reference-3.jsonl');
    expect(run.config).toMatchObject({ kind: 'tournament', tournament: { scenariosPerPair: 3, scenarios: SCENARIOS } });
    // The Runs page does not describe it as preset scenarios.
    expect(describeConfig(run)).toEqual(["2 agents, 3 scenarios from a file per pair, seed 1, each scenario's own turn limit and first mover"]);
    const { rows, total } = await loadNegotiations(database(), runId);
    expect(total).toBe(6);
    const plan = planTournament({ agents: ['boulware', 'linear'], scenariosPerPair: 3, preset: 'standard', seed: 1, selfPlay: false, scenarios: SCENARIOS });
    expect(rows.map((r) => [r.jobId, r.scenario])).toEqual(plan.map((j) => [j.id, j.scenario]));
    expect(rows.map((r) => r.scenario.id)).toEqual(['101-0', '101-0', '101-1', '101-1', '101-2', '101-2']);
  });

  test('a bad file shows its line number, runs nothing, and keeps what was typed; a good one then clears it', async () => {
    const { target } = await pageWithAgents(['boulware', 'conceder']);
    await userEvent.fill(control(target, 'Name (optional)'), 'my class run');
    await userEvent.fill(control(target, 'Seed'), '42');
    const lines = FIXTURE.split('\n');
    const bad = [lines[0], lines[1], '', '{"id": "x", "listPrice": 10, "buyerValue": 5, "sellerCost": 2, "turns": 8, "first": "both"}'].join('\n');
    await userEvent.upload(fileInput(target), new File([bad], 'bad.jsonl'));
    await vi.waitFor(() => expect(alerts(target)).toEqual(['bad.jsonl: line 4: first: expected "seller" or "buyer", got "both"']));
    expect(fileInput(target).getAttribute('aria-invalid')).toBe('true');
    expect(runButton(target).disabled).toBe(true);
    expect(control<HTMLInputElement>(target, 'Name (optional)').value).toBe('my class run');
    expect(control<HTMLInputElement>(target, 'Seed').value).toBe('42');
    expect([...target.querySelectorAll('.agents code')].map((c) => text(c))).toEqual(['boulware', 'conceder']);

    // Generated scenarios are still there as typed, and play without the file.
    await userEvent.click(control(target, GENERATED));
    expect(control<HTMLInputElement>(target, 'Scenarios per ordered pair').value).toBe('20');
    expect(runButton(target).disabled).toBe(false);
    await userEvent.click(control(target, FROM_FILE));
    await userEvent.upload(fileInput(target), new File([FIXTURE], 'good.jsonl'));
    await vi.waitFor(() => expect(text(target.querySelector('.file-summary'))).toMatch(/^good\.jsonl: 3 scenarios/));
    expect(alerts(target)).toEqual([]);
    expect(runButton(target).disabled).toBe(false);
  });

  test('a run from a file stopped part-way resumes with the same scenarios, exports and imports back whole', async () => {
    const config = fullTournamentConfig({
      agents: ['boulware', 'conceder', 'random'],
      scenariosPerPair: 3,
      preset: 'standard',
      seed: 9,
      selfPlay: false,
      scenarios: SCENARIOS,
    });
    const whole: NegotiationResult[] = [];
    await runTournament(bilateralGame, config, makeAgent, { onResult: (r) => void whole.push(r) });
    // The worker's database, as a tab closed after five negotiations left it.
    const db = database();
    const runId = newId();
    played.push(runId);
    await createRun(db, {
      id: runId,
      name: 'stopped after five',
      config: { kind: 'tournament', tournament: config },
      planned: whole.length,
      createdAt: Date.now(),
    });
    const writer = new RunWriter(db, runId, { now: () => Date.now() });
    for (const r of whole.slice(0, 5)) await writer.add(negotiationRow(runId, r));
    await writer.flush();
    await updateRun(db, runId, { status: 'interrupted' });

    const session = new TournamentSession();
    session.resume(runId, config.agents);
    await vi.waitFor(() => expect(session.status).toBe('done'), WAIT);
    const stored = (await loadNegotiations(db, runId)).rows;
    expect(stored).toEqual(whole.map((r) => negotiationRow(runId, r)));

    for (const format of ['json', 'jsonl'] as const) {
      const exported = await sim().request({ type: 'export', requestId: newId(), runId, format });
      if (exported.type !== 'exported') throw new Error(exported.message);
      const text = await exported.blob.text();
      expect(JSON.parse(format === 'json' ? text : text.split('\n')[0]!).version).toBe(3);
      const imported = await sim().request({ type: 'import', requestId: newId(), file: new File([text], exported.fileName) });
      if (imported.type !== 'imported') throw new Error(imported.message);
      played.push(imported.runId);
      expect((await getRun(db, imported.runId))?.config).toEqual({ kind: 'tournament', tournament: config });
      expect((await loadNegotiations(db, imported.runId)).rows.map((r) => r.scenario)).toEqual(stored.map((r) => r.scenario));
    }
  });

  test('a file over the limit is refused by its size', async () => {
    const { target } = await pageWithAgents(['boulware', 'linear']);
    // Chosen in the page itself: handing 8 MB to the test driver takes seconds.
    const chosen = new DataTransfer();
    chosen.items.add(new File([new Uint8Array(8 * 1024 * 1024 + 1)], 'big.jsonl'));
    fileInput(target).files = chosen.files;
    fileInput(target).dispatchEvent(new Event('change', { bubbles: true }));
    await vi.waitFor(() => expect(alerts(target)).toEqual(['big.jsonl: the file is 8.0 MB; a scenario file may hold up to 8.0 MB']));
  });

  test('a share link opened over a chosen file sets up generated scenarios, as the link says', async () => {
    const props = reactive({ session: new TournamentSession(), runs: new RunsStore(() => openDb()), setup: undefined as string | undefined });
    const target = render(TournamentPage, props);
    await userEvent.click(control(target, FROM_FILE));
    await userEvent.upload(fileInput(target), new File([FIXTURE], 'a.jsonl'));
    await vi.waitFor(() => expect(target.querySelector('.file-summary')).not.toBeNull());
    props.setup = 'agent=boulware&agent=hardliner&per=3&preset=narrow';
    await vi.waitFor(() => expect(control<HTMLInputElement>(target, GENERATED).checked).toBe(true));
    expect(control<HTMLInputElement>(target, 'Scenarios per ordered pair').value).toBe('3');
    expect(text(runButton(target))).toBe('Run 6 negotiations');
  });

  test('works by keyboard: arrow keys pick the source, Tab reaches the file input', async () => {
    const target = render(TournamentPage, { session: new TournamentSession(), runs: new RunsStore(() => openDb()) });
    const generated = control<HTMLInputElement>(target, GENERATED);
    expect(generated.checked).toBe(true);
    generated.focus();
    await userEvent.keyboard('{ArrowDown}');
    expect(control<HTMLInputElement>(target, FROM_FILE).checked).toBe(true);
    expect(document.activeElement).toBe(control(target, FROM_FILE));
    await userEvent.keyboard('{Tab}');
    expect(document.activeElement).toBe(fileInput(target));
  });

  test('at 390 px the page does not scroll sideways with a file chosen', async () => {
    await page.viewport(390, 844);
    try {
      const { target } = await pageWithAgents(['boulware', 'linear']);
      await userEvent.upload(fileInput(target), new File([FIXTURE], 'a-long-file-name-for-a-phone-screen-negmas-reference-3.jsonl'));
      await vi.waitFor(() => expect(target.querySelector('.file-summary')).not.toBeNull());
      expect(innerWidth).toBe(390);
      expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(innerWidth);
    } finally {
      await page.viewport(1280, 800);
    }
  });
});
