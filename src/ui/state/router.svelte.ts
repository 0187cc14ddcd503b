import type { OutcomeKind } from '../../games/bilateral/events';
import { TIERS, type Tier } from '../../games/bilateral/catalog';

/**
 * What a run's page shows of its negotiations, kept in the hash so a filtered view can be linked
 * and Back restores it: `#/runs/<id>?buyer=…&seller=…&outcome=deal&tier=2&page=3`.
 */
export interface RunQuery {
  buyer?: string;
  seller?: string;
  outcome?: OutcomeKind;
  tier?: Tier;
  /** 1-based; page 1 is left out of the hash. */
  page?: number;
}

/**
 * Every page, stored run and negotiation has a URL: `#/` (home), `#/arena`, `#/models`,
 * `#/runs/<id>`, `#/runs/<id>/<job>`, `#/compare/<a>/<b>`. The Arena and the Tournament page may
 * carry a shared setup in their query (`#/arena?buyer=…&seed=3`), kept raw here as `setup` and
 * read by share-link.ts; it is present only when the query is not empty.
 */
export type Route =
  | { page: 'home' }
  | { page: 'learn' }
  | { page: 'arena'; setup?: string }
  | { page: 'market' }
  | { page: 'tournament'; runId: string | null; setup?: string }
  | { page: 'runs' }
  /** The teacher's class page; `handIn`: a result link's payload opened here (`#/handin/<payload>`), imported on arrival. */
  | { page: 'class'; handIn?: string }
  | { page: 'models' }
  | { page: 'run'; runId: string; query: RunQuery }
  | { page: 'negotiation'; runId: string; jobId: string }
  | { page: 'compare'; a: string; b: string }
  | { page: 'not-found'; path: string };

export type Page = Route['page'];

/**
 * Every outcome, in a record the compiler checks against `OutcomeKind` (none missing, none extra),
 * rather than events.ts's list, which is read off its zod schema: so the router, and with it the
 * first page, loads no zod.
 */
const OUTCOMES: Record<OutcomeKind, true> = { deal: true, walk_away: true, turn_limit: true, error: true, cancelled: true };
const isOutcome = (text: string | null): text is OutcomeKind => text !== null && Object.hasOwn(OUTCOMES, text);

const MAX_NAME = 200;
const MAX_PAGE = 1_000_000;

/** The query of a run's page; anything unknown or malformed is left out, never an error. */
export function parseRunQuery(search: string): RunQuery {
  const params = new URLSearchParams(search);
  const query: RunQuery = {};
  const name = (key: 'buyer' | 'seller') => {
    const value = params.get(key);
    if (value && value.length <= MAX_NAME) query[key] = value;
  };
  name('buyer');
  name('seller');
  const outcome = params.get('outcome');
  if (isOutcome(outcome)) query.outcome = outcome;
  const tier = TIERS.find((t) => String(t) === params.get('tier'));
  if (tier) query.tier = tier;
  const page = params.get('page');
  if (page && /^\d{1,7}$/.test(page) && Number(page) > 1 && Number(page) <= MAX_PAGE) query.page = Number(page);
  return query;
}

function runSearch(query: RunQuery): string {
  const params = new URLSearchParams();
  if (query.buyer) params.set('buyer', query.buyer);
  if (query.seller) params.set('seller', query.seller);
  if (query.outcome) params.set('outcome', query.outcome);
  if (query.tier) params.set('tier', String(query.tier));
  if (query.page && query.page > 1) params.set('page', String(query.page));
  const search = params.toString();
  return search ? `?${search}` : '';
}

