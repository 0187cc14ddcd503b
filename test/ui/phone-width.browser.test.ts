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
/**
 * Whether a box between `el` and `root` clips or scrolls it sideways. Only a box on its chain of
 * containing blocks can: an absolutely positioned element escapes the overflow of every ancestor
 * below its containing block (its offsetParent), and a fixed one escapes them all.
 */
const clipped = (el: Element, root: Element) => {
  let box: Element = el;
  for (;;) {
    const position: string = getComputedStyle(box).position;
    if (position === 'fixed') return false;
    const container: Element | null = position === 'absolute' ? (box as HTMLElement).offsetParent : box.parentElement;
    if (!container || container === root) return false;
    if (getComputedStyle(container).overflowX !== 'visible') return true;
    box = container;
  }
};
/** The innermost elements that reach past the right edge of the page, named for a failure message. */
const overflowing = (root: Element = document.body) =>
  [...root.querySelectorAll('*')]
    .filter((el) => el.getBoundingClientRect().right > WIDTH + 1 && !clipped(el, root))
    .filter((el) => ![...el.children].some((c) => c.getBoundingClientRect().right > WIDTH + 1))
    .slice(0, 6)
    .map((el) => `${el.tagName.toLowerCase()}.${el.className} “${text(el).slice(0, 40)}” ${Math.round(el.getBoundingClientRect().right)}`)
    .join('; ');
/** Whether every chart on the page has its canvas (each comes in a task of its own, after the page shows). */
const chartsShown = () => [...document.querySelectorAll('main figure.chart')].every((figure) => figure.querySelector('canvas') !== null);
/**
 * Once every chart is shown, waits until the page is no wider than the phone; on a timeout the
 * message names what is too wide then (a message given to the poll itself is built before it
 * starts). The whole body is searched: a component may append to it, outside the app's element.
 */
async function fitsWidth(where: string): Promise<void> {
  await expect.poll(chartsShown, { message: `${where}: charts shown` }).toBe(true);
  try {
    await expect.poll(pageWidth).toBeLessThanOrEqual(WIDTH);
  } catch (error) {
    throw new Error(`${where}: the page is ${pageWidth()} px wide; too wide: ${overflowing() || 'nothing found'}`, { cause: error });
  }
}

describe('at 390 px wide', () => {
  // 60 s is a limit against a hang only: nine settled pages and two games took up to 8 s on two loaded cores, near the 15 s default.
  test('no page scrolls sideways, and every header link is on screen', async () => {
    location.hash = '#/';
    const target = render(App, {});
    // What each page shows once it has settled: the run page's results mount one section per task (the head-to-head
    // last) and its negotiations load after the run; the models table comes when the WebGPU check ends.
    const pages: [hash: string, title: RegExp, ready: string[]][] = [
      ['#/', /^Parley$/, ['.glossary']],
      ['#/arena', /^Arena$/, ['.scenario-picker']],
      ['#/tournament', /^Tournament$/, ['form.config']],
      ['#/runs', /^Runs$/, ['table.runs']],
      [`#/runs/${RUNS[0]}`, /^Phone run A$/, ['table.data', '#h2h-title', 'table.list tbody tr']],
      [`#/runs/${RUNS[0]}/${jobId}`, / buys .* from /, ['.transcript']],
      [`#/compare/${RUNS[0]}/${RUNS[1]}`, /^Compare runs$/, ['table']],
      ['#/models', /^Models$/, ['[data-testid="gpu-summary"]']],
      ['#/learn', /^Learn$/, ['section']],
    ];
    for (const [hash, title, ready] of pages) {
      location.hash = hash;
      await expect.poll(heading, { message: hash }).toMatch(title);
      for (const part of ready) await expect.poll(() => target.querySelector(`main ${part}`) !== null, { message: `${hash} ${part}` }).toBe(true);
      expect(innerWidth).toBe(WIDTH);
      await fitsWidth(hash);
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
    await fitsWidth('played game');

    // A student on a phone, in the buyer's seat: the move form fits too.
    location.hash = '#/arena?you=buyer&seller=conceder&preset=standard&seed=4&turns=12&first=buyer';
    await expect.poll(() => (target.querySelector<HTMLInputElement>('input[name="arena-you"][value="buyer"]')?.checked ?? false)).toBe(true);
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Play'), 'Play'));
    await expect.poll(() => target.querySelector('main form.move-form') !== null).toBe(true);
    await fitsWidth('your seat');
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Stop'), 'Stop'));
    await expect.poll(() => text(target.querySelector('.controls [role="status"]'))).toBe('Stopped');
  }, 60_000);

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
