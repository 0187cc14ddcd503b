import { afterEach, describe, expect, test, vi } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import TournamentPage from '../../src/ui/pages/TournamentPage.svelte';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { DEFAULT_DEADLINE, DEFAULT_FIRST_MOVER, generateScenarios, type Scenario } from '../../src/games/bilateral/scenario';
import type { TournamentSettings } from '../../src/worker/messages';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { freshDb, storedTournament, tournamentRows } from '../storage/helpers';
import { agent, cleanup, control, must, play, render, text } from './helpers.svelte';

afterEach(cleanup);

const MARKUP = '<img src=x onerror="window.__pwned=1"><b>bold</b>';

describe('Arena status', () => {
  async function finished(end: (turn: number) => BilateralEvent): Promise<{ session: ArenaSession; scenario: Scenario }> {
    const scenario = generateScenarios({ preset: 'standard', seed: 3, count: 1 })[0]!;
    const played = await play(scenario, agent('boulware', 'buyer'), agent('conceder', 'seller'));
    const session = new ArenaSession();
    session.scenario = scenario;
    session.agents = { buyer: 'boulware', seller: 'conceder' };
    const turn = played.events.at(-1)!.turn;
    session.events = [...played.events.slice(0, -1), end(turn)];
    session.status = 'finished';
    return { session, scenario };
  }
  const status = (target: HTMLElement) => text(target.querySelector('.controls [role="status"]'));

  test('a game that ended in an error names the error, as text, not "Finished"', async () => {
    const message = `the seller's model stopped answering ${MARKUP}`;
    const { session } = await finished((turn) => ({ type: 'end', turn, outcome: { kind: 'error', actor: 'seller', message, turn } }));
    const target = render(ArenaPage, { session });
    expect(status(target)).toBe(`Ended in an error: ${message}`);
    expect(target.querySelector('.controls [role="status"] img, .controls [role="status"] b')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });

  test('step by step, the status names the turn under way: turn 2 once turn 1 is played', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 3, count: 1, deadline: { kind: 'fixed', turns: 20 } })[0]!;
    const played = await play(scenario, agent('boulware', 'buyer'), agent('conceder', 'seller'));
    const session = new ArenaSession();
    session.scenario = scenario;
    session.agents = { buyer: 'boulware', seller: 'conceder' };
    session.status = 'playing';
    session.paused = true;
    const target = render(ArenaPage, { session });
    expect(status(target)).toBe('Playing turn 1 of 20');
    session.events = played.events.slice(0, 1);
    flushSync();
    expect(status(target)).toBe('Playing turn 2 of 20');
  });

  test('with an uncertain deadline the status gives the range and says the exact limit is hidden from the agents', async () => {
    const [scenario] = generateScenarios({ preset: 'standard', seed: 3, count: 1, deadline: { kind: 'uncertain', min: 16, max: 24 } });
    const played = await play(scenario!, agent('boulware', 'buyer'), agent('conceder', 'seller'));
    const session = new ArenaSession();
    session.scenario = scenario!;
    session.agents = { buyer: 'boulware', seller: 'conceder' };
    session.status = 'playing';
    session.events = played.events.slice(0, 2);
    const target = render(ArenaPage, { session });
    expect(status(target)).toBe(`Playing turn 3 of 16–24 (this game's limit, ${scenario!.turnLimit}, is hidden from the agents)`);
  });

  test('changing the agents or the scenario after a game marks the result as the previous settings', async () => {
    const { session, scenario } = await finished((turn) => ({ type: 'end', turn, outcome: { kind: 'turn_limit', turn } }));
    const target = render(ArenaPage, { session });
    const note = () => target.querySelector('.stale-note');
    // Back on the page, the form holds the game's own settings: nothing is stale.
    expect(note()).toBeNull();
    const [buyer] = [...target.querySelectorAll<HTMLFieldSetElement>('fieldset.agent-picker')];
    await userEvent.selectOptions(control<HTMLSelectElement>(must(buyer), 'Agent'), 'linear');
    expect(text(note())).toBe(
      `This game was played with the previous settings: boulware buying ${scenario.item.name} from conceder. Play to see the current ones.`,
    );
    expect(must(target.querySelector('.two-cols')).classList.contains('stale')).toBe(true);
    await userEvent.selectOptions(control<HTMLSelectElement>(must(buyer), 'Agent'), 'boulware');
    expect(note()).toBeNull();
    await userEvent.fill(control<HTMLInputElement>(target, 'Seed'), '4');
    expect(note()).not.toBeNull();
  });

  test('a game that ended normally reads "Finished"; a stopped one "Stopped"', async () => {
    const done = await finished((turn) => ({ type: 'end', turn, outcome: { kind: 'turn_limit', turn } }));
    expect(status(render(ArenaPage, { session: done.session }))).toBe('Finished');
    const stopped = await finished((turn) => ({ type: 'end', turn, outcome: { kind: 'cancelled', turn } }));
    expect(status(render(ArenaPage, { session: stopped.session }))).toBe('Stopped');
  });
});

