import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { flushSync } from 'svelte';
import { page } from 'vitest/browser';
import '../../src/ui/theme.css';
import Results from '../../src/ui/pages/Results.svelte';
import TournamentPage from '../../src/ui/pages/TournamentPage.svelte';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { freshDb } from '../storage/helpers';
import { cleanup, must, render, standings, text } from './helpers.svelte';

afterEach(cleanup);

const WIDTH = 1280;
beforeAll(() => page.viewport(WIDTH, 800));

const AGENTS = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator'];
const columns = (target: HTMLElement) => [...target.querySelectorAll('.head-to-head thead th')].map((th) => text(th));

describe('the head-to-head matrix', () => {
  test('at 1280 px six agents fit whole in its box (which would scroll, were they more); the page does not scroll sideways', async () => {
    const target = render(Results, { standings: await standings(AGENTS, 2), agents: AGENTS });
    const box = await vi.waitFor(() => must(target.querySelector<HTMLElement>('.head-to-head .scroll')));
    expect(innerWidth).toBe(WIDTH);
    expect(getComputedStyle(box).overflowX).toBe('auto');
    expect(box.scrollWidth).toBeLessThanOrEqual(box.clientWidth);
    expect(box.getBoundingClientRect().right).toBeLessThanOrEqual(innerWidth);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(innerWidth);
    expect(columns(target)).toEqual(AGENTS);
  });

  test("the Tournament page orders it by the run config's agents, as the run's page does", async () => {
    const result = await standings(AGENTS, 2);
    const byLeaderboard = result.leaderboard.map((r) => r.agent).filter((a, i, all) => all.indexOf(a) === i);
    const configured = [...byLeaderboard].reverse();
    const session = new TournamentSession();
    session.runId = 'ordered';
    session.agents = configured;
    session.status = 'done';
    session.standings = result;
    const target = render(TournamentPage, { session, runs: new RunsStore(() => freshDb()) });
    flushSync();
    await vi.waitFor(() => expect(target.querySelector('.head-to-head')).not.toBeNull());
    expect(columns(target)).toEqual(configured);
  });
});
