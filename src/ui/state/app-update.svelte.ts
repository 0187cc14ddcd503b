/// <reference types="vite-plugin-pwa/vanillajs" />
import { registerSW } from 'virtual:pwa-register';

/**
 * The service worker that keeps the app working offline, in the plugin's prompt mode: a new
 * version installs beside the running one and waits until the user chooses "Update". Stored runs
 * live in IndexedDB, which an update never touches; a newer database version migrates them on the
 * next open. In `vite` (dev) and the browser tests the register is the plugin's no-op.
 */
export class AppUpdate {
  /** A new version is installed and waiting for the user's go-ahead. */
  waiting = $state(false);
  /** Every file of this version is cached: the app now opens with no network. */
  offlineReady = $state(false);
  /** Why the service worker could not be registered, if it could not (the app still works online). */
  error = $state<string | null>(null);
  private update: ((reload?: boolean) => Promise<void>) | null = null;

  /** Registers the service worker once the page has loaded, so it never competes with the first paint. */
  start(): void {
    if (this.update) return;
    this.update = registerSW({
      onNeedRefresh: () => (this.waiting = true),
      onOfflineReady: () => (this.offlineReady = true),
      onRegisterError: (e: unknown) => (this.error = e instanceof Error ? e.message : String(e)),
    });
  }

  /** Lets the waiting version take over; the page reloads into it. */
  async apply(): Promise<void> {
    await this.update?.(true);
  }

  /** Keeps this version for now; the new one takes over when every tab of the app is closed. */
  later(): void {
    this.waiting = false;
  }
}

export const appUpdate = new AppUpdate();
