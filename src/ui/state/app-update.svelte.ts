/// <reference types="vite-plugin-pwa/vanillajs" />
import { registerSW } from 'virtual:pwa-register';

type Register = typeof registerSW;

/**
 * The service worker that keeps the app working offline, in the plugin's prompt mode: a new
 * version installs beside the running one and waits until the user chooses "Update". Stored runs
 * live in IndexedDB, which an update never touches; a newer database version migrates them on the
 * next open. In `vite` (dev) and the browser tests the register is the plugin's no-op.
 *
 * How a tab comes to reload, and why only the tab that asked does (vite-plugin-pwa 2.0's
 * client/build/register.ts over workbox-window 7.4):
 * - "Update" in any tab posts SKIP_WAITING to the waiting worker (`Workbox.messageSkipWaiting`);
 *   the generated sw.js answers with `self.skipWaiting()`. It never calls `clients.claim()`: none is
 *   needed, since activating a waiting worker of a registration hands every page that registration
 *   already controls to the new worker, and each of those pages, in every tab, gets `controllerchange`.
 * - workbox-window turns `controllerchange` into its `controlling` event, with `isUpdate` true in
 *   any page that had a controller when it registered. The plugin listens for that in every tab that
 *   saw the `waiting` worker and calls `window.location.reload()` there, unless `onNeedReload` is
 *   given. So, left to itself, one tab's Update reloads every open tab, a tab that said "Later" or
 *   is mid-game included, and loses what that tab had not stored.
 * - Here `onNeedReload` decides: a tab reloads only if it asked for the update itself and holds
 *   nothing in play. Every other tab keeps the page it has (now served by the new worker) and is
 *   told that a newer version took over, with a Reload of its own. Update pressed while this tab
 *   holds a game waits for the game to end.
 */
export class AppUpdate {
  /** A new version is installed and waiting for the user's go-ahead. */
  waiting = $state(false);
  /** Every file of this version is cached: the app now opens with no network. */
  offlineReady = $state(false);
  /** Why the service worker could not be registered, if it could not (the app still works online). */
  error = $state<string | null>(null);
  /** Update was chosen while this tab held a game: it happens when the game ends. */
  afterGame = $state(false);
  /**
   * A newer version took control of this tab's page (another tab's Update, or this tab's while it
   * held a game) and this tab did not reload: it runs the version it opened with until reloaded.
   */
  replaced = $state(false);
  /** What this tab holds in play, in words (`an Arena game`), or null: an update never reloads it away. */
  private inPlay: () => string | null = () => null;
  private update: ((reload?: boolean) => Promise<void>) | null = null;
  /** This tab chose Update (and the new version was asked to take over). */
  private asked = false;
  private stopWatching: (() => void) | null = null;

  constructor(
    private readonly register: Register = registerSW,
    private readonly reload: () => void = () => window.location.reload(),
  ) {}

  /**
   * Registers the service worker once the page has loaded, so it never competes with the first
   * paint. `inPlay` says what this tab is playing, if anything.
   */
  start(options: { inPlay?: () => string | null } = {}): void {
    if (this.update) return;
    if (options.inPlay) this.inPlay = options.inPlay;
    this.update = this.register({
      onNeedRefresh: () => (this.waiting = true),
      onOfflineReady: () => (this.offlineReady = true),
      onNeedReload: () => this.tookOver(),
      onRegisterError: (e: unknown) => (this.error = e instanceof Error ? e.message : String(e)),
    });
  }

  /** What this tab holds in play now, if anything (the notice names it). */
  playing(): string | null {
    return this.inPlay();
  }

  /** Lets the waiting version take over; this page then reloads into it, once nothing is in play here. */
  async apply(): Promise<void> {
    if (this.inPlay() !== null) {
      this.afterGame = true;
      this.watchForGameEnd();
      return;
    }
    this.afterGame = false;
    // Another tab's Update has already put the new version in charge: only this page is left to reload.
    if (this.replaced) return this.reload();
    this.asked = true;
    this.waiting = false;
    await this.update?.(true);
  }

  /** Keeps this version for now; the new one takes over when every tab of the app is closed, or another tab updates. */
  later(): void {
    this.waiting = false;
    this.afterGame = false;
    this.stopWatching?.();
    this.stopWatching = null;
  }

  /** Reloads into the version now in charge (the Reload of the "took over" line). */
  reloadNow(): void {
    this.reload();
  }

  /** The new version controls this page now (workbox's `controlling` with isUpdate). */
  private tookOver(): void {
    this.waiting = false;
    if (this.asked && this.inPlay() === null) this.reload();
    else this.replaced = true;
  }

  /** Asks for the update once this tab's game has ended (Update pressed mid-game). */
  private watchForGameEnd(): void {
    if (this.stopWatching) return;
    this.stopWatching = $effect.root(() => {
      $effect(() => {
        if (this.afterGame && this.inPlay() === null) queueMicrotask(() => this.gameEnded());
      });
    });
  }

  private gameEnded(): void {
    if (!this.afterGame || this.inPlay() !== null) return;
    this.stopWatching?.();
    this.stopWatching = null;
    void this.apply();
  }
}

export const appUpdate = new AppUpdate();
