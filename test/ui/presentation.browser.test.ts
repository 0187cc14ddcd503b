/**
 * Presentation mode on a projector's 1366 × 768: the setup folded away, large type, and the
 * transcript's last turn, the chart and the outcome all on the one screen, no scrolling.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import { PRESENTATION_KEY, Presentation, presentation } from '../../src/ui/state/presentation.svelte';
import { deleteRun, listRuns } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';
import { cleanup, must, render, text } from './helpers.svelte';
import { inView } from './arena-seat-helpers';

/** Runs stored before this file: the game it plays is deleted afterwards, these kept. */
let before = new Set<string>();
beforeAll(async () => {
  await page.viewport(1366, 768);
  before = new Set((await database().runs.toArray()).map((r) => r.id));
});
// Each test opens the app afresh, in either order: the app before it unmounted, presentation mode off (one test leaves it on).
afterEach(() => {
  cleanup();
  presentation.set(false);
});
afterAll(async () => {
  // Only this file's own game: other files may be storing runs in the same database meanwhile.
  for (const run of await listRuns(database()))
    if (!before.has(run.id) && run.config.kind === 'arena' && run.config.scenario.id === 'standard-2-0' && run.config.buyer === 'boulware')
      await deleteRun(database(), run.id);
  presentation.set(false);
  localStorage.removeItem(PRESENTATION_KEY);
  location.hash = '';
});

const button = (root: Element, name: string) =>
  must(
    [...root.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );

describe('presentation mode', () => {
  test('kept in localStorage; the transcript, the chart and the outcome fit one 1366 × 768 screen', async () => {
    location.hash = '#/arena?you=none&buyer=boulware&seller=conceder&preset=standard&seed=2&turns=20&first=seller';
    const target = render(App, {});
    const toggle = button(target, 'Presentation mode');
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    // The Arena's code loads when the page is first opened.
    const fold = await vi.waitFor(() => must(target.querySelector<HTMLDetailsElement>('details.setup-fold')), { timeout: 10_000 });
    expect(fold.open).toBe(true);
    const normalType = parseFloat(getComputedStyle(document.body).fontSize);

    await userEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(localStorage.getItem(PRESENTATION_KEY)).toBe('on');
    expect(fold.open).toBe(false);
    expect(parseFloat(getComputedStyle(document.body).fontSize)).toBeGreaterThanOrEqual(normalType * 1.3);

    const speed = must([...target.querySelectorAll('label')].find((l) => text(l).startsWith('Speed'))?.querySelector('select'), 'speed');
    await userEvent.selectOptions(speed, 'Instant');
    await userEvent.click(button(target, 'Play'));
    await expect.poll(() => target.querySelector('main .outcome') !== null).toBe(true);
    // Let the transcript follow to its last turn and the chart draw, then look from the top of the page.
    await expect.poll(() => target.querySelector('main canvas') !== null).toBe(true);
    const turns = target.querySelectorAll('.transcript li');
    expect(turns.length).toBeGreaterThan(3);
    const where = (el: Element | null | undefined) => JSON.stringify(el?.getBoundingClientRect());
    // The transcript follows the game to its last turn (a smooth scroll, so it may take a moment); the page itself stays at its top.
    await expect
      .poll(
        () => {
          window.scrollTo(0, 0);
          return inView(must(turns[turns.length - 1]));
        },
        { message: `last turn ${where(turns[turns.length - 1])}` },
      )
      .toBe(true);
    expect(inView(must(target.querySelector('main canvas')))).toBe(true);
    expect(inView(must(target.querySelector('main .outcome'))), where(target.querySelector('main .outcome'))).toBe(true);
    expect(must(document.scrollingElement).scrollWidth).toBeLessThanOrEqual(1366);
  });

  test('opens in presentation mode when it was left on', async () => {
    presentation.set(true);
    expect(new Presentation().on).toBe(true);
    location.hash = '#/arena';
    const target = render(App, {});
    expect(button(target, 'Presentation mode').getAttribute('aria-pressed')).toBe('true');
    expect(document.documentElement.classList.contains('presenting')).toBe(true);
    const fold = await vi.waitFor(() => must(target.querySelector<HTMLDetailsElement>('details.setup-fold')), { timeout: 10_000 });
    expect(fold.open).toBe(false);
  });
});
