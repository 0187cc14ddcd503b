/**
 * The class as a set the teacher chooses (ui/class-set.ts), and the routes to the Class page: pure
 * functions, over games made as students' browsers make them.
 */
import { describe, expect, test } from 'vitest';
import { HUMAN_SPEC } from '../../src/agents/specs';
import { runTitle, studentsOf, type StoredGame } from '../../src/ui/class-export';
import {
  DEFAULT_CLASS_SETTINGS,
  chosenGames,
  classEntry,
  dayOf,
  handedInList,
  isChosen,
  parseRoster,
  pick,
  readClassSettings,
  setupLabel,
} from '../../src/ui/class-set';
import { href, parseRoute } from '../../src/ui/state/router.svelte';
import { passAndPlayName } from '../../src/ui/pass-and-play';
import { lessonScenario, studentGame } from '../support/class-games';

const AT = new Date(2031, 2, 14, 10).getTime();
async function stored(player: string | null, n: number, createdAt = AT, runId = `g${n}`): Promise<StoredGame> {
  const g = await studentGame(player, n, createdAt);
  return { runId, runName: g.run.name, createdAt, buyer: g.row.buyer, seller: g.row.seller, scenario: g.row.scenario, events: g.row.events };
}

describe('routes', () => {
  test('#/class is the Class page; #/handin/<payload> opens it with the link to hand in', () => {
    expect(parseRoute(href.class())).toEqual({ page: 'class' });
    expect(parseRoute('#/handin/AbC-_9')).toEqual({ page: 'class', handIn: 'AbC-_9' });
    expect(parseRoute('#/handin')).toEqual({ page: 'not-found', path: 'handin' });
  });
});

describe('the chosen set', () => {
  test('by default the games handed in; a game played here is out until ticked, and a ticked-out game stays out', async () => {
    const ada = classEntry(await stored('Ada', 1), true);
    const demo = classEntry(await stored('Teacher', 2, AT + 1000), false);
    let s = { ...DEFAULT_CLASS_SETTINGS };
    expect([isChosen(ada, s), isChosen(demo, s)]).toEqual([true, false]);
    s = pick(s, demo, true);
    expect(s.added).toEqual(['g2']);
    expect(isChosen(demo, s)).toBe(true);
    s = pick(s, demo, false);
    expect(s).toEqual(DEFAULT_CLASS_SETTINGS);
    s = pick(s, ada, false);
    expect(s.removed).toEqual(['g1']);
    expect(isChosen(ada, { ...s, source: 'all' })).toBe(false);
    expect(isChosen(demo, { ...s, source: 'all' })).toBe(true);
  });

  test('by day and by setup: the anchoring lesson is named as such', async () => {
    const today = classEntry(await stored('Ada', 1), true);
    const yesterday = classEntry(await stored('Bo', 2, AT - 86_400_000), true);
    expect(today.day).toBe('2031-03-14');
    expect(dayOf(AT - 86_400_000)).toBe('2031-03-13');
    const s = { ...DEFAULT_CLASS_SETTINGS, day: '2031-03-14' };
    expect([isChosen(today, s), isChosen(yesterday, s)]).toEqual([true, false]);
    expect(setupLabel(today.game)).toMatch(/^Lesson: /);
    const other = { ...today.game, scenario: { ...lessonScenario(), buyerValue: lessonScenario().buyerValue + 1 } };
    expect(setupLabel(other)).toBe(`${other.scenario.item.name}: a student buys from linear`);
    expect(isChosen(classEntry(other, true), { ...DEFAULT_CLASS_SETTINGS, setup: today.setup })).toBe(false);
  });

  test('a game stored twice (another id, another name) counts once', async () => {
    const a = await stored('Ada', 1);
    const copy = { ...a, runId: 'copy', runName: 'Someone: human buys x from linear' };
    const { games, copies } = chosenGames([classEntry(a, true), classEntry(copy, true)], DEFAULT_CLASS_SETTINGS);
    // The one kept is the first stored by time, then by id: here the copy's id sorts first.
    expect(games.map((g) => g.runId)).toEqual(['copy']);
    expect(copies).toBe(1);
  });
});

describe('the roster', () => {
  test('pasted one a line or comma-separated, each name once; matched whatever the case and spacing', async () => {
    expect(parseRoster(' Ada  Lovelace \nbo, Cy;ada lovelace\n\n')).toEqual(['Ada Lovelace', 'bo', 'Cy']);
    const games = [await stored('ada lovelace', 1), await stored('Bo', 2), await stored('Bo', 3), await stored('Zed', 4), await stored(null, 5)];
    expect(handedInList(['Ada Lovelace', 'bo', 'Cy'], games)).toEqual({
      handedIn: [
        { name: 'Ada Lovelace', games: 1 },
        { name: 'bo', games: 2 },
      ],
      missing: ['Cy'],
      unlisted: [
        { name: 'Zed', games: 1 },
        { name: 'unnamed player', games: 1 },
      ],
    });
  });

  test('a pass-and-play game hands in both its students, each once', async () => {
    const base = await stored('Ada', 1);
    const pair: StoredGame = {
      ...base,
      runId: 'pp',
      runName: passAndPlayName({ buyer: 'Ada', seller: 'Ben' }, 'human buys a blender from human'),
      buyer: HUMAN_SPEC,
      seller: HUMAN_SPEC,
    };
    expect(studentsOf(pair)).toEqual(['Ada', 'Ben']);
    expect(classEntry(pair, true).students).toEqual(['Ada', 'Ben']);
    expect(handedInList(['Ada', 'Ben', 'Cy'], [pair, base])).toEqual({
      handedIn: [
        { name: 'Ada', games: 2 },
        { name: 'Ben', games: 1 },
      ],
      missing: ['Cy'],
      unlisted: [],
    });
  });

  test('settings that do not read fall back to the defaults', () => {
    expect(readClassSettings({ roster: 'Ada' })).toEqual(DEFAULT_CLASS_SETTINGS);
    expect(readClassSettings({ ...DEFAULT_CLASS_SETTINGS, day: '2031-03-14' }).day).toBe('2031-03-14');
  });
});

describe('runTitle', () => {
  test("calls a student's game by the student, never 'human'; other runs by their own name", () => {
    const config = { kind: 'arena', buyer: HUMAN_SPEC, seller: 'linear' };
    expect(runTitle({ name: 'Ada: human buys Blender from linear', config })).toBe('Ada buys Blender from linear');
    expect(runTitle({ name: 'human buys Blender from linear', config })).toBe('unnamed player buys Blender from linear');
    expect(runTitle({ name: 'my tournament', config: { kind: 'tournament' } })).toBe('my tournament');
    expect(runTitle({ name: 'renamed by hand', config })).toBe('renamed by hand');
  });
});
