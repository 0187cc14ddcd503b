/**
 * Every page at a phone's width (390 px): the page itself never scrolls sideways (wide tables
 * scroll inside their own box) and the header wraps rather than cutting a link off.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import { deleteRun } from '../../src/storage/runs';
import { createMarketRun, deleteMarketRun } from '../../src/storage/market-runs';
import { ALL_MARKET_CONFIGS } from '../../src/core/market/scenario';
import { database } from '../../src/ui/state/sim';
import { storedTournament } from '../storage/helpers';
import { cleanup, must, render, text } from './helpers.svelte';

const WIDTH = 390;
const RUNS = ['phone-a', 'phone-b'];
const MARKET_RUN = 'phone-market';
let jobId = '';

/** Runs stored before this file: the games it plays are deleted afterwards, these kept. */
let before = new Set<string>();

beforeAll(async () => {
  await page.viewport(WIDTH, 844);
  before = new Set((await database().runs.toArray()).map((r) => r.id));
  const { rows } = await storedTournament(database(), { id: RUNS[0], name: 'Phone run A', rows: 12 });
  await storedTournament(database(), { id: RUNS[1], name: 'Phone run B', createdAt: 5_000 });
  jobId = String(rows[0]?.jobId);
  // A market run too (shown as interrupted, with Resume: its widest row), so the Runs page's second table is measured.
  await createMarketRun(database(), {
    id: MARKET_RUN,
    name: 'Phone market run',
    config: { sellers: ['catalog', 'greedy'], buyer: 'margin', configs: ALL_MARKET_CONFIGS.slice(0, 2).map((c) => ({ ...c })), marketsPerConfig: 4, seed: 3, samples: 0 },
    planned: 16,
    createdAt: 6_000,
  });
});
afterAll(async () => {
  cleanup();
  location.hash = '';
  // Only this file's own game: other files may be storing runs in the same database meanwhile.
  for (const run of await database().runs.toArray())
    if (!before.has(run.id) && run.config.kind === 'arena' && run.config.scenario.id === 'standard-4-0' && run.config.buyer === 'boulware')
      await deleteRun(database(), run.id);
  for (const id of RUNS) await deleteRun(database(), id);
  await deleteMarketRun(database(), MARKET_RUN);
});

const heading = () => text(document.querySelector('main h1'));
const pageWidth = () => must(document.scrollingElement).scrollWidth;
/** Whether a box between `el` and `root` clips or scrolls its content sideways. */
const clipped = (el: Element, root: Element) => {
  for (let a = el.parentElement; a && a !== root; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
  return false;
};
/** The innermost elements that reach past the right edge of the page, named for a failure message. */
const overflowing = (root: Element) =>
  [...root.querySelectorAll('*')]
    .filter((el) => el.getBoundingClientRect().right > WIDTH + 1 && !clipped(el, root))
    .filter((el) => ![...el.children].some((c) => c.getBoundingClientRect().right > WIDTH + 1))
    .slice(0, 6)
    .map((el) => `${el.tagName.toLowerCase()}.${el.className} “${text(el).slice(0, 40)}” ${Math.round(el.getBoundingClientRect().right)}`)
    .join('; ');

describe('at 390 px wide', () => {
  test('no page scrolls sideways, and every header link is on screen', async () => {
    location.hash = '#/';
    const target = render(App, {});
    const pages: [hash: string, title: RegExp, ready: string][] = [
      ['#/', /^Parley$/, '.glossary'],
      ['#/arena', /^Arena$/, '.scenario-picker'],
      ['#/tournament', /^Tournament$/, 'form.config'],
      ['#/runs', /^Runs$/, 'table.runs'],
      [`#/runs/${RUNS[0]}`, /^Phone run A$/, 'table.data'],
      [`#/runs/${RUNS[0]}/${jobId}`, / buys .* from /, '.transcript'],
      [`#/compare/${RUNS[0]}/${RUNS[1]}`, /^Compare runs$/, 'table'],
      ['#/models', /^Models$/, 'section'],
      ['#/learn', /^Learn$/, 'section'],
    ];
    for (const [hash, title, ready] of pages) {
      location.hash = hash;
      await expect.poll(heading, { message: hash }).toMatch(title);
      await expect.poll(() => target.querySelector(`main ${ready}`) !== null, { message: `${hash} ${ready}` }).toBe(true);
      expect(innerWidth).toBe(WIDTH);
      // Charts are built one per task after the page shows, so its width is read once it has settled.
      await expect.poll(pageWidth, { message: `${hash}: ${overflowing(target)}` }).toBeLessThanOrEqual(WIDTH);
      for (const link of target.querySelectorAll('header a')) {
        const box = link.getBoundingClientRect();
        expect([box.left >= 0, box.right <= WIDTH], `${hash}: ${text(link)}`).toEqual([true, true]);
      }
    }

    // A game played to its end: the transcript, the chart and the outcome fit too.
    location.hash = '#/arena?you=none&buyer=boulware&seller=conceder&preset=standard&seed=4&turns=12&first=seller';
    await expect.poll(heading).toBe('Arena');
    const speed = must([...target.querySelectorAll('label')].find((l) => text(l).startsWith('Speed'))?.querySelector('select'), 'speed');
    await userEvent.selectOptions(speed, 'Instant');
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Play'), 'Play'));
    await expect.poll(() => target.querySelector('main .outcome') !== null).toBe(true);
    await expect.poll(pageWidth, { message: `played game: ${overflowing(target)}` }).toBeLessThanOrEqual(WIDTH);

    // A student on a phone, in the buyer's seat: the move form fits too.
    location.hash = '#/arena?you=buyer&seller=conceder&preset=standard&seed=4&turns=12&first=buyer';
    await expect.poll(() => (target.querySelector<HTMLInputElement>('input[name="arena-you"][value="buyer"]')?.checked ?? false)).toBe(true);
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Play'), 'Play'));
    await expect.poll(() => target.querySelector('main form.move-form') !== null).toBe(true);
    await expect.poll(pageWidth, { message: `your seat: ${overflowing(target)}` }).toBeLessThanOrEqual(WIDTH);
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Stop'), 'Stop'));
    await expect.poll(() => text(target.querySelector('.controls [role="status"]'))).toBe('Stopped');
  });

  test('"Skip to content" moves the focus to the main content, with no "Page not found"', async () => {
    location.hash = '#/tournament';
    const target = render(App, {});
    const skip = must([...target.querySelectorAll('a')].find((a) => text(a) === 'Skip to content'), 'skip link');
    skip.focus();
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => document.activeElement).toBe(target.querySelector('main'));
    expect(location.hash).toBe('#/tournament');
    expect(text(target)).not.toContain('Page not found');
  });
});
