/** Every page, stored run and negotiation has a URL: `#/arena`, `#/models`, `#/runs/<id>`, `#/runs/<id>/<job>`. */
export type Route =
  | { page: 'arena' }
  | { page: 'tournament'; runId: string | null }
  | { page: 'runs' }
  | { page: 'models' }
  | { page: 'run'; runId: string }
  | { page: 'negotiation'; runId: string; jobId: string }
  | { page: 'not-found'; path: string };

export type Page = Route['page'];

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const [first = '', ...rest] = path.split('/').map((p) => decodeURIComponent(p));
  if (first === '' || first === 'arena') return { page: 'arena' };
  if (first === 'tournament') return { page: 'tournament', runId: rest[0] || null };
  if (first === 'runs' && rest.length === 0) return { page: 'runs' };
  if (first === 'models' && rest.length === 0) return { page: 'models' };
  if (first === 'runs' && rest.length === 1 && rest[0]) return { page: 'run', runId: rest[0] };
  if (first === 'runs' && rest.length === 2 && rest[0] && rest[1]) return { page: 'negotiation', runId: rest[0], jobId: rest[1] };
  return { page: 'not-found', path };
}

export const href = {
  arena: () => '#/arena',
  tournament: (runId?: string) => (runId ? `#/tournament/${encodeURIComponent(runId)}` : '#/tournament'),
  runs: () => '#/runs',
  models: () => '#/models',
  run: (runId: string) => `#/runs/${encodeURIComponent(runId)}`,
  negotiation: (runId: string, jobId: string) => `#/runs/${encodeURIComponent(runId)}/${encodeURIComponent(jobId)}`,
};

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