/** A session that records what it was asked to start instead of starting a worker run. */
class RecordingSession extends TournamentSession {
  started: TournamentSettings[] = [];
  override start(_name: string, config: TournamentSettings): string {
    this.started.push(config);
    return 'recorded';
  }
}

describe('Tournament form', () => {
  const button = (target: HTMLElement) => must([...target.querySelectorAll<HTMLButtonElement>('button.primary')][0]);
  const alerts = (target: HTMLElement) => [...target.querySelectorAll('[role="alert"]')].map((a) => text(a));

  test('starts with the default deadline and first mover, and says why', async () => {
    const session = new RecordingSession();
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()) });
    expect(control<HTMLInputElement>(target, 'Uncertain: a range, the exact limit drawn per scenario and hidden from the agents').checked).toBe(true);
    expect(DEFAULT_DEADLINE).toEqual({ kind: 'uncertain', min: 16, max: 24 });
    expect([control<HTMLInputElement>(target, 'Fewest turns').value, control<HTMLInputElement>(target, 'Most turns').value]).toEqual(['16', '24']);
    expect(control<HTMLSelectElement>(target, 'First mover').value).toBe(DEFAULT_FIRST_MOVER);
    expect(text(target.querySelector('.why'))).toMatch(
      /^Defaults: 16–24 turns \(uncertain\), seller and buyer open in turn\. With a fixed, known limit, an agent that concedes to its reservation at the end hands it to whoever moves last, as an ultimatum; .* never offer their reservation/,
    );
    await userEvent.click(button(target));
    expect(session.started).toHaveLength(1);
    expect(session.started[0]).toMatchObject({ deadline: DEFAULT_DEADLINE, firstMover: 'alternate' });
  });

  test('names bad input, refuses to start, and loses nothing while it is corrected', async () => {
    const session = new RecordingSession();
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()) });
    await userEvent.fill(control(target, 'Fewest turns'), '30');
    expect(alerts(target)).toContain('The fewest turns (30) must not be above the most (24).');
    expect(button(target).disabled).toBe(true);
    await userEvent.fill(control(target, 'Most turns'), '5000');
    expect(alerts(target)).toContain('The most turns must be a whole number from 1 to 1,000.');
    await userEvent.fill(control(target, 'Most turns'), '40');
    expect(alerts(target)).toEqual([]);

    // Switching to fixed and back keeps the range typed.
    await userEvent.click(control(target, 'Fixed: both sides know the exact limit'));
    await userEvent.fill(control(target, 'Turn limit'), '0');
    expect(alerts(target)).toContain('The turn limit must be a whole number from 1 to 1,000.');
    expect(button(target).disabled).toBe(true);
    await userEvent.fill(control(target, 'Turn limit'), '12');
    await userEvent.click(control(target, 'Uncertain: a range, the exact limit drawn per scenario and hidden from the agents'));
    expect([control<HTMLInputElement>(target, 'Fewest turns').value, control<HTMLInputElement>(target, 'Most turns').value]).toEqual(['30', '40']);
    await userEvent.click(control(target, 'Fixed: both sides know the exact limit'));
    expect(control<HTMLInputElement>(target, 'Turn limit').value).toBe('12');

    await userEvent.selectOptions(control(target, 'First mover'), 'buyer');
    await userEvent.click(button(target));
    expect(session.started.at(-1)).toMatchObject({ deadline: { kind: 'fixed', turns: 12 }, firstMover: 'buyer' });
  });

  test('a plan over a million negotiations runs only once the user ticks that they mean it', async () => {
    const session = new RecordingSession();
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()) });
    // The default agents and 1,000,000 scenarios per pair: several million negotiations.
    await userEvent.fill(control(target, 'Scenarios per ordered pair'), '1000000');
    expect(button(target).disabled).toBe(true);
    const tick = must(target.querySelector<HTMLInputElement>('.confirm input[type="checkbox"]'));
    expect(text(target.querySelector('.confirm'))).toMatch(/^Yes, run all [\d,]+ negotiations \(over 1,000,000/);
    await userEvent.click(tick);
    expect(button(target).disabled).toBe(false);
    await userEvent.click(button(target));
    expect(session.started.at(-1)).toMatchObject({ scenariosPerPair: 1_000_000 });
    // A plan under the limit asks nothing.
    await userEvent.fill(control(target, 'Scenarios per ordered pair'), '10');
    expect(target.querySelector('.confirm')).toBeNull();
    expect(button(target).disabled).toBe(false);
  });

  test('points to the stored runs once there are any, as soon as one is stored', async () => {
    const db = freshDb();
    const target = render(TournamentPage, { session: new RecordingSession(), runs: new RunsStore(() => db) });
    await storedTournament(db);
    await vi.waitFor(() => expect(text(target)).toContain('Earlier runs are in Runs.'));
    expect(must(target.querySelector('a[href="#/runs"]')).textContent).toBe('Runs');
  });

  test('after a run finishes, its status counts the negotiations that ended in an error', async () => {
    const rows = await tournamentRows('t');
    const aggregator = new Aggregator();
    rows.forEach((row, i) => {
      const events =
        i % 9 === 0
          ? [
              ...row.events.slice(0, -1),
              { type: 'end' as const, turn: 0, outcome: { kind: 'error' as const, actor: 'seller' as const, message: 'no answer', turn: 0 } },
            ]
          : row.events;
      aggregator.add(row.buyer, row.seller, row.scenario, computeMetrics(row.scenario, events));
    });
    const session = new RecordingSession();
    session.runId = 't';
    session.status = 'running';
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()) });
    session.standings = aggregator.standings({ samples: 0 });
    session.status = 'done';
    flushSync();
    const status = text(must(target.querySelector('section.progress [role="status"]')));
    expect(status).toMatch(/^Finished\. Status: done, 4 errors\./);
  });
});

