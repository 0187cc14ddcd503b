/**
 * The Arena on one screen, the whole app rendered: in presentation mode with the teacher in a seat,
 * the value panel, the transcript, the chart and the move form fit 1366 × 768 with no scrolling,
 * and the lesson banner follows the game to its end; a lesson link on a 390 × 844 phone shows the
 * role, the value and Play in the first screen; the value and turns left stay in sight while the
 * student types with the phone's keyboard open. By keyboard and by touch.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import { PRESENTATION_KEY, presentation } from '../../src/ui/state/presentation.svelte';
import { lessonById } from '../../src/ui/lessons';
import { lessonHref } from '../../src/ui/share-link';
import { deleteRun, listRuns } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';
import { cleanup, control, must, render, text } from './helpers.svelte';
import { button, given, inView, insertText, SETUP, tabTo, tap, where, yourTurn, type Input } from './arena-seat-helpers';

let before = new Set<string>();
beforeAll(async () => {
  before = new Set((await database().runs.toArray()).map((r) => r.id));
});
afterEach(async () => {
  try {
    // The app's Arena session outlives its page: a game left playing is stopped, so the next test starts from none.
    const stop = [...document.querySelectorAll<HTMLButtonElement>('.controls button')].find((b) => text(b) === 'Stop');
    if (stop && !stop.disabled && /^Playing|^Paused/.test(text(document.querySelector('.controls [role="status"]')))) {
      stop.click();
      await expect.poll(() => text(document.querySelector('.controls [role="status"]'))).toMatch(/^(Stopped|Finished)$/);
    }
  } finally {
    cleanup();
  }
});
afterAll(async () => {
  for (const run of await listRuns(database())) if (!before.has(run.id) && run.config.kind === 'arena') await deleteRun(database(), run.id);
  presentation.set(false);
  localStorage.removeItem(PRESENTATION_KEY);
  location.hash = '';
});

const anchoring = () => lessonHref(given(lessonById('anchoring')));
const status = (target: HTMLElement) => text(target.querySelector('[data-testid="lesson-status"]'));

async function press(target: HTMLElement, input: Input, name: string): Promise<void> {
  const el = button(target, name);
  if (input === 'touch') return tap(el);
  await tabTo(el);
  await userEvent.keyboard('{Enter}');
}

describe('presentation mode, the teacher seated, at 1366 × 768', () => {
  test.each([
    ['a link of its own', () => `#/arena?${SETUP('buyer', 'linear')}`, 'keyboard'],
    ['the anchoring lesson', anchoring, 'keyboard'],
    ['the anchoring lesson', anchoring, 'touch'],
  ] as const)('from %s, by %s: value panel, transcript, chart and move form on one screen; the banner follows the game', async (_, hash, input) => {
    await page.viewport(1366, 768);
    presentation.set(true);
    location.hash = hash();
    const target = render(App, {});
    // The Arena's code loads when the page is first opened.
    await vi.waitFor(() => must(target.querySelector('[aria-label="Ready to play"]')), { timeout: 10_000 });
    const lesson = hash === anchoring;
    if (lesson) expect(status(target)).toBe('Nothing has started: press Play when ready.');
    await press(target, input, 'Play');
    for (const price of ['40', '45', '50']) {
      await yourTurn(target);
      if (input === 'keyboard') await userEvent.keyboard(`${price}{Enter}`);
      else {
        await insertText(price);
        await tap(button(target, 'Send move'));
      }
      await vi.waitFor(() => expect(target.querySelector('.move-form fieldset')?.hasAttribute('disabled')).toBe(true));
    }
    await yourTurn(target);
    window.scrollTo(0, 0);
    const parts = {
      value: must(target.querySelector('[data-testid="seat-glance"]')),
      transcript: must(target.querySelector('section.transcript')),
      chart: must(target.querySelector('section.chart')),
      form: must(target.querySelector('form.move-form')),
    };
    for (const [name, el] of Object.entries(parts)) expect(inView(el), `${name}: ${where(el)}`).toBe(true);
    // The newest turn is in the transcript's own box, and the page itself has nothing to scroll.
    const turns = parts.transcript.querySelectorAll('li');
    await expect.poll(() => inView(must(turns[turns.length - 1])), { message: where(turns[turns.length - 1]) }).toBe(true);
    const page_ = must(document.scrollingElement);
    expect(page_.scrollHeight, `page ${page_.scrollHeight} px tall`).toBeLessThanOrEqual(innerHeight);
    expect(page_.scrollWidth).toBeLessThanOrEqual(innerWidth);
    expect(text(parts.value)).toMatch(/^You are the (buyer|seller) Your (value|cost) \(private\) \$[\d,.]+ turn \d+ of [\d–]+, [\d to]+ of yours left$/);
    if (lesson) expect(status(target)).toBe('The game is under way.');

    // Walking away ends it: the banner says so (never "Nothing has started" after a game).
    if (input === 'keyboard') {
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
      await userEvent.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
      expect((document.activeElement as HTMLInputElement).value).toBe('walk_away');
      await userEvent.keyboard('{Enter}');
    } else {
      await tap(control<HTMLInputElement>(target, 'Walk away (no deal)'));
      await tap(button(target, 'Send move'));
    }
    await expect.poll(() => text(target.querySelector('.controls [role="status"]')), { timeout: 10_000 }).toBe('Finished');
    if (lesson) expect(status(target)).toBe('The game has ended: its results are below; press Play to go again.');
  });
});

describe('a lesson link on a 390 × 844 phone', () => {
  beforeAll(() => presentation.set(false));

  test.each(['keyboard', 'touch'] as const)('by %s: role, value and Play in the first screen; the value in sight while typing', async (input) => {
    await page.viewport(390, 844);
    location.hash = anchoring();
    const target = render(App, {});
    await vi.waitFor(() => must(target.querySelector('[aria-label="Ready to play"]')), { timeout: 10_000 });
    window.scrollTo(0, 0);
    const ready = must(target.querySelector('[aria-label="Ready to play"]'));
    const play = button(target, 'Play');
    expect(text(ready)).toMatch(/^You are the buyer\. Your value \(private\): \$[\d,.]+\. Item: .+, list price \$[\d,.]+\.$/);
    expect(inView(ready), where(ready)).toBe(true);
    expect(inView(play), where(play)).toBe(true);
    expect(status(target)).toBe('Nothing has started: press Play when ready.');
    const value = text(target.querySelector('[data-testid="ready-value"]'));
    await press(target, input, 'Play');

    // The phone's keyboard takes half the screen (the layout shrinks to what is left, as
    // interactive-widget=resizes-content asks): the value and turns left stay in the top line.
    const price = await yourTurn(target);
    await page.viewport(390, 420);
    price.scrollIntoView({ block: 'center' });
    if (input === 'keyboard') await userEvent.keyboard('12');
    else await insertText('12');
    expect(price.value).toBe('12');
    const glance = must(target.querySelector('[data-testid="seat-glance"]'));
    await expect.poll(() => inView(glance), { message: where(glance) }).toBe(true);
    expect(inView(price), where(price)).toBe(true);
    expect(text(glance.querySelector('[data-testid="your-value"]'))).toBe(value);
    expect(text(glance)).toMatch(/turn \d+ of [\d–]+, [\d to]+ of yours left$/);
    // Compact: the line takes less than a quarter of the space left.
    expect(glance.getBoundingClientRect().height).toBeLessThan(innerHeight / 4);
    await page.viewport(390, 844);
  });
});
