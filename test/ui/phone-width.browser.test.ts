/**
 * Every page at a phone's width (390 px), with its real content loaded: the page itself never
 * scrolls sideways (wide tables scroll inside their own box) and the header wraps rather than
 * cutting a link off. Content means stored tournaments' results with every chart drawn, a game's
 * negotiation, a compare of two runs (every row and differences only), the Models page's WebGPU
 * report with a custom model and a price listed, a tournament played on its page, a market played
 * and a market tournament's standings, six students' games handed in on the Class page, a game
 * played in the Arena.
 *
 * Each page is measured once it has settled: its own content marker present, every chart drawn,
 * and the document's size the same over two animation frames; then the width is read once (a
 * poll would pass on an early read taken before the widest part had mounted, which is how a real
 * 508 px overflow once hid). Every frame drawn while the page was built is watched too, so a
 * width a user would see for a moment fails as well. Controls are driven with DOM events rather
 * than userEvent: this file measures layout, and a locator made from an element can match a
 * second one that a page under load draws meanwhile; keyboard and pointer flows have their own tests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import { createRun, deleteRun, listRuns } from '../../src/storage/runs';
import { customModels } from '../../src/ui/state/custom-models.svelte';
import { deletePrice, putPrice } from '../../src/storage/prices';
import type { CustomModel } from '../../src/agents/backends/webllm/custom';
import { marketSessions } from '../../src/ui/state/market.svelte';
import { ALL_MARKET_CONFIGS } from '../../src/games/market/scenario';
import { database } from '../../src/ui/state/sim';
import { storedTournament } from '../storage/helpers';
import { HAND_IN_PATH, linkGame, resultPayload } from '../../src/storage/result-link';
import { classGames } from '../support/class-games';
import { cleanup, must, render, text } from './helpers.svelte';

const WIDTH = 390;
const RUNS = ['phone-a', 'phone-b'];
const MARKET_RUN = 'phone-market';
let jobId = '';

/** Runs stored before this file: the games it plays are deleted afterwards, these kept. */
let before = new Set<string>();
/** Runs this file plays through the pages (a tournament, a market, a market tournament), deleted afterwards. */
const played: { bilateral: string[]; market: string[] } = { bilateral: [], market: [] };
/** The Models page's content: a custom model (two long addresses in its row) and a price with a long model name. */
const CUSTOM: CustomModel = {
  name: 'Qwen3-1.7B-parley-classroom-finetune-q4f16_1-MLC',
  weightsUrl: 'https://huggingface.co/parley-lab/Qwen3-1.7B-parley-classroom-finetune-q4f16_1-MLC/resolve/main',
  libraryUrl: 'https://huggingface.co/parley-lab/Qwen3-1.7B-parley-classroom-finetune-q4f16_1-MLC/resolve/main/lib-webgpu.wasm',
  contextWindow: 4096,
};
const PRICED = 'openrouter:meta-llama/llama-3.3-70b-instruct-with-a-long-name';
/** A model of that name the user had before this file, put back afterwards. */
let customBefore: CustomModel | undefined;
/** The hour this file's handed-in class games start in (a day no other file uses), so they are deleted afterwards by time. */
const CLASS_HOUR = new Date(2031, 4, 21, 10).getTime();
const classGame = (createdAt: number) => createdAt >= CLASS_HOUR && createdAt < CLASS_HOUR + 3_600_000;

