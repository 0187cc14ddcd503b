import { describe, expect, test } from 'vitest';
import { TournamentConfigSchema } from '../../src/storage/schema';
import { ToWorkerSchema } from '../../src/worker/messages';
import { readTournamentSetup, writeTournamentSetup } from '../../src/ui/share-link';
import { TOURNAMENT_LIMITS } from '../../src/ui/state/limits';
import { TournamentForm } from '../../src/ui/state/tournament-form.svelte';

const { agents, scenariosPerPair, seed, turns, name, temperature } = TOURNAMENT_LIMITS;

/** As many distinct scripted agents as asked for. */
const manyAgents = (n: number) => Array.from({ length: n }, (_, i) => `boulware:beta=${i + 1}`);

/** A form at every largest setting: the most agents, scenarios, seed, turns, name and temperature. */
function largest(): TournamentForm {
  const form = new TournamentForm();
  form.agents = manyAgents(agents.max);
  form.scenariosPerPair = scenariosPerPair.max;
  form.seed = seed.max;
  form.selfPlay = true;
  form.deadlineKind = 'uncertain';
  [form.minTurns, form.maxTurns] = [turns.min, turns.max];
  form.firstMover = 'buyer';
  form.name = 'Week 3 & friends? 100% “fair” — ü/#'.repeat(10).slice(0, name.max);
  form.moveInterface = 'json';
  form.temperature = temperature.max;
  return form;
}

/** The form a share link written from `form` opens. */
function reopened(form: TournamentForm): { form: TournamentForm; ignored: string[] } {
  const { setup, ignored } = readTournamentSetup(writeTournamentSetup(form.setup));
  const opened = new TournamentForm();
  opened.apply(setup);
  return { form: opened, ignored };
}

describe('the tournament form', () => {
  test('a tournament at every largest setting is valid, is what the worker takes, and opens again from its own link', () => {
    const form = largest();
    expect(form.errors).toEqual({ agents: null, scenariosPerPair: null, seed: null, deadline: null });
    expect(form.config).not.toBeNull();
    expect(ToWorkerSchema.safeParse({ type: 'run.start', runId: 'r', name: form.runName(), config: form.config }).success).toBe(true);

    const { form: opened, ignored } = reopened(form);
    expect(ignored).toEqual([]);
    expect(opened.config).toEqual(form.config);
    expect(opened.runName()).toBe(form.runName());

    // A fixed deadline at its largest too.
    form.deadlineKind = 'fixed';
    form.fixedTurns = turns.max;
    expect(reopened(form).form.config).toEqual(form.config);
  });

  test('one past each limit is named on its own field, and the form does not run', () => {
    const cases: [string, (f: TournamentForm) => void, keyof TournamentForm['errors'], string][] = [
      ['seed', (f) => (f.seed = seed.max + 1), 'seed', `The seed is a whole number from 0 to ${seed.max.toLocaleString('en-US')}.`],
      [
        'scenarios',
        (f) => (f.scenariosPerPair = scenariosPerPair.max + 1),
        'scenariosPerPair',
        'Scenarios per pair must be a whole number from 1 to 1,000,000.',
      ],
      ['no scenarios', (f) => (f.scenariosPerPair = null), 'scenariosPerPair', 'Scenarios per pair must be a whole number from 1 to 1,000,000.'],
      [
        'agents',
        (f) => (f.agents = manyAgents(agents.max + 1)),
        'agents',
        `A tournament plays 1 to ${agents.max} agents, each named in at most 200 characters.`,
      ],
      ['fixed turns', (f) => ([f.deadlineKind, f.fixedTurns] = ['fixed', turns.max + 1]), 'deadline', 'The turn limit must be a whole number from 1 to 1,000.'],
      ['fewest turns', (f) => (f.minTurns = turns.min - 1), 'deadline', 'The fewest turns must be a whole number from 1 to 1,000.'],
      ['a range upside down', (f) => ([f.minTurns, f.maxTurns] = [30, 24]), 'deadline', 'The fewest turns (30) must not be above the most (24).'],
    ];
    for (const [what, change, field, words] of cases) {
      const form = new TournamentForm();
      change(form);
      expect(form.errors[field], what).toBe(words);
      expect(form.config, what).toBeNull();
      expect(form.ready, what).toBe(false);
    }
    // Each limit is the stored config's own: the schema refuses exactly what the form refuses.
    const stored = largest().config!;
    expect(TournamentConfigSchema.safeParse(stored).success).toBe(true);
    expect(TournamentConfigSchema.safeParse({ ...stored, seed: seed.max + 1 }).success).toBe(false);
    expect(TournamentConfigSchema.safeParse({ ...stored, agents: manyAgents(agents.max + 1) }).success).toBe(false);
  });

  test('a temperature past its limit stops the run (the model settings word it themselves)', () => {
    const form = new TournamentForm();
    form.temperature = temperature.max + 0.5;
    expect(form.invalid).toBe(true);
    expect(form.config).toBeNull();
  });

  test('a link with more agents than a tournament takes keeps the first ones and says so', () => {
    const { setup, ignored } = readTournamentSetup(
      manyAgents(agents.max + 2)
        .map((a) => `agent=${encodeURIComponent(a)}`)
        .join('&'),
    );
    expect(setup.agents).toEqual(manyAgents(agents.max));
    expect(ignored).toEqual([`agents after the first ${agents.max}`]);
  });
});