describe('Model settings in the forms', () => {
  test('the tournament runs every model through the chosen interface at the chosen temperature, tools and 0.7 by default', async () => {
    const session = new RecordingSession();
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()) });
    const start = must([...target.querySelectorAll<HTMLButtonElement>('button.primary')][0]);
    expect(control<HTMLSelectElement>(target, 'Moves as').value).toBe('tools');
    expect(control<HTMLInputElement>(target, 'Temperature').value).toBe('0.7');
    await userEvent.click(start);
    expect(session.started[0]?.llm).toEqual({ interface: 'tools', temperature: 0.7, maxTokens: null, thinking: false });
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Moves as'), 'json');
    await userEvent.fill(control<HTMLInputElement>(target, 'Temperature'), '3');
    expect([...target.querySelectorAll('[role="alert"]')].map((a) => text(a))).toContain('The temperature must be a number from 0 to 2.');
    expect(start.disabled).toBe(true);
    await userEvent.fill(control<HTMLInputElement>(target, 'Temperature'), '0.2');
    await userEvent.click(start);
    expect(session.started[1]?.llm).toEqual({ interface: 'json', temperature: 0.2, maxTokens: null, thinking: false });
  });

  test('the Arena hands the game its interface and temperature', async () => {
    const started: unknown[] = [];
    class RecordingArena extends ArenaSession {
      override start(...args: Parameters<ArenaSession['start']>): void {
        started.push(args[3]);
      }
    }
    const target = render(ArenaPage, { session: new RecordingArena() });
    // Scripted seats need no model settings, so none are shown until a model takes a seat.
    expect(() => control(target, 'Moves as')).toThrow();
    const buyerAgent = must(
      [...target.querySelectorAll<HTMLSelectElement>('select')].find((s) => s.closest('fieldset')?.querySelector('legend')?.textContent === 'Buyer'),
    );
    await userEvent.selectOptions(buyerAgent, 'remote model…');
    await userEvent.fill(control<HTMLInputElement>(target, 'Remote model'), 'openai:gpt-4o-mini');
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Moves as'), 'json');
    await userEvent.fill(control<HTMLInputElement>(target, 'Temperature'), '1.1');
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('.controls button.primary')));
    expect(started).toEqual([{ interface: 'json', temperature: 1.1 }]);
  });
});