beforeAll(async () => {
  await page.viewport(WIDTH, 844);
  before = new Set((await database().runs.toArray()).map((r) => r.id));
  const { rows } = await storedTournament(database(), { id: RUNS[0], name: 'Phone run A', rows: 12 });
  await storedTournament(database(), { id: RUNS[1], name: 'Phone run B', createdAt: 5_000 });
  jobId = String(rows[0]?.jobId);
  // A market run too (shown as interrupted, with Resume: its widest row), so the Runs page's second table is measured.
  await createRun(database(), {
    game: 'market',
    id: MARKET_RUN,
    name: 'Phone market run',
    config: {
      sellers: ['catalog', 'greedy'],
      buyer: 'margin',
      configs: ALL_MARKET_CONFIGS.slice(0, 2).map((c) => ({ ...c })),
      marketsPerConfig: 4,
      seed: 3,
      samples: 0,
    },
    planned: 16,
    createdAt: 6_000,
  });
  // Through the page's own list, which reads the stored one once a page: a file before this one in the same page may have read it.
  await customModels.load();
  customBefore = customModels.list.find((m) => m.name === CUSTOM.name);
  if (!(await customModels.add(CUSTOM))) throw new Error(`custom model not added: ${customModels.error}`);
  await putPrice(database(), PRICED, { inputPerMTok: 0.13, outputPerMTok: 0.4 });
});
afterEach(cleanup);
afterAll(async () => {
  cleanup();
  location.hash = '';
  // Only this file's own game: other files may be storing runs in the same database meanwhile.
  for (const run of await listRuns(database()))
    if (!before.has(run.id) && run.config.kind === 'arena' && run.config.scenario.id === 'standard-4-0' && run.config.buyer === 'boulware')
      await deleteRun(database(), run.id);
  for (const id of [...RUNS, ...played.bilateral]) await deleteRun(database(), id);
  for (const id of [MARKET_RUN, ...played.market]) await deleteRun(database(), id);
  for (const run of await database().runs.toArray()) if (classGame(run.createdAt)) await deleteRun(database(), run.id);
  await (customBefore ? customModels.add(customBefore) : customModels.remove(CUSTOM.name));
  await deletePrice(database(), PRICED);
});

const heading = () => text(document.querySelector('main h1'));
const pageWidth = () => must(document.scrollingElement).scrollWidth;
const pageSize = () => `${pageWidth()} × ${must(document.scrollingElement).scrollHeight}`;
const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
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
/** Whether every chart on the page is drawn, data and all (each comes in a task of its own, after the page shows). */
const chartsShown = () => [...document.querySelectorAll('main figure.chart')].every((figure) => figure.querySelector('canvas[data-chart-ready]') !== null);
/** `selector` is present in main. */
const present = (selector: string) => () => document.querySelector(`main ${selector}`) !== null;

/**
 * Watches every frame drawn from now until `stop`: the widest the document was in any of them,
 * and what reached past the edge then (read in the frame's own layout, before it is painted).
 */
