/**
 * Who reloads when a new version takes over. The plugin's register is replaced by a fake that
 * hands back its callbacks, so each step (waiting, Update, the new worker in control) is driven
 * by the test, not by a service worker's timing. The built app's two tabs are in test/e2e/update.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { flushSync } from 'svelte';
import { AppUpdate } from '../../src/ui/state/app-update.svelte';
import { reactive } from './helpers.svelte';

type Options = Parameters<typeof import('virtual:pwa-register').registerSW>[0] & {};

/** A tab: its update state over a fake register, what it plays, and how often it reloaded. */
function tab(playing: () => string | null = () => null) {
  let options: Options = {};
  let skipWaitingAsked = 0;
  let reloads = 0;
  const update = new AppUpdate(
    (given = {}) => {
      options = given;
      return async () => void skipWaitingAsked++;
    },
    () => void reloads++,
  );
  update.start({ inPlay: playing });
  return {
    update,
    /** The browser found a new version waiting. */
    waiting: () => options.onNeedRefresh?.(),
    /** The new version controls this page now (another tab's Update, or this one's). */
    controlling: () => options.onNeedReload?.(),
    skipWaitingAsked: () => skipWaitingAsked,
    reloads: () => reloads,
  };
}

describe('an update', () => {
  test('reloads the tab that chose Update, and no other', async () => {
    const asking = tab();
    const other = tab();
    asking.waiting();
    other.waiting();
    await asking.update.apply();
    expect(asking.skipWaitingAsked()).toBe(1);
    asking.controlling();
    other.controlling();
    expect(asking.reloads()).toBe(1);
    // The tab that never answered keeps its page and is told why it might reload.
    expect(other.reloads()).toBe(0);
    expect(other.update.replaced).toBe(true);
    expect(other.update.waiting).toBe(false);
  });

  test('never reloads a tab that said Later', async () => {
    const later = tab();
    later.waiting();
    later.update.later();
    later.controlling();
    expect(later.reloads()).toBe(0);
    expect(later.update.replaced).toBe(true);
    // Its own Reload is the way in, when the user wants it.
    later.update.reloadNow();
    expect(later.reloads()).toBe(1);
  });

  test('never reloads a tab with a game in play; Update there waits for the game to end', async () => {
    const state = reactive<{ playing: string | null }>({ playing: 'your Arena game' });
    const game = tab(() => state.playing);
    game.waiting();
    await game.update.apply();
    expect(game.update.afterGame).toBe(true);
    expect(game.skipWaitingAsked()).toBe(0);
    // Another tab updates meanwhile: the new version takes over, this tab keeps its game.
    game.controlling();
    expect(game.reloads()).toBe(0);
    expect(game.update.replaced).toBe(true);
    // The game ends: the update this tab asked for goes ahead (the new version is already in charge, so it reloads).
    state.playing = null;
    flushSync();
    await Promise.resolve();
    await expect.poll(() => game.reloads()).toBe(1);
  });

  test('a tab whose game is in play when the new version takes over is not reloaded, even if it asked', async () => {
    const state = reactive<{ playing: string | null }>({ playing: null });
    const asking = tab(() => state.playing);
    asking.waiting();
    await asking.update.apply();
    state.playing = 'a tournament';
    asking.controlling();
    expect(asking.reloads()).toBe(0);
    expect(asking.update.replaced).toBe(true);
  });
});
