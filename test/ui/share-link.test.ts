import { describe, expect, test } from 'vitest';
import { parseAgentSpec } from '../../src/games/bilateral/specs';
import { generateScenarios, makeScenario, type Scenario } from '../../src/games/bilateral/scenario';
import { CATALOG } from '../../src/games/bilateral/catalog';
import { LESSONS } from '../../src/ui/lessons';
import { parseRoute } from '../../src/ui/state/router.svelte';
import {
  lessonHref,
  readArenaSetup,
  readTournamentSetup,
  scenarioOf,
  sourceOf,
  writeArenaSetup,
  writeTournamentSetup,
  type TournamentSetup,
} from '../../src/ui/share-link';
import { MAX_SEED, SeedSchema } from '../../src/engine/rng';

describe('Arena links', () => {
  test('a drawn scenario, its hidden limit and the seats survive the round trip', () => {
    const drawn = generateScenarios({
      preset: 'narrow',
      seed: 42,
      count: 1,
      deadline: { kind: 'uncertain', min: 10, max: 30 },
      firstMover: 'buyer',
    })[0] as Scenario;
    const picked = { ...drawn, turnLimit: drawn.turnLimit === 10 ? 11 : 10 };
    for (const scenario of [drawn, picked]) {
      const search = writeArenaSetup({ you: 'seller', buyer: 'boulware:beta=0.3', seller: 'linear', scenario: sourceOf(scenario) });
      const { setup, ignored } = readArenaSetup(search);
      expect(ignored).toEqual([]);
      expect(setup).toMatchObject({ you: 'seller', buyer: 'boulware:beta=0.3' });
      expect(setup.seller).toBeUndefined();
      expect(scenarioOf(setup.scenario!)).toEqual(scenario);
    }
  });

  test('every seed a tournament or game may use survives its link, up to 2³² − 1, the schemas’ limit', () => {
    for (const seed of [0, 2 ** 31 - 1, 2 ** 31, MAX_SEED]) {
      expect(SeedSchema.safeParse(seed).success).toBe(true);
      expect(readTournamentSetup(writeTournamentSetup({ agents: ['boulware'], seed })).setup.seed).toBe(seed);
      const scenario = generateScenarios({ preset: 'standard', seed, count: 1, deadline: { kind: 'fixed', turns: 12 }, firstMover: 'seller' })[0] as Scenario;
      expect(scenarioOf(readArenaSetup(writeArenaSetup({ you: 'buyer', seller: 'linear', scenario: sourceOf(scenario) })).setup.scenario!)).toEqual(scenario);
    }
    expect(SeedSchema.safeParse(MAX_SEED + 1).success).toBe(false);
    expect(readTournamentSetup(`agent=boulware&seed=${MAX_SEED + 1}`).ignored.join('\n')).toMatch(/seed=/);
  });

  test('pass and play (you=both) survives the round trip, naming neither agent', () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 7, count: 1, deadline: { kind: 'fixed', turns: 12 }, firstMover: 'seller' })[0] as Scenario;
    const search = writeArenaSetup({ you: 'both', buyer: 'linear', seller: 'conceder', scenario: sourceOf(scenario) });
    expect(new URLSearchParams(search).get('you')).toBe('both');
    expect([...new URLSearchParams(search).keys()]).not.toContain('buyer');
    expect([...new URLSearchParams(search).keys()]).not.toContain('seller');
    const { setup, ignored } = readArenaSetup(search);
    expect(ignored).toEqual([]);
    expect(setup.you).toBe('both');
    expect(scenarioOf(setup.scenario!)).toEqual(scenario);
  });

  test('a scenario of your own with a fixed deadline survives the round trip', () => {
    const item = CATALOG.find((i) => i.id === 'laptop')!;
    const scenario = makeScenario('custom-laptop-900.5-700', item, 900.5, 700, { turnLimit: 8, firstMover: 'seller' });
    const { setup, ignored } = readArenaSetup(writeArenaSetup({ you: 'none', buyer: 'hardliner', seller: 'conceder', scenario: sourceOf(scenario) }));
    expect(ignored).toEqual([]);
    expect(scenarioOf(setup.scenario!)).toEqual(scenario);
  });

  test('malformed and unknown fields are named and left out; the rest is kept', () => {
    const { setup, ignored } = readArenaSetup(
      'you=referee&buyer=human&seller=tit-for-tat&seed=-3&preset=narrow&turns=30-10&first=buyer&colour=red&lesson=nope',
    );
    expect(setup).toEqual({
      seller: 'tit-for-tat',
      scenario: { preset: 'narrow', seed: 1, deadline: { kind: 'uncertain', min: 16, max: 24 }, firstMover: 'buyer' },
    });
    expect(ignored).toHaveLength(6);
    expect(ignored.join('\n')).toMatch(/colour/);
    expect(ignored.join('\n')).toMatch(/you=“referee”/);
    expect(ignored.join('\n')).toMatch(/buyer=“human” \(not an agent Parley knows\)/);
    expect(ignored.join('\n')).toMatch(/seed=“-3”/);
    expect(ignored.join('\n')).toMatch(/turns=“30-10”/);
    expect(ignored.join('\n')).toMatch(/lesson=“nope”/);
  });

  test('an own scenario missing its cost, or one past 100× list, falls back to a drawn one with a note', () => {
    for (const search of ['item=laptop&value=900', 'item=laptop&value=900&cost=999999']) {
      const { setup, ignored } = readArenaSetup(search);
      expect(setup.scenario).toMatchObject({ preset: 'standard', seed: 1 });
      expect(ignored.join(' ')).toMatch(/item, value and cost/);
    }
    expect(readArenaSetup('turns=12&limit=5').ignored.join(' ')).toMatch(/limit=“5”/);
  });

  test('nothing at all, or garbage, is never an error', () => {
    expect(readArenaSetup('')).toEqual({ setup: {}, ignored: [] });
    expect(() => readArenaSetup('%E0%A4%A&&&=&seed=%ZZ')).not.toThrow();
    expect(readArenaSetup(`buyer=${'a'.repeat(5000)}`).setup).toEqual({});
  });
});