function watchFrames(): { stop: () => { widest: number; culprits: string } } {
  let widest = 0;
  let culprits = '';
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    const width = pageWidth();
    if (width > widest) {
      widest = width;
      if (width > WIDTH) culprits = overflowing();
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return {
    stop: () => {
      stopped = true;
      return { widest, culprits };
    },
  };
}

/**
 * Waits until the page has settled (`ready` holds, every chart is drawn, the document's size is
 * the same over two animation frames), then reads its width once; it fails too if any frame
 * drawn since `watch` began was wider than the phone. Time limits are against a hang only.
 */
async function fits(where: string, ready: () => boolean, watch: ReturnType<typeof watchFrames>): Promise<void> {
  await document.fonts.ready;
  await expect
    .poll(
      async () => {
        if (!ready() || !chartsShown()) return false;
        const first = pageSize();
        await frame();
        const second = pageSize();
        await frame();
        return ready() && chartsShown() && second === first && pageSize() === first;
      },
      { message: `${where}: settled (content shown, charts drawn, size stable)`, timeout: 20_000 },
    )
    .toBe(true);
  const seen = watch.stop();
  expect(innerWidth).toBe(WIDTH);
  const width = pageWidth();
  if (width > WIDTH) throw new Error(`${where}: the page is ${width} px wide once settled; too wide: ${overflowing() || 'nothing found'}`);
  if (seen.widest > WIDTH)
    throw new Error(`${where}: a frame drawn while it was built was ${seen.widest} px wide; too wide then: ${seen.culprits || 'nothing found'}`);
}

/** Goes to `hash` and checks the page once settled, watching every frame of its build. */
async function visit(hash: string, title: RegExp, ready: () => boolean): Promise<void> {
  const watch = watchFrames();
  location.hash = hash;
  await expect.poll(heading, { message: hash, timeout: 10_000 }).toMatch(title);
  await fits(hash, ready, watch);
}

const button = (name: string | RegExp) =>
  must(
    [...document.querySelectorAll<HTMLButtonElement>('main button')].find((b) => (typeof name === 'string' ? text(b) === name : name.test(text(b)))),
    String(name),
  );
/** The select whose label starts with `label`, set to the option shown as `option`. */
function choose(label: string, option: string): void {
  const select = must([...document.querySelectorAll('main label')].find((l) => text(l).startsWith(label))?.querySelector('select'), label);
  select.value = must(
    [...select.options].find((o) => text(o) === option),
    option,
  ).value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}
function fill(label: string, value: string): void {
  const input = must(
    [...document.querySelectorAll<HTMLLabelElement>('main label')].find((l) => text(l) === label),
    label,
  ).control as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

describe('at 390 px wide', () => {
  // 90 s is a limit against a hang only: ten settled pages and two games took up to 8 s on two loaded cores.
  test('no page scrolls sideways, and every header link is on screen', async () => {
    location.hash = '#/';
    const target = render(App, {});
    const webgpuRows = () => [...document.querySelectorAll('main section[aria-labelledby="webgpu-heading"] tbody tr')];
    // What each page shows once it has settled: the run page's results mount one section per task (the head-to-head
    // last) and its negotiations load after the run; the models tables come when the WebGPU check and the cache answer.
    const pages: [hash: string, title: RegExp, ready: () => boolean][] = [
      ['#/', /^Parley$/, present('.glossary')],
      ['#/arena', /^Arena$/, present('.scenario-picker')],
      ['#/tournament', /^Tournament$/, present('form.config')],
      ['#/market', /^Market$/, present('form[aria-label="Market tournament settings"]')],
      ['#/runs', /^Runs$/, present('table.runs')],
      [`#/runs/${RUNS[0]}`, /^Phone run A$/, () => present('table.data')() && present('#h2h-title')() && present('table.list tbody tr')()],
      [`#/runs/${RUNS[0]}/${jobId}`, / buys .* from /, present('.transcript')],
      [`#/compare/${RUNS[0]}/${RUNS[1]}`, /^Compare runs$/, () => document.querySelectorAll('main tbody[data-seat]').length === 8],
      [
        '#/models',
        /^Models$/,
        () =>
          present('[data-testid="gpu-summary"]')() &&
          webgpuRows().length === 4 &&
          webgpuRows().every((r) => !['', '…'].includes(text(r.children[4]))) &&
          present(`tr[data-custom-model="${CUSTOM.name}"]`)() &&
          text(document.querySelector('main')).includes(PRICED),
      ],
      ['#/learn', /^Learn$/, present('section')],
    ];
    for (const [hash, title, ready] of pages) {
      await visit(hash, title, ready);
      for (const link of target.querySelectorAll('header a')) {
        const box = link.getBoundingClientRect();
        expect([box.left >= 0, box.right <= WIDTH], `${hash}: ${text(link)}`).toEqual([true, true]);
      }
    }

    // A game played to its end: the transcript, the chart and the outcome fit too.
    location.hash = '#/arena?you=none&buyer=boulware&seller=conceder&preset=standard&seed=4&turns=12&first=seller';
    await expect.poll(heading).toBe('Arena');
    choose('Speed', 'Instant');
    let watch = watchFrames();
    button('Play').click();
    await fits('played game', present('.outcome'), watch);

    // A student on a phone, in the buyer's seat: the move form fits too.
    location.hash = '#/arena?you=buyer&seller=conceder&preset=standard&seed=4&turns=12&first=buyer';
    await expect.poll(() => target.querySelector<HTMLInputElement>('input[name="arena-you"][value="buyer"]')?.checked ?? false).toBe(true);
    watch = watchFrames();
    button('Play').click();
    await fits('your seat', present('form.move-form'), watch);
    button('Stop').click();
    await expect.poll(() => text(target.querySelector('.controls [role="status"]'))).toBe('Stopped');
  }, 90_000);

  // 120 s is a limit against a hang only: a tournament, a market and a market tournament played, a class handed in, through the pages.
  test("with content played on the pages: a tournament's results, a compare's differences, a market and its tournament, a class's games", async () => {
    const target = render(App, {});

    // A tournament played on the Tournament page, its results drawn there.
    location.hash = '#/tournament?agent=boulware&agent=conceder&agent=hardliner&agent=tit-for-tat&per=1&seed=5';
    await expect.poll(() => target.querySelectorAll('main ul.agents li').length).toBe(4);
    let watch = watchFrames();
    button(/^Run \d+ negotiations$/).click();
    const progress = () => target.querySelector('main section[aria-label="Progress"] [role="status"]');
    await expect.poll(() => text(progress()), { timeout: 30_000 }).toContain('Finished.');
    const link = must(progress()?.querySelector<HTMLAnchorElement>('a[href^="#/runs/"]'), 'run link');
    played.bilateral.push(decodeURIComponent(link.getAttribute('href')?.slice('#/runs/'.length) ?? ''));
    await fits('tournament results', () => present('#h2h-title')() && target.querySelectorAll('main figure.chart').length > 4, watch);

    // Compare, with differences only.
    await visit(`#/compare/${RUNS[0]}/${RUNS[1]}`, /^Compare runs$/, () => target.querySelectorAll('main tbody[data-seat]').length === 8);
    watch = watchFrames();
    must(target.querySelector<HTMLInputElement>('main input[type="radio"][value="values"]')).click();
    await fits('compare, differences only', () => /rows differ/.test(text(target.querySelector('main .count'))), watch);

    // A market played to its end, then a market tournament with its standings.
    await visit('#/market', /^Market$/, present('form[aria-label="Market settings"]'));
    const { game, tournament } = marketSessions();
    choose('Speed', 'Fast');
    watch = watchFrames();
    must(target.querySelector<HTMLButtonElement>('form[aria-label="Market settings"] button[type="submit"]')).click();
    await expect.poll(() => text(target.querySelector('.controls [role="status"]')), { timeout: 30_000 }).toBe('Finished');
    if (game.runId) played.market.push(game.runId);
    await fits('market played', () => present('.allocation-table tbody tr')() && present('.market-metrics')(), watch);
    fill('Markets per configuration', '2');
    watch = watchFrames();
    must(target.querySelector<HTMLButtonElement>('form[aria-label="Market tournament settings"] button[type="submit"]')).click();
    await expect.poll(() => tournament.status, { timeout: 30_000 }).toBe('done');
    if (tournament.runId) played.market.push(tournament.runId);
    await fits('market tournament', present('.market-standings tr[data-seller]'), watch);

    // The market tournament's own run page.
    // Its title is the run's name; the Market page it leaves has standings too, so the title tells the pages apart.
    await visit(`#/runs/${tournament.runId}`, /^(?!Market$)./, present('.market-standings tr[data-seller]'));

    // The Class page with six students' games handed in as result links: the report, the roster and the ranking.
    const games = await classGames(6, CLASS_HOUR);
    const links = await Promise.all(
      games.map(async (g) => {
        const game = linkGame(g.run, g.row);
        if (!game) throw new Error(`${g.run.name}: no result link`);
        return `${location.origin}/${HAND_IN_PATH}${await resultPayload(game)}`;
      }),
    );
    await visit('#/class', /^Class$/, present('textarea'));
    const box = must(
      [...target.querySelectorAll<HTMLLabelElement>('main label')].find((l) => text(l) === 'Result links'),
      'Result links',
    ).control as HTMLTextAreaElement;
    box.value = links.join('\n');
    box.dispatchEvent(new Event('input', { bubbles: true }));
    const handIn = button('Hand in these links');
    // Enabled once the pasted text is rendered into the form's state.
    await expect.poll(() => handIn.disabled).toBe(false);
    watch = watchFrames();
    handIn.click();
    await fits(
      'class page',
      () =>
        text(target.querySelector('main [data-testid="hand-in-summary"]')) === '6 handed in: 6 imported.' &&
        target.querySelectorAll('main table.ranking tbody tr').length === 7,
      watch,
    );
  }, 120_000);

  test('"Skip to content" moves the focus to the main content, with no "Page not found"', async () => {
    location.hash = '#/tournament';
    const target = render(App, {});
    const skip = must(
      [...target.querySelectorAll('a')].find((a) => text(a) === 'Skip to content'),
      'skip link',
    );
    skip.focus();
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => document.activeElement).toBe(target.querySelector('main'));
    expect(location.hash).toBe('#/tournament');
    expect(text(target)).not.toContain('Page not found');
  });
});
