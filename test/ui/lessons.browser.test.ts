import { afterEach, describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import App from '../../src/ui/App.svelte';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import TournamentPage from '../../src/ui/pages/TournamentPage.svelte';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import type { TournamentSettings } from '../../src/worker/messages';
import { LESSONS } from '../../src/ui/lessons';
import { lessonHref, readArenaSetup, readTournamentSetup, scenarioOf } from '../../src/ui/share-link';
import { parseRoute } from '../../src/ui/state/router.svelte';
import { freshDb } from '../storage/helpers';
import { cleanup, control, must, render, text } from './helpers.svelte';

afterEach(() => {
  cleanup();
  location.hash = '';
});

class RecordingArena extends ArenaSession {
  started: { scenario: unknown; buyer: string; seller: string }[] = [];
  override start(scenario: never, buyer: string, seller: string): void {
    this.started.push({ scenario, buyer, seller });
  }
}
class RecordingTournament extends TournamentSession {
  started: TournamentSettings[] = [];
  override start(_name: string, config: TournamentSettings): string {
    this.started.push(config);
    return 'recorded';
  }
}

const lesson = (id: string) => must(LESSONS.find((l) => l.id === id) as never, id) as (typeof LESSONS)[number];
const setupOf = (hash: string) => {
  const route = parseRoute(hash);
  return 'setup' in route ? (route.setup ?? '') : '';
};
const button = (target: HTMLElement, name: string) =>
  must(
    [...target.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );

describe('home page', () => {
  test('the empty route opens it: what Parley is, three ways in, the lessons and the glossary', () => {
    location.hash = '';
    const target = render(App, {});
    expect(text(target.querySelector('main h1'))).toBe('Parley');
    expect(document.title).toBe('Home · Parley');
    const ways = [...target.querySelectorAll('.ways a')].map((a) => [text(a), a.getAttribute('href')]);
    expect(ways).toEqual([
      ['Play as the buyer', '#/arena?you=buyer'],
      ['Open the Arena', '#/arena?you=none'],
      ['Set up a tournament', '#/tournament'],
    ]);
    expect(target.querySelectorAll('.lesson')).toHaveLength(LESSONS.length);
    const terms = [...target.querySelectorAll('.glossary dt')].map((dt) => text(dt));
    for (const term of ['Reservation value', 'Zone of agreement (ZOPA)', 'AC_next', 'Common random numbers', 'Quintile', '95% interval'])
      expect(terms).toContain(term);
  });

  test('a ? button opens its explanation on click and on Enter, and closes again', async () => {
    const target = render(ArenaPage, { session: new RecordingArena() });
    const help = must(target.querySelector<HTMLButtonElement>('button[aria-label="What is Preset?"]'));
    const note = must(document.getElementById(help.getAttribute('aria-controls') ?? ''));
    expect(note.hidden).toBe(true);
    await userEvent.click(help);
    expect([help.getAttribute('aria-expanded'), note.hidden]).toEqual(['true', false]);
    expect(text(note)).toMatch(/^Preset\. A recipe for drawing scenarios/);
    help.focus();
    await userEvent.keyboard('{Enter}');
    expect([help.getAttribute('aria-expanded'), note.hidden]).toEqual(['false', true]);
    await userEvent.keyboard('{Enter}');
    expect(note.hidden).toBe(false);
  });
});

describe('share links and lessons', () => {
  test("an Arena lesson fills the form and starts nothing; Play then plays the link's own scenario", async () => {
    const noGains = lesson('no-gains');
    const session = new RecordingArena();
    const target = render(ArenaPage, { session, setup: setupOf(lessonHref(noGains)) });
    expect(text(target.querySelector('aside.lesson'))).toContain('Lesson: No gains from trade.');
    expect(text(target.querySelector('.scenario-picker .summary'))).toMatch(/^Desk lamp .* value v = \$25\.00, cost c = \$30\.00; no gains from trade\./);
    const [buyer, seller] = [...target.querySelectorAll<HTMLFieldSetElement>('fieldset.agent-picker')];
    expect(control<HTMLSelectElement>(must(buyer), 'Agent').value).toBe('tit-for-tat');
    expect(control<HTMLSelectElement>(must(seller), 'Agent').value).toBe('conceder');
    expect(session.started).toEqual([]);
    expect(session.status).toBe('idle');
    await userEvent.click(button(target, 'Play'));
    const expected = noGains.page === 'arena' ? scenarioOf(noGains.setup.scenario!) : null;
    expect(session.started).toEqual([{ scenario: expected, buyer: 'tit-for-tat', seller: 'conceder' }]);
  });

  test('Copy link hands out the form as it stands, and the link read back gives the same game', async () => {
    const target = render(ArenaPage, {
      session: new RecordingArena(),
      setup: 'you=seller&buyer=hardliner&preset=wide&seed=8&turns=10&first=buyer&moves=json&temp=0.2',
    });
    expect(control<HTMLInputElement>(target, 'The seller').checked).toBe(true);
    await userEvent.click(must(target.querySelector('.scenario-box summary')));
    await userEvent.fill(control<HTMLInputElement>(target, 'Seed'), '9');
    await userEvent.click(button(target, 'Copy link'));
    const box = must(target.querySelector<HTMLInputElement>('.share input'));
    await expect.poll(() => text(target.querySelector('.share [role="status"]'))).toMatch(/^(Link copied|Copy the link from the box)\.$/);
    const url = new URL(box.value);
    expect(url.href.split('#')[0]).toBe(location.href.split('#')[0]);
    const read = readArenaSetup(setupOf(url.hash));
    expect(read.ignored).toEqual([]);
    expect(read.setup).toMatchObject({
      moveInterface: 'json',
      temperature: 0.2,
      you: 'seller',
      buyer: 'hardliner',
      scenario: { preset: 'wide', seed: 9, deadline: { kind: 'fixed', turns: 10 }, firstMover: 'buyer' },
    });
  });

  test('a tournament lesson fills the form, starts nothing, and Run starts exactly its setup', async () => {
    const classLesson = lesson('class-tournament');
    const session = new RecordingTournament();
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()), setup: setupOf(lessonHref(classLesson)) });
    expect(text(target.querySelector('aside.lesson'))).toContain('Lesson: A class tournament.');
    expect([...target.querySelectorAll('ul.agents code')].map((c) => text(c))).toEqual([
      'boulware',
      'linear',
      'conceder',
      'tit-for-tat',
      'hardliner',
      'accommodator',
      'haggler',
    ]);
    expect(control<HTMLInputElement>(target, 'Seed').value).toBe('2026');
    expect(session.started).toEqual([]);
    await userEvent.click(must(target.querySelector<HTMLButtonElement>('button.primary')));
    const { setup } = readTournamentSetup(setupOf(lessonHref(classLesson)));
    expect(session.started).toHaveLength(1);
    // The lesson's banner follows the run.
    const banner = () => text(target.querySelector('[data-testid="lesson-status"]'));
    expect(banner()).toBe('Nothing has started: press Run when ready.');
    session.status = 'running';
    await expect.poll(banner).toBe('The run is under way.');
    session.status = 'done';
    await expect.poll(banner).toBe('The run has ended: its results are below; press Run to go again.');
    expect(session.started[0]).toMatchObject({
      agents: setup.agents,
      scenariosPerPair: setup.scenariosPerPair,
      preset: setup.preset,
      seed: setup.seed,
      selfPlay: false,
      deadline: setup.deadline,
      firstMover: setup.firstMover,
    });
  });

  test('a malformed link is no error: the bad parts are named on the page and the rest is filled in', async () => {
    location.hash = '#/tournament?agent=linear&agent=%3Cimg%20src%3Dx%3E&per=lots&seed=4&turns=9';
    const target = render(App, {});
    // The Tournament page's code loads when the page is first opened.
    await vi.waitFor(() => expect(text(target.querySelector('main h1'))).toBe('Tournament'), { timeout: 10_000 });
    const notes = [...target.querySelectorAll('.ignored li')].map((li) => text(li));
    expect(notes).toEqual(['agent=“<img src=x>” (not an agent Parley knows)', 'per=“lots” (not a whole number)']);
    expect(target.querySelector('.ignored img')).toBeNull();
    expect([...target.querySelectorAll('ul.agents code')].map((c) => text(c))).toEqual(['linear']);
    expect(control<HTMLInputElement>(target, 'Seed').value).toBe('4');
    expect(control<HTMLInputElement>(target, 'Turn limit').value).toBe('9');
  });
});
