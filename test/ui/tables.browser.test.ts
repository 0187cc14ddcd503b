import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import HeadToHead from '../../src/ui/components/HeadToHead.svelte';
import Leaderboard from '../../src/ui/components/Leaderboard.svelte';
import type { LeaderboardRow, RateName, Standings } from '../../src/games/bilateral/aggregate';
import { cleanup, must, render, standings, text } from './helpers.svelte';

const AGENTS = ['accommodator', 'boulware', 'hardliner', 'random'];
let result: Standings;
beforeAll(async () => {
  result = await standings(AGENTS, 10);
});
afterEach(cleanup);

/** Agent and role of each body row, top to bottom. */
const order = (target: HTMLElement) =>
  [...target.querySelectorAll('tbody tr')].map((tr) => `${text(tr.querySelector('th'))}/${text(tr.querySelector('td')).toLowerCase()}`);

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** The expected order, nulls last, ties by agent then role. */
function sorted(rows: LeaderboardRow[], key: RateName, descending: boolean) {
  return rows
    .toSorted((a, b) => {
      const [x, y] = [a[key], b[key]];
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      return (descending ? y - x : x - y) || cmp(a.agent, b.agent) || cmp(a.role, b.role);
    })
    .map((r) => `${r.agent}/${r.role}`);
}

const header = (target: HTMLElement, label: string) =>
  must([...target.querySelectorAll('thead th')].find((th) => text(th.querySelector('button')).replace(/[▲▼]/, '').trim() === label) as HTMLElement, label);

describe('Leaderboard', () => {
  test('shows every agent in both roles, rates with intervals, sorted by expected share', () => {
    const target = render(Leaderboard, { rows: result.leaderboard });
    expect(order(target)).toEqual(sorted(result.leaderboard, 'expectedSurplusShare', true));
    expect(header(target, 'Expected share').getAttribute('aria-sort')).toBe('descending');
    expect(header(target, 'Deal rate').hasAttribute('aria-sort')).toBe(false);
    const row = result.leaderboard.find((r) => r.agent === 'boulware' && r.role === 'seller')!;
    const tr = must(
      [...target.querySelectorAll('tbody tr')].find((r) => text(r.querySelector('th')) === 'boulware' && text(r.querySelector('td')) === 'Seller'),
    );
    const cell = must(tr.querySelector('[data-rate="dealRate"]'));
    expect(text(cell)).toBe(`${(row.dealRate! * 100).toFixed(1)}% ${(row.ci.dealRate![0] * 100).toFixed(1)}%–${(row.ci.dealRate![1] * 100).toFixed(1)}%`);
  });

  test('a null rate, or one missing from a row stored by an older Parley, shows as a dash', () => {
    const first = result.leaderboard[0]!;
    const row = { ...first, noDealRateNoGft: null, ci: { ...first.ci, noDealRateNoGft: null } };
    const { opening: _o, patience: _p, ...old } = first;
    const target = render(Leaderboard, { rows: [row, { ...old, agent: 'old', ci: { dealRate: first.ci.dealRate } }] });
    expect(text(target.querySelector('[data-rate="noDealRateNoGft"]'))).toBe('–');
    const oldRow = must([...target.querySelectorAll('tbody tr')].find((tr) => text(tr.querySelector('th')) === 'old'));
    expect(text(oldRow.querySelector('[data-rate="opening"]'))).toBe('–');
    expect(text(oldRow.querySelector('[data-rate="patience"]'))).toBe('–');
    expect(text(oldRow.querySelector('[data-rate="concession"]'))).toBe(`${(first.concession! * 100).toFixed(1)}%`);
  });

  test('has the new measures, each explained in words that keyboard and touch users can open', async () => {
    const target = render(Leaderboard, { rows: result.leaderboard, intervals: result.intervals });
    const labels = ['No trade (no gains)', 'Walk-aways', 'Errors', 'Opening', 'Concession', 'Patience'];
    for (const label of labels) {
      const button = must(header(target, label).querySelector('button'));
      const help = must(target.querySelector(`[id="${button.getAttribute('aria-describedby')}"]`), `help for ${label}`);
      expect(help.tagName).toBe('DD');
      expect(text(help).length).toBeGreaterThan(30);
      expect(text(help.previousElementSibling)).toBe(label);
    }
    const details = must(target.querySelector('details'));
    expect(text(details.querySelector('summary'))).toBe('What the columns mean');
    must(details.querySelector('summary')).focus();
    await userEvent.keyboard('{Enter}');
    expect(details.open).toBe(true);
    expect(text(target.querySelector('caption'))).toContain('intervals over whole scenarios');
    expect(text(target.querySelector('caption'))).toContain('a bootstrap of 200 resamples where a cell has fewer than 30 scenarios');

    const row = result.leaderboard.find((r) => r.agent === 'hardliner' && r.role === 'seller')!;
    const tr = must(
      [...target.querySelectorAll('tbody tr')].find((r) => text(r.querySelector('th')) === 'hardliner' && text(r.querySelector('td')) === 'Seller'),
    );
    const first = (key: string) => text(tr.querySelector(`[data-rate="${key}"]`)).split(' ')[0];
    expect(first('opening')).toBe(`${(row.opening! * 100).toFixed(1)}%`);
    expect(first('patience')).toBe(`${(row.patience! * 100).toFixed(1)}%`);
    expect(first('walkAwayShare')).toBe(row.walkAwayShare === null ? '–' : `${(row.walkAwayShare * 100).toFixed(1)}%`);
    expect(text(tr.querySelector('[data-rate="errorRate"]'))).toMatch(new RegExp(`^${(row.errorRate! * 100).toFixed(1)}% \\(${row.errors}\\)`));
  });

  test('sorts by a behaviour measure, and error rates lowest first', async () => {
    const target = render(Leaderboard, { rows: result.leaderboard });
    await userEvent.click(must(header(target, 'Opening').querySelector('button')));
    expect(header(target, 'Opening').getAttribute('aria-sort')).toBe('descending');
    expect(order(target)).toEqual(sorted(result.leaderboard, 'opening', true));
    await userEvent.click(must(header(target, 'Errors').querySelector('button')));
    expect(header(target, 'Errors').getAttribute('aria-sort')).toBe('ascending');
    expect(order(target)).toEqual(sorted(result.leaderboard, 'errorRate', false));
  });

  test('clicking a header sorts by it and sets aria-sort; clicking again reverses', async () => {
    const target = render(Leaderboard, { rows: result.leaderboard });
    await userEvent.click(must(header(target, 'Deal rate').querySelector('button')));
    expect(header(target, 'Deal rate').getAttribute('aria-sort')).toBe('descending');
    expect(header(target, 'Expected share').hasAttribute('aria-sort')).toBe(false);
    expect(order(target)).toEqual(sorted(result.leaderboard, 'dealRate', true));
    await userEvent.click(must(header(target, 'Deal rate').querySelector('button')));
    expect(header(target, 'Deal rate').getAttribute('aria-sort')).toBe('ascending');
    expect(order(target)).toEqual(sorted(result.leaderboard, 'dealRate', false));
  });

  test('headers work from the keyboard', async () => {
    const target = render(Leaderboard, { rows: result.leaderboard });
    must(header(target, 'Agent').querySelector('button')).focus();
    await userEvent.keyboard('{Enter}');
    expect(header(target, 'Agent').getAttribute('aria-sort')).toBe('ascending');
    const agents = order(target).map((r) => r.split('/')[0]);
    expect(agents).toEqual(agents.toSorted());
  });

  test('the role filter keeps one role', async () => {
    const target = render(Leaderboard, { rows: result.leaderboard });
    expect(target.querySelectorAll('tbody tr')).toHaveLength(AGENTS.length * 2);
    await userEvent.click(must([...target.querySelectorAll('label')].find((l) => text(l) === 'Buyer')));
    flushSync();
    expect(order(target)).toEqual(
      sorted(
        result.leaderboard.filter((r) => r.role === 'buyer'),
        'expectedSurplusShare',
        true,
      ),
    );
  });
});