export function parseRoute(hash: string): Route {
  const full = hash.replace(/^#\/?/, '');
  // Ids are encoded in the path, so the first '?' always starts the query.
  const cut = full.indexOf('?');
  const path = cut < 0 ? full : full.slice(0, cut);
  const search = cut < 0 ? '' : full.slice(cut + 1);
  let parts: string[];
  try {
    parts = path.split('/').map((p) => decodeURIComponent(p));
  } catch {
    return { page: 'not-found', path };
  }
  const [first = '', ...rest] = parts;
  const setup = search ? { setup: search } : {};
  if ((first === '' || first === 'home') && rest.length === 0) return { page: 'home' };
  if (first === 'learn' && rest.length === 0) return { page: 'learn' };
  if (first === 'arena' && rest.length === 0) return { page: 'arena', ...setup };
  if (first === 'market' && rest.length === 0) return { page: 'market' };
  if (first === 'tournament' && rest.length === 0) return { page: 'tournament', runId: null, ...setup };
  if (first === 'tournament' && rest.length === 1 && rest[0]) return { page: 'tournament', runId: rest[0] };
  if (first === 'runs' && rest.length === 0) return { page: 'runs' };
  if (first === 'models' && rest.length === 0) return { page: 'models' };
  if (first === 'class' && rest.length === 0) return { page: 'class' };
  if (first === 'handin' && rest.length === 1 && rest[0]) return { page: 'class', handIn: rest[0] };
  if (first === 'runs' && rest.length === 1 && rest[0]) return { page: 'run', runId: rest[0], query: parseRunQuery(search) };
  if (first === 'runs' && rest.length === 2 && rest[0] && rest[1]) return { page: 'negotiation', runId: rest[0], jobId: rest[1] };
  if (first === 'compare' && rest.length === 2 && rest[0] && rest[1]) return { page: 'compare', a: rest[0], b: rest[1] };
  return { page: 'not-found', path };
}

const withSetup = (path: string, setup?: string) => (setup ? `${path}?${setup}` : path);

export const href = {
  home: () => '#/',
  learn: () => '#/learn',
  /** `setup`: a share link's query (share-link.ts writes it). */
  arena: (setup?: string) => withSetup('#/arena', setup),
  market: () => '#/market',
  tournament: (runId?: string, setup?: string) => (runId ? `#/tournament/${encodeURIComponent(runId)}` : withSetup('#/tournament', setup)),
  runs: () => '#/runs',
  class: () => '#/class',
  models: () => '#/models',
  run: (runId: string, query: RunQuery = {}) => `#/runs/${encodeURIComponent(runId)}${runSearch(query)}`,
  negotiation: (runId: string, jobId: string) => `#/runs/${encodeURIComponent(runId)}/${encodeURIComponent(jobId)}`,
  compare: (a: string, b: string) => `#/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}`,
};

/** Each page's name, said once: the tab's title and, for the pages in the header, its menu entry. */
export const PAGE_TITLES: Record<Page, string> = {
  home: 'Home',
  learn: 'Learn',
  arena: 'Arena',
  tournament: 'Tournament',
  market: 'Market',
  runs: 'Runs',
  class: 'Class',
  models: 'Models',
  run: 'Run',
  negotiation: 'Negotiation',
  compare: 'Compare runs',
  'not-found': 'Not found',
};

/**
 * The header's menu, in order: each entry's page and address, and the pages it also stands for
 * (a run, a negotiation and a comparison are reached from Runs, so its entry is marked current there).
 */
export const MENU: readonly { page: Page; href: string; holds?: readonly Page[] }[] = [
  { page: 'home', href: href.home() },
  { page: 'arena', href: href.arena() },
  { page: 'tournament', href: href.tournament() },
  { page: 'market', href: href.market() },
  { page: 'runs', href: href.runs(), holds: ['run', 'negotiation', 'compare'] },
  { page: 'class', href: href.class() },
  { page: 'learn', href: href.learn() },
  { page: 'models', href: href.models() },
];

export class Router {
  route = $state.raw<Route>(parseRoute(location.hash));

  constructor() {
    window.addEventListener('hashchange', () => {
      this.route = parseRoute(location.hash);
    });
  }

  go(hash: string): void {
    location.hash = hash;
  }
}