describe('Tournament links', () => {
  test('every setting survives the round trip, agents in order', () => {
    const setup: TournamentSetup = {
      lesson: 'patience',
      agents: ['boulware:beta=0.05', 'conceder', 'openai:gpt-4o-mini+think'],
      scenariosPerPair: 7,
      preset: 'uniform',
      seed: 99,
      selfPlay: true,
      deadline: { kind: 'fixed', turns: 12 },
      firstMover: 'buyer',
      name: 'Week 3 & friends?',
      moveInterface: 'json',
      temperature: 0.25,
    };
    expect(readTournamentSetup(writeTournamentSetup(setup))).toEqual({ setup, ignored: [] });
  });

  test('the language models’ move interface and temperature ride along; a bad one is named', () => {
    expect(readArenaSetup('moves=json&temp=1.5').setup).toEqual({ moveInterface: 'json', temperature: 1.5 });
    const { setup, ignored } = readArenaSetup('moves=xml&temp=2.5');
    expect(setup).toEqual({});
    expect(ignored).toHaveLength(2);
  });

  test('bad values are left out with a note each', () => {
    const { setup, ignored } = readTournamentSetup('agent=boulware&agent=nobody&agent=boulware&per=0&self=yes&mover=auction&seed=12');
    expect(setup).toEqual({ agents: ['boulware'], seed: 12 });
    expect(ignored).toHaveLength(4);
  });
});

describe('lessons', () => {
  test('each lesson opens its page with its whole setup read back and nothing ignored', () => {
    for (const lesson of LESSONS) {
      const route = parseRoute(lessonHref(lesson));
      expect(route.page).toBe(lesson.page);
      const search = 'setup' in route ? (route.setup ?? '') : '';
      const read = lesson.page === 'arena' ? readArenaSetup(search) : readTournamentSetup(search);
      expect(read.ignored).toEqual([]);
      expect(read.setup).toEqual(lesson.setup);
      if (lesson.page === 'tournament') for (const a of lesson.setup.agents ?? []) expect(parseAgentSpec(a).ok).toBe(true);
    }
  });

  test('the no-gains lesson has no gains from trade', () => {
    const lesson = LESSONS.find((l) => l.id === 'no-gains');
    const scenario = lesson?.page === 'arena' && lesson.setup.scenario ? scenarioOf(lesson.setup.scenario) : null;
    expect(scenario && scenario.buyerValue < scenario.sellerCost).toBe(true);
  });
});
