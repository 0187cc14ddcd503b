/**
 * Whether the browser says it is online, kept current by its `online` and `offline` events. Apart
 * from connectivity.svelte.ts, which knows agents and providers, so that the header's offline badge,
 * on every page, loads neither.
 */
export class Online {
  now = $state(true);
  private started = false;

  /** Follows the browser for the whole page; later calls change nothing. */
  start(target: Window = window): void {
    if (this.started) return;
    this.started = true;
    this.now = target.navigator.onLine;
    target.addEventListener('online', () => (this.now = true));
    target.addEventListener('offline', () => (this.now = false));
  }
}

/** The page's one view of whether it is online. */
export const online = new Online();
