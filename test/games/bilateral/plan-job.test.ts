import { describe, expect, it } from 'vitest';
import { planJob } from '../../../src/games/bilateral/plan-job';
import { plannedCount, planTournament, type TournamentConfig } from '../../../src/games/bilateral/tournament';
import { generateScenarios, type Scenario } from '../../../src/games/bilateral/scenario';

const config = (agents: number, selfPlay: boolean): TournamentConfig => ({
  agents: Array.from({ length: agents }, (_, i) => `agent-${i}`),
  scenariosPerPair: 3,
  preset: 'narrow',
  seed: 11,
  selfPlay,
  deadline: { kind: 'uncertain', min: 4, max: 9 },
  firstMover: 'alternate',
});

describe('planJob', () => {
  it.each([
    [1, true],
    [2, false],
    [2, true],
    [4, false],
    [5, true],
  ])('finds every job of the plan by its id alone (%i agents, self-play %s)', (agents, selfPlay) => {
    const c = config(agents, selfPlay);
    const scenarios = new Map<number, Scenario>();
    for (const job of planTournament(c)) {
      expect(planJob(c, job.id)).toEqual(job);
      expect(planJob(c, job.id, scenarios)).toEqual(job);
    }
    expect(scenarios.size).toBe(3);
  });

  it('is null for an id the plan does not have', () => {
    const c = config(3, false);
    for (const id of ['0-0-0', '3-0-0', '0-1-3', '00-1-0', '0-1-01', '0-1', '0-1-2-3', 'a-b-c', '0-1-0 ', '-1-0-0', '0:1-0', '1e3-0-0', '9999999999-0-0'])
      expect(planJob(c, id), id).toBeNull();
    expect(planJob(config(3, true), '0-0-0')).toMatchObject({ index: 0, buyer: 'agent-0', seller: 'agent-0' });
  });
});

describe('a config with its own scenarios (a scenario file)', () => {
  const own: Scenario[] = generateScenarios({ preset: 'wide', seed: 4, count: 3, deadline: { kind: 'fixed', turns: 7 } }).map((s, i) => ({
    ...s,
    id: `file-${i}`,
    firstMover: i === 1 ? 'buyer' : 'seller',
  }));
  // The drawn-scenario fields disagree with the list on purpose: with a list, they do not apply.
  const listed: TournamentConfig = { ...config(3, false), scenariosPerPair: own.length, scenarios: own };

  it('plans exactly those scenarios, in order, for every ordered pair', () => {
    const jobs = planTournament(listed);
    expect(plannedCount(listed)).toBe(3 * 2 * own.length);
    expect(jobs).toHaveLength(plannedCount(listed));
    for (const job of jobs) expect(job.scenario).toBe(own[job.scenarioIndex]);
    expect(jobs.map((j) => j.scenario.id).filter((id, i, all) => all.indexOf(id) === i)).toEqual(['file-0', 'file-1', 'file-2']);
  });

  it('planJob finds each job by its id, with the listed scenario, and no job past the list', () => {
    const scenarios = new Map<number, Scenario>();
    for (const job of planTournament(listed)) expect(planJob(listed, job.id, scenarios)).toEqual(job);
    expect(planJob(listed, '0-1-3')).toBeNull();
    expect(planJob({ ...listed, scenarios: own.slice(0, 2), scenariosPerPair: 2 }, '0-1-2')).toBeNull();
  });

  it('the list decides the count even where scenariosPerPair says otherwise', () => {
    expect(plannedCount({ ...listed, scenariosPerPair: 50 })).toBe(plannedCount(listed));
  });
});
