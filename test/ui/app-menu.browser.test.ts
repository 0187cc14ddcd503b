/** The header's menu and the tab's title, both read from the router's one list of pages. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import App from '../../src/ui/App.svelte';
import { cleanup, render, text } from './helpers.svelte';

afterEach(() => {
  cleanup();
  location.hash = '';
});

const menu = (target: HTMLElement) => [...target.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Pages"] a')];
const currentEntry = (target: HTMLElement) =>
  menu(target)
    .filter((a) => a.getAttribute('aria-current') === 'page')
    .map((a) => text(a));

describe('the menu', () => {
  it('lists every page in order, marks the one shown (Runs for a run or a comparison), and titles the tab', async () => {
    location.hash = '#/arena';
    const target = render(App, {});
    expect(menu(target).map((a) => [text(a), a.getAttribute('href')])).toEqual([
      ['Home', '#/'],
      ['Arena', '#/arena'],
      ['Tournament', '#/tournament'],
      ['Market', '#/market'],
      ['Runs', '#/runs'],
      ['Class', '#/class'],
      ['Learn', '#/learn'],
      ['Models', '#/models'],
    ]);
    expect(currentEntry(target)).toEqual(['Arena']);
    await vi.waitFor(() => expect(document.title).toBe('Arena · Parley'));
    for (const [hash, entry, title] of [
      ['#/runs/some-run', 'Runs', 'Run · Parley'],
      ['#/compare/a/b', 'Runs', 'Compare runs · Parley'],
      ['#/class', 'Class', 'Class · Parley'],
      ['#/nowhere', null, 'Not found · Parley'],
    ] as const) {
      location.hash = hash;
      await vi.waitFor(() => expect(document.title).toBe(title));
      expect(currentEntry(target)).toEqual(entry === null ? [] : [entry]);
    }
  });
});
