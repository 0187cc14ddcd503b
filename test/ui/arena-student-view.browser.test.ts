/**
 * What a student sees on a lesson link, at 390 × 844: no language-model settings while no model
 * plays, no "Spec: …" line until Advanced is opened, and ? buttons that each show and name the
 * term they explain (never "Terms: ? ? ?"), before and after the game.
 */
import { afterAll, afterEach, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import { lessonById } from '../../src/ui/lessons';
import { lessonHref } from '../../src/ui/share-link';
import { cleanup, control, must, render, text } from './helpers.svelte';
import { deleteArenaGamesAfterAll, button, given, yourTurn } from './arena-seat-helpers';

deleteArenaGamesAfterAll();
afterEach(cleanup);
afterAll(() => {
  location.hash = '';
});

/** Every ? button: its visible words and its accessible name. */
const helps = (root: Element) =>
  [...root.querySelectorAll<HTMLButtonElement>('button.help-button')].map((b) => ({
    shown: text(b.querySelector('.term')),
    name: b.getAttribute('aria-label') ?? '',
  }));

test('a lesson link: no model settings, the spec under Advanced, each ? button with its term', async () => {
  await page.viewport(390, 844);
  location.hash = lessonHref(given(lessonById('anchoring')));
  const target = render(App, {});
  await vi.waitFor(() => must(target.querySelector('[aria-label="Ready to play"]')), { timeout: 10_000 });
  // The student opens the folded setup: the bot's seat is there, but no model settings and no spec in sight.
  await userEvent.click(must([...target.querySelectorAll('summary')].find((s) => text(s) === 'Set up the game')));
  expect(() => control(target, 'Moves as')).toThrow();
  expect(() => control(target, 'Temperature')).toThrow();
  const specs = [...target.querySelectorAll('.spec')];
  expect(specs.length).toBeGreaterThan(0);
  for (const spec of specs) expect(spec.checkVisibility(), text(spec)).toBe(false);
  const advanced = must(specs[0]?.closest('details'));
  await userEvent.click(must(advanced.querySelector('summary')));
  expect(specs[0]?.checkVisibility()).toBe(true);
  expect(text(specs[0])).toMatch(/^Spec: \S+/);

  // Play to the end (walk away at once): the outcome's terms each carry their name.
  await userEvent.click(button(target, 'Play'));
  await yourTurn(target);
  await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
  while ((document.activeElement as HTMLInputElement).value !== 'walk_away') await userEvent.keyboard('{ArrowDown}');
  await userEvent.keyboard('{Enter}');
  await vi.waitFor(() => must(target.querySelector('.terms')), { timeout: 10_000 });
  const terms = must(target.querySelector<HTMLElement>('.terms'));
  expect(helps(terms).map((h) => h.shown)).toEqual(['Surplus share', 'Individual rationality', 'Gains from trade']);
  // As read on screen (the explanations folded): each ? beside its term.
  expect(terms.innerText.replace(/\s+/g, ' ').trim()).toBe('Terms: ? Surplus share ? Individual rationality ? Gains from trade');
  expect(helps(terms).map((h) => h.name)).toEqual(['What is Surplus share?', 'What is Individual rationality (IR)?', 'What is Gains from trade?']);
  // Everywhere on the page: every ? button shows words, and its name is "What is <those words…>?".
  const all = helps(target);
  expect(all.length).toBeGreaterThan(3);
  for (const { shown, name } of all) {
    expect(shown, name).not.toBe('');
    expect(name.startsWith(`What is ${shown}`), `${name} / ${shown}`).toBe(true);
  }
});
