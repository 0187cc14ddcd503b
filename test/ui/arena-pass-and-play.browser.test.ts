/**
 * Pass and play: two students on one device, by keyboard at 1366 × 768 and by touch at 390 × 844.
 * Each seat's private value is shown only after a "hand the device to …" screen its student
 * opens; the debrief shows both sides; the game is stored under both names, replays from its
 * log, and the class ranking counts each student by name in their own seat.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import type { Role } from '../../src/games/bilateral/scenario';
import { money } from '../../src/ui/components/format';
import { seatPlayers } from '../../src/ui/pass-and-play';
import { classExport, runTitle } from '../../src/ui/class-export';
import { storedGames } from '../../src/ui/state/player.svelte';
import { getRun, loadNegotiation } from '../../src/storage/runs';
import { replayLog } from '../../src/games/bilateral/replay';
import { database } from '../../src/ui/state/sim';
import { HAND_IN_PATH, readResultPayload } from '../../src/storage/result-link';
import { cleanup, control, must, render, text } from './helpers.svelte';
import { deleteArenaGamesAfterAll, BLENDER, button, given, insertText, moves, SETUP, tabTo, tap, yourTurn, type Input } from './arena-seat-helpers';

deleteArenaGamesAfterAll();
afterEach(cleanup);

const NAMES: Record<Role, string> = { buyer: 'Ada', seller: 'Ben' };

describe.each([
  [1366, 768, 'keyboard'],
  [390, 844, 'touch'],
] as const)('at %i × %i, by %s', (width, height, input: Input) => {
  test('each value only behind the hand-over screen; both debriefs; stored under both names and ranked', async () => {
    await page.viewport(width, height);
    const session = new ArenaSession();
    session.delayMs = 0;
    const target = render(ArenaPage, { session, setup: SETUP('none') });
    const both = control<HTMLInputElement>(target, 'Both: two students on this device (pass and play)');
    if (input === 'keyboard') {
      await tabTo(control<HTMLInputElement>(target, 'Neither: watch two agents'));
      for (let i = 0; i < 3; i++) await userEvent.keyboard('{ArrowDown}');
    } else await tap(both);
    expect(both.checked).toBe(true);
    // No model plays, so no model settings; each student's name is asked for this game.
    expect(() => control(target, 'Moves as')).toThrow();
    for (const role of ['buyer', 'seller'] as const) {
      const field = control<HTMLInputElement>(target, `The ${role}'s name`);
      if (input === 'keyboard') {
        await tabTo(field);
        await userEvent.keyboard(NAMES[role]);
      } else {
        await tap(field);
        await insertText(NAMES[role]);
      }
      expect(field.value).toBe(NAMES[role]);
    }
    if (input === 'keyboard') {
      await tabTo(button(target, 'Play'));
      await userEvent.keyboard('{Enter}');
    } else await tap(button(target, 'Play'));

    const value = money(BLENDER.buyerValue);
    const cost = money(BLENDER.sellerCost);
    const own = (role: Role) => (role === 'buyer' ? value : cost);
    /** The hand-over screen: nothing private on the page; its button opens the seat of `role`. */
    async function handTo(role: Role): Promise<void> {
      await vi.waitFor(() => expect(text(target.querySelector('[data-testid="hand-over"] h2'))).toBe(`Hand the device to the ${role} (${NAMES[role]})`));
      const screen = must(target.querySelector('[data-testid="hand-over"]'));
      expect(target.querySelector('[aria-label="Your seat"]')).toBeNull();
      expect(text(target)).not.toContain(value);
      expect(text(target)).not.toContain(cost);
      // The heading holds the focus, so an Enter too many from the last student opens nothing.
      expect(document.activeElement).toBe(screen.querySelector('h2'));
      const take = button(screen, `I am the ${role}: show my ${role === 'buyer' ? 'value' : 'cost'}`);
      await vi.waitFor(() => expect(take.disabled).toBe(false));
      if (input === 'keyboard') {
        await tabTo(take);
        await userEvent.keyboard('{Enter}');
      } else await tap(take);
      await yourTurn(target);
      expect(text(target.querySelector('[data-testid="seat-glance"] h2'))).toBe(`${NAMES[role]}, you are the ${role}`);
      expect(text(target.querySelector('[data-testid="your-value"]'))).toBe(own(role));
      expect(text(target)).not.toContain(own(role === 'buyer' ? 'seller' : 'buyer'));
    }
    async function offer(price: string): Promise<void> {
      if (input === 'keyboard') await userEvent.keyboard(`${price}{Enter}`);
      else {
        await insertText(price);
        await tap(button(target, 'Send move'));
      }
    }

    await handTo('seller');
    await offer('80');
    await handTo('buyer');
    await offer('55');
    await handTo('seller');
    await offer('70');
    await handTo('buyer');
    // Accept $70: within the buyer's value, so nothing is asked.
    if (input === 'keyboard') {
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}{ArrowDown}');
      expect((document.activeElement as HTMLInputElement).value).toBe('accept');
      await userEvent.keyboard('{Enter}');
    } else {
      await tap(control<HTMLInputElement>(target, 'Accept their offer of $70.00'));
      await tap(button(target, 'Send move'));
    }
    await vi.waitFor(() => expect(session.status).toBe('finished'), { timeout: 10_000 });
    expect(moves(session.events, 'seller').map((m) => m.action)).toEqual([
      { type: 'offer', price: 80 },
      { type: 'offer', price: 70 },
    ]);

    // Both debriefs, one at a time, each from its own side.
    const group = must(target.querySelector('[role="group"][aria-label="Debrief for"]'));
    expect(text(target.querySelector('[data-testid="debrief-headline"]'))).toBe('Deal: you got $18.50, 38.1% of the $48.50 to share.');
    const sellers = button(group, "The seller's debrief (Ben)");
    if (input === 'keyboard') await userEvent.click(sellers);
    else await tap(sellers);
    expect(text(target.querySelector('[data-testid="debrief-headline"]'))).toBe('Deal: you got $30.00, 61.9% of the $48.50 to share.');
    expect(text(target.querySelector('[data-testid="opponent-value"]'))).toBe(value);

    // Stored like any game, under both names; its log replays.
    const runId = given(session.runId);
    await vi.waitFor(async () => expect((await database().runs.get(runId))?.name).toBe('Ada (buyer), Ben (seller): human buys Blender from human'));
    const run = given(await getRun(database(), runId));
    expect(run.config).toMatchObject({ kind: 'arena', buyer: 'human', seller: 'human' });
    expect(seatPlayers(run.name)).toEqual(NAMES);
    expect(runTitle(run)).toBe('Ada buys Blender from Ben');
    const row = given(await loadNegotiation(database(), runId, '0'));
    expect(row.events).toEqual(session.events);
    expect(replayLog(BLENDER, row.events).ok).toBe(true);

    // Handed in like any: the debrief's result link holds the game under both names, without asking a name.
    const link = await vi.waitFor(() => control<HTMLInputElement>(target, 'Result link'), { timeout: 10_000 });
    expect(() => control(target, 'Your name')).toThrow();
    const read = await readResultPayload(link.value.slice(link.value.indexOf(HAND_IN_PATH) + HAND_IN_PATH.length));
    expect(read.ok && read.value.name).toBe('Ada (buyer), Ben (seller): human buys Blender from human');

    // Ranked like any: the class export, read from storage, counts Ada as a buyer and Ben as a seller, each a student.
    const { games } = await storedGames(database());
    const out = classExport(games.filter((g) => g.runId === runId));
    expect(out.games.map((g) => [g.buyer, g.seller, g.buyerIsHuman, g.sellerIsHuman, g.price])).toEqual([['Ada', 'Ben', true, true, 70]]);
    expect(out.ranking.map((r) => [r.rank, r.name, r.kind, r.games, r.deals])).toEqual([
      [1, 'Ben', 'student', 1, 1],
      [2, 'Ada', 'student', 1, 1],
    ]);
  });
});

test('a share link sets up pass and play (you=both), and the page’s own link says so', async () => {
  await page.viewport(1366, 768);
  const session = new ArenaSession();
  const target = render(ArenaPage, { session, setup: SETUP('both') });
  expect(control<HTMLInputElement>(target, 'Both: two students on this device (pass and play)').checked).toBe(true);
  for (const role of ['buyer', 'seller'] as const) expect(control<HTMLInputElement>(target, `The ${role}'s name`).value).toBe('');
  button(target, 'Copy link').click();
  const link = await vi.waitFor(() => control<HTMLInputElement>(target, 'Link'));
  const hash = new URL(link.value).hash;
  const query = new URLSearchParams(hash.slice(hash.indexOf('?') + 1));
  expect(query.get('you')).toBe('both');
  expect(query.has('buyer') || query.has('seller')).toBe(false);
});
