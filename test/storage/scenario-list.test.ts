import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_SCENARIOS, parseScenarioFile } from '../../src/games/bilateral/scenario-file';
import type { TournamentConfig } from '../../src/games/bilateral/tournament';
import { DEFAULT_DEADLINE, DEFAULT_FIRST_MOVER, type Scenario } from '../../src/games/bilateral/scenario';
import { exportVersionOf } from '../../src/storage/bilateral-file';
import { fullTournamentConfig, TournamentConfigSchema } from '../../src/storage/schema';

const SCENARIOS: Scenario[] = (() => {
  const read = parseScenarioFile(readFileSync(new URL('../fixtures/negmas-reference-3.jsonl', import.meta.url), 'utf8'));
  if (!read.ok) throw new Error(read.error.message);
  return read.value.scenarios;
})();

const DRAWN: TournamentConfig = {
  agents: ['boulware', 'linear'],
  scenariosPerPair: 4,
  preset: 'narrow',
  seed: 3,
  selfPlay: true,
  deadline: { kind: 'fixed', turns: 9 },
  firstMover: 'buyer',
};

/** The first problem the stored-config schema names, as `path: message`. */
const problem = (value: object): string | null => {
  const r = TournamentConfigSchema.safeParse(value);
  const issue = r.success ? undefined : r.error.issues[0];
  return issue ? `${issue.path.join('.')}: ${issue.message}` : null;
};

describe('a stored tournament config with a scenario list', () => {
  it('drawn scenarios store exactly as before: no scenarios key, the same keys in the same order', () => {
    const stored = fullTournamentConfig(DRAWN);
    expect(Object.keys(stored)).toEqual(['agents', 'scenariosPerPair', 'preset', 'seed', 'selfPlay', 'deadline', 'firstMover', 'llm']);
    expect(stored).toMatchObject({ scenariosPerPair: 4, preset: 'narrow', deadline: { kind: 'fixed', turns: 9 }, firstMover: 'buyer' });
    expect(exportVersionOf({ config: { kind: 'tournament', tournament: stored } })).toBe(2);
  });

  it('a list stores its scenarios, their number, and the defaults where drawn-scenario settings do not apply', () => {
    const stored = fullTournamentConfig({ ...DRAWN, scenarios: SCENARIOS });
    expect(stored).toMatchObject({
      scenariosPerPair: 3,
      preset: 'standard',
      seed: 3,
      deadline: DEFAULT_DEADLINE,
      firstMover: DEFAULT_FIRST_MOVER,
      scenarios: SCENARIOS,
    });
    expect(TournamentConfigSchema.parse(stored)).toEqual(stored);
    expect(exportVersionOf({ config: { kind: 'tournament', tournament: stored } })).toBe(3);
  });

  it('refuses a count its list does not hold, one id twice, a scenario the protocol cannot run, and too long a list', () => {
    const stored = fullTournamentConfig({ ...DRAWN, scenarios: SCENARIOS });
    expect(problem({ ...stored, scenariosPerPair: 4 })).toBe('scenariosPerPair: is 4 but scenarios holds 3');
    const twice = [SCENARIOS[0]!, { ...SCENARIOS[1]!, id: SCENARIOS[0]!.id }, SCENARIOS[2]!];
    expect(problem({ ...stored, scenarios: twice })).toBe('scenarios.1.id: "101-0" is already the id of scenarios[0]');
    const outside = [SCENARIOS[0]!, { ...SCENARIOS[1]!, turnRange: { min: 30, max: 40 } }, SCENARIOS[2]!];
    expect(problem({ ...stored, scenarios: outside })).toMatch(/^scenarios\.1: turnLimit \d+ is outside turnRange 30–40/);
    expect(problem({ ...stored, scenarios: [], scenariosPerPair: 0 })).not.toBeNull();
    const many = Array.from({ length: MAX_FILE_SCENARIOS + 1 }, (_, i) => ({ ...SCENARIOS[0]!, id: `s${i}` }));
    expect(problem({ ...stored, scenarios: many, scenariosPerPair: many.length })).toMatch(/^scenarios: /);
  });
});
