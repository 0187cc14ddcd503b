import { describe, expect, test } from 'vitest';
import { href, parseRoute, parseRunQuery } from '../../src/ui/state/router.svelte';

describe('parseRoute', () => {
  test('reads every page', () => {
    expect(parseRoute('')).toEqual({ page: 'home' });
    expect(parseRoute('#/')).toEqual({ page: 'home' });
    expect(parseRoute('#/home')).toEqual({ page: 'home' });
    expect(parseRoute('#/learn')).toEqual({ page: 'learn' });
    expect(parseRoute('#/arena')).toEqual({ page: 'arena' });
    expect(parseRoute('#/market')).toEqual({ page: 'market' });
    expect(parseRoute('#/market/x')).toEqual({ page: 'not-found', path: 'market/x' });
    expect(parseRoute('#/tournament')).toEqual({ page: 'tournament', runId: null });
    expect(parseRoute('#/tournament/r1')).toEqual({ page: 'tournament', runId: 'r1' });
    expect(parseRoute('#/runs')).toEqual({ page: 'runs' });
    expect(parseRoute('#/models')).toEqual({ page: 'models' });
    expect(parseRoute('#/runs/r1')).toEqual({ page: 'run', runId: 'r1', query: {} });
    expect(parseRoute('#/runs/r1/7')).toEqual({ page: 'negotiation', runId: 'r1', jobId: '7' });
    expect(parseRoute('#/compare/r1/r2')).toEqual({ page: 'compare', a: 'r1', b: 'r2' });
    expect(parseRoute('#/compare/r1')).toEqual({ page: 'not-found', path: 'compare/r1' });
    expect(parseRoute('#/nowhere')).toEqual({ page: 'not-found', path: 'nowhere' });
    expect(parseRoute('#/runs/%E0%A4%A')).toEqual({ page: 'not-found', path: 'runs/%E0%A4%A' });
  });

  test('the Arena and a new tournament keep a shared setup in their query, raw', () => {
    expect(parseRoute('#/arena?buyer=boulware&seed=3')).toEqual({ page: 'arena', setup: 'buyer=boulware&seed=3' });
    expect(parseRoute('#/tournament?agent=linear')).toEqual({ page: 'tournament', runId: null, setup: 'agent=linear' });
    expect(parseRoute('#/tournament/r1?agent=linear')).toEqual({ page: 'tournament', runId: 'r1' });
    expect(parseRoute('#/arena/x')).toEqual({ page: 'not-found', path: 'arena/x' });
    expect(parseRoute(href.arena('you=buyer'))).toEqual({ page: 'arena', setup: 'you=buyer' });
    expect(parseRoute(href.tournament(undefined, 'seed=2'))).toEqual({ page: 'tournament', runId: null, setup: 'seed=2' });
  });

  test("a run's filters and page come from the query", () => {
    expect(parseRoute('#/runs/r1?buyer=boulware&seller=tit-for-tat&outcome=deal&tier=2&page=3')).toEqual({
      page: 'run',
      runId: 'r1',
      query: { buyer: 'boulware', seller: 'tit-for-tat', outcome: 'deal', tier: 2, page: 3 },
    });
  });

  test('unknown or malformed values are ignored, the rest kept', () => {
    expect(parseRunQuery('outcome=bribe&tier=6&page=-2&buyer=&colour=red')).toEqual({});
    expect(parseRunQuery('tier=2.5&page=1.5&outcome=walk_away')).toEqual({ outcome: 'walk_away' });
    expect(parseRunQuery('tier=0&page=1&seller=x')).toEqual({ seller: 'x' });
    expect(parseRunQuery(`buyer=${'a'.repeat(201)}&page=99999999`)).toEqual({});
    expect(parseRunQuery('page=2&page=5')).toEqual({ page: 2 });
  });
});

describe('href', () => {
  test('round-trips every page through parseRoute', () => {
    expect(parseRoute(href.home())).toEqual({ page: 'home' });
    expect(parseRoute(href.learn())).toEqual({ page: 'learn' });
    expect(parseRoute(href.arena())).toEqual({ page: 'arena' });
    expect(parseRoute(href.market())).toEqual({ page: 'market' });
    expect(parseRoute(href.tournament('a b'))).toEqual({ page: 'tournament', runId: 'a b' });
    expect(parseRoute(href.negotiation('r/1', '2'))).toEqual({ page: 'negotiation', runId: 'r/1', jobId: '2' });
    expect(parseRoute(href.compare('r?1', 'r#2'))).toEqual({ page: 'compare', a: 'r?1', b: 'r#2' });
  });

  test('writes only the filters that are set, and page 1 not at all', () => {
    expect(href.run('r1')).toBe('#/runs/r1');
    expect(href.run('r1', { page: 1 })).toBe('#/runs/r1');
    expect(href.run('r1', { outcome: 'deal', tier: 2, page: 3 })).toBe('#/runs/r1?outcome=deal&tier=2&page=3');
  });

  test('agent specs with any characters survive the round trip', () => {
    const query = { buyer: 'vllm:Qwen/Qwen3-8B+think', seller: 'openai:gpt-4o-mini&x=1?y#z', outcome: 'turn_limit', tier: 5, page: 12 } as const;
    expect(parseRoute(href.run('run?id', query))).toEqual({ page: 'run', runId: 'run?id', query });
  });
});