describe('HeadToHead', () => {
  const cell = (target: HTMLElement, buyer: string, seller: string) =>
    must(target.querySelector<HTMLElement>(`td[data-buyer="${buyer}"][data-seller="${seller}"]`), `${buyer} vs ${seller}`);

  test('a matrix of buyers against sellers with headers, values, n and empty cells for unplayed pairs', () => {
    const target = render(HeadToHead, { pairs: result.pairs, agents: AGENTS });
    expect(target.querySelectorAll('th[scope="col"]')).toHaveLength(AGENTS.length);
    expect(target.querySelectorAll('th[scope="row"]')).toHaveLength(AGENTS.length);
    const pair = result.pairs.find((p) => p.buyer === 'accommodator' && p.seller === 'hardliner')!;
    const td = cell(target, 'accommodator', 'hardliner');
    expect(text(td.querySelector('.value'))).toBe(`${Math.round(pair.dealRate! * 100)}%`);
    expect(td.getAttribute('title')).toBe(`n = ${pair.n}`);
    expect(td.style.getPropertyValue('--amount')).toBe(`${Math.round(pair.dealRate! * 100)}%`);
    expect(cell(target, 'boulware', 'boulware').classList.contains('empty')).toBe(true);
    expect(text(cell(target, 'boulware', 'boulware'))).toBe('not played');
  });

  test('the select switches the value shown', async () => {
    const target = render(HeadToHead, { pairs: result.pairs, agents: AGENTS });
    const pair = result.pairs.find((p) => p.buyer === 'boulware' && p.seller === 'accommodator')!;
    await userEvent.selectOptions(must(target.querySelector('select')), 'sellerShare');
    expect(text(cell(target, 'boulware', 'accommodator').querySelector('.value'))).toBe(
      pair.sellerShare === null ? '–' : `${Math.round(pair.sellerShare * 100)}%`,
    );
    expect(text(target.querySelector('caption'))).toMatch(/^Seller's surplus share/);
  });
});
