/**
 * Moves that cannot hurt by accident, at a phone's 390 × 844 and a projector's 1366 × 768, from the
 * keyboard and by touch: a price typed after an earlier offer is sent exactly as typed; an offer
 * that would lose the student money asks once, saying what it would cost, and nothing is sent
 * until it is confirmed; the transcript's chip for the losing deal is red, not green.
 */
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import { playNegotiation, type BilateralAgent } from '../../src/games/bilateral/tournament';
import { agent, cleanup, must, render, text } from './helpers.svelte';
import {
  deleteArenaGamesAfterAll,
  BLENDER,
  button,
  FIRM,
  given,
  inView,
  moves,
  resolvedColour,
  sendPrice,
  SETUP,
  tabTo,
  tap,
  where,
  yourTurn,
  type Input,
} from './arena-seat-helpers';

deleteArenaGamesAfterAll();
afterEach(cleanup);

describe.each([
  [390, 844, 'keyboard'],
  [390, 844, 'touch'],
  [1366, 768, 'keyboard'],
  [1366, 768, 'touch'],
] as const)('at %i × %i, by %s', (width, height, input: Input) => {
  beforeAll(async () => {
    await page.viewport(width, height);
  });

  test('typing a price after an earlier offer sends what was typed; a losing offer asks, cancelling sends nothing, confirming sends it once', async () => {
    const session = new ArenaSession();
    session.delayMs = 0;
    const target = render(ArenaPage, { session, setup: SETUP('buyer') });
    if (input === 'keyboard') {
      await tabTo(button(target, 'Play'));
      await userEvent.keyboard('{Enter}');
    } else await tap(button(target, 'Play'));

    // Each turn starts with an empty price field: typing 48 after an offer of 40 sends $48, not $4,048.
    for (const [i, price] of ['40', '48'].entries()) {
      const field = await yourTurn(target);
      expect(field.value).toBe('');
      await sendPrice(target, input, price);
      await vi.waitFor(() => expect(moves(session.events, 'buyer')).toHaveLength(i + 1));
      expect(moves(session.events, 'buyer').at(-1)).toEqual({ action: { type: 'offer', price: Number(price) } });
    }

    // $4,048 for a blender worth $88.50 to this buyer: asked first, with what it would cost; the focus on "No".
    const field = await yourTurn(target);
    expect(field.value).toBe('');
    await sendPrice(target, input, '4048');
    const question = () => target.querySelector('[role="alertdialog"]');
    const dialog = must(question(), 'confirmation');
    expect(text(dialog)).toBe(
      'Are you sure? Offering $4,048.00 would lose you $3,959.50 if the seller accepts: it is above your value of $88.50. Send it anyway? No, change my move Send anyway',
    );
    expect(document.activeElement).toBe(button(dialog, 'No, change my move'));
    // The question is on screen where it is asked (a phone scrolls to it).
    await expect.poll(() => inView(dialog), { message: where(dialog) }).toBe(true);
    expect(moves(session.events, 'buyer')).toHaveLength(2);

    // Cancelling keeps the price as typed, the focus back in it, and sends nothing.
    if (input === 'keyboard') await userEvent.keyboard('{Enter}');
    else await tap(button(dialog, 'No, change my move'));
    expect(question()).toBeNull();
    expect(field.value).toBe('4048');
    expect(document.activeElement).toBe(field);
    expect(moves(session.events, 'buyer')).toHaveLength(2);
    expect(session.prompt).not.toBeNull();

    // Sent again, it asks again (once: a second Enter does not answer it); "Send anyway" sends it.
    if (input === 'keyboard') {
      await userEvent.keyboard('{Enter}');
      expect(question()).not.toBeNull();
      await userEvent.keyboard('{Escape}');
      expect(question()).toBeNull();
      expect(document.activeElement).toBe(field);
      await userEvent.keyboard('{Enter}');
      await tabTo(button(must(question()), 'Send anyway'));
      await userEvent.keyboard('{Enter}');
    } else {
      await tap(button(target, 'Send move'));
      await tap(button(must(question(), 'confirmation'), 'Send anyway'));
    }
    await vi.waitFor(() => expect(session.status).toBe('finished'), { timeout: 10_000 });

    // Exactly the game typed, move for move: 40, 48, then 4,048, which the hardliner took.
    const offers = [40, 48, 4048];
    const user: BilateralAgent = { act: (o) => ({ kind: 'move', move: { action: { type: 'offer', price: offers[(o.turn - 1) / 2] ?? 1 } } }) };
    const game = await playNegotiation(given(session.scenario), { buyer: user, seller: agent(FIRM, 'seller') });
    expect(session.scenario).toMatchObject({ buyerValue: BLENDER.buyerValue, sellerCost: BLENDER.sellerCost, turnLimit: 12, firstMover: 'seller' });
    expect(session.events).toEqual(game.events);
    expect(game.outcome).toMatchObject({ kind: 'deal', price: 4048, acceptedBy: 'seller' });

    // The transcript's chip for that deal is the danger colour, never green, and says who lost what.
    const chip = must(target.querySelector('.transcript .chip.accept'));
    expect(text(chip)).toBe('Accepts $4,048.00 a loss of $3,959.50 for the buyer');
    expect(getComputedStyle(chip).color).toBe(resolvedColour('var(--danger)'));
    expect(getComputedStyle(chip).color).not.toBe(resolvedColour('var(--ok)'));

    // The debrief hands in the stored game once the worker has written it: the Arena names it.
    await vi.waitFor(() => expect(session.runId).not.toBeNull());
    await vi.waitFor(() => button(target, 'Make my result link'));
  });
});

test('an acceptance within the value, and an offer within twice the list price, go out at once', async () => {
  await page.viewport(1366, 768);
  const session = new ArenaSession();
  session.delayMs = 0;
  const target = render(ArenaPage, { session, setup: SETUP('seller', 'boulware') });
  await tabTo(button(target, 'Play'));
  await userEvent.keyboard('{Enter}');
  // The seller asks $150: above the list price of $79, below twice it, so nothing is asked.
  await yourTurn(target);
  await userEvent.keyboard('150{Enter}');
  await vi.waitFor(() => expect(moves(session.events, 'seller')).toHaveLength(1));
  expect(target.querySelector('[role="alertdialog"]')).toBeNull();
  expect(moves(session.events, 'seller')[0]).toEqual({ action: { type: 'offer', price: 150 } });
  session.stop();
});
