import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import ArenaPage from '../../src/ui/pages/ArenaPage.svelte';
import Debrief from '../../src/ui/components/Debrief.svelte';
import { SeatComparison } from '../../src/ui/state/seat-comparison.svelte';
import { ArenaSession } from '../../src/ui/state/arena.svelte';
import { DEBRIEF_STRATEGIES } from '../../src/ui/debrief';
import { money, pct } from '../../src/ui/components/format';
import { playNegotiation, type BilateralAgent } from '../../src/games/bilateral/tournament';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { generateScenarios, type Role, type Scenario } from '../../src/games/bilateral/scenario';
import { roundCents } from '../../src/engine/money';
import type { Move } from '../../src/games/bilateral/moves';
import { deleteRun } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';
import { agent, cleanup, control, must, render, text } from './helpers.svelte';

afterEach(cleanup);

/** Presses Tab (Shift+Tab going back) until `el` has the focus: the keyboard's own way there. */
async function tabTo(el: Element, back = false): Promise<void> {
  for (let i = 0; i < 200 && document.activeElement !== el; i++) await userEvent.keyboard(back ? '{Shift>}{Tab}{/Shift}' : '{Tab}');
  expect(document.activeElement).toBe(el);
}

/** The same game as the user plays it, with a stand-in for the user: the expected log, computed apart from the page. */
async function expected(scenario: Scenario, role: Role, opponent: string, moves: (turn: number) => Move) {
  const user: BilateralAgent = { act: (o) => ({ kind: 'move', move: moves(o.turn) }) };
  const other: Role = role === 'buyer' ? 'seller' : 'buyer';
  const seats = { [role]: user, [other]: agent(opponent, other) } as Record<Role, BilateralAgent>;
  return playNegotiation(scenario, seats);
}

/** What each deterministic strategy gets in `role` against `opponent` on `scenario`, played here. */
async function strategyResults(scenario: Scenario, role: Role, opponent: string) {
  const other: Role = role === 'buyer' ? 'seller' : 'buyer';
  const out: { strategy: string; utility: number; share: number | null }[] = [];
  for (const strategy of DEBRIEF_STRATEGIES) {
    const seats = { [role]: agent(strategy, role), [other]: agent(opponent, other) } as Record<Role, BilateralAgent>;
    const played = await playNegotiation(scenario, seats);
    out.push({ strategy, utility: played.metrics[role].utility, share: played.metrics[role].share });
  }
  return out;
}

/** Renders the Arena on `scenario` with the opponent chosen, picks "You play: <role>" and presses Play, all from the keyboard. */
async function startAs(role: Role, scenario: Scenario, agents: { buyer: string; seller: string }, button = 'Play') {
  const session = new ArenaSession();
  // The game the worker stores when it ends is deleted with the test: a Class page opened later in this browser would list it.
  onTestFinished(async () => {
    if (session.runId) await deleteRun(database(), session.runId);
  });
  session.scenario = scenario; // the form starts from the game on screen
  session.agents = agents;
  session.delayMs = 0;
  const target = render(ArenaPage, { session });
  const neither = control<HTMLInputElement>(target, 'Neither: watch two agents');
  await tabTo(neither);
  for (let i = 0; i < (role === 'buyer' ? 1 : 2); i++) await userEvent.keyboard('{ArrowDown}');
  expect(control<HTMLInputElement>(target, role === 'buyer' ? 'The buyer' : 'The seller').checked).toBe(true);
  const play = must([...target.querySelectorAll<HTMLButtonElement>('.controls button')].find((b) => text(b) === button));
  await tabTo(play);
  await userEvent.keyboard('{Enter}');
  await vi.waitFor(() => expect(session.status).toBe('playing'), { timeout: 10_000 });
  expect(session.scenario).toEqual(scenario);
  return { session, target };
}

const priceInput = (target: HTMLElement) => control<HTMLInputElement>(target, 'Price ($)');
const seatText = (target: HTMLElement) => text(target.querySelector('[aria-label="Your seat"]'));
const cell = (target: HTMLElement, id: string) => text(target.querySelector(`[data-testid="${id}"]`));
const signed = (amount: number) => (amount > 0 ? `+${money(amount)}` : money(amount));

/** Waits for the user's turn: the price field takes the focus. */
async function yourTurn(target: HTMLElement): Promise<HTMLInputElement> {
  await vi.waitFor(() => expect(document.activeElement).toBe(priceInput(target)), { timeout: 10_000 });
  return priceInput(target);
}

/** Checks the debrief against the scenario, the expected game, and each strategy played here. */
async function checkDebrief(target: HTMLElement, scenario: Scenario, role: Role, game: Awaited<ReturnType<typeof expected>>, opponent: string) {
  const { buyerValue: v, sellerCost: c } = scenario;
  const mine = game.metrics[role];
  await vi.waitFor(() => must(target.querySelector('[data-testid="strategies"]')), { timeout: 15_000 });
  expect(cell(target, 'opponent-value')).toBe(money(role === 'buyer' ? c : v));
  expect(cell(target, 'zone')).toBe(`${money(c)} to ${money(v)} (${money(roundCents(v - c))} to share)`);
  expect(cell(target, 'your-result')).toBe(`${money(mine.utility)} (${pct(mine.share!, 1)} of the surplus)`);
  expect(cell(target, 'even-split')).toBe(`${money((v - c) / 2)} each at ${money(roundCents((v + c) / 2))}; you: ${signed(mine.utility - (v - c) / 2)}`);
  const rows = [...target.querySelectorAll('[data-testid="strategies"] tbody tr')].map((tr) => [...tr.children].map((td) => text(td)));
  const results = await strategyResults(scenario, role, opponent);
  expect(rows.map((r) => r[0])).toEqual(['You', ...DEBRIEF_STRATEGIES]);
  expect(rows.map((r) => r[2])).toEqual([money(mine.utility), ...results.map((r) => money(r.utility))]);
  expect(rows.map((r) => r[3])).toEqual([pct(mine.share!, 1), ...results.map((r) => (r.share === null ? '–' : pct(r.share, 1)))]);
  expect(rows.slice(1).map((r) => r[4])).toEqual(results.map((r) => signed(r.utility - mine.utility)));
  return results;
}

describe('playing a seat in the Arena, from the keyboard alone', () => {
  test('as the buyer: a refused price keeps what was typed, then an offer with a message, then accept; the debrief adds up', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 3, count: 1, deadline: { kind: 'fixed', turns: 10 }, firstMover: 'seller' })[0]!;
    const opponent = 'conceder';
    const { session, target } = await startAs('buyer', scenario, { buyer: 'boulware', seller: opponent });

    // The setup (which shows both values) and the chart are put away; the seller's cost is nowhere on the page.
    const price = await yourTurn(target);
    expect(target.querySelector('.setup')).toBeNull();
    expect(text(target)).not.toContain(money(scenario.sellerCost));
    expect(seatText(target)).toContain(`Your value (private) ${money(scenario.buyerValue)}`);
    expect(cell(target, 'turns-left')).toBe('Turn 2 of 10: 9 turns left, this one included (5 of them yours).');
    // Accept and reject are offered only because the seller has an offer on the table.
    expect(text(target.querySelector('.move-form'))).toMatch(/Accept their offer of \$[\d,.]+/);

    // A price that is not a number is named, announced, and nothing typed is lost.
    await userEvent.keyboard('abc');
    await userEvent.keyboard('{Tab}');
    await userEvent.keyboard('Meet me here?');
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    await userEvent.keyboard('{Enter}');
    const alert = must(target.querySelector('.move-form [role="alert"]'));
    expect(text(alert)).toBe('“abc” is not a price: type a number of dollars, such as 120 or 119.50.');
    expect(price.value).toBe('abc');
    expect(control<HTMLInputElement>(target, 'Message (optional)').value).toBe('Meet me here?');
    expect(session.events.filter((e) => e.type === 'move' && e.actor === 'buyer')).toHaveLength(0);

    await userEvent.keyboard('{Control>}a{/Control}{Backspace}142.45{Enter}');
    await vi.waitFor(() => expect(session.events.some((e) => e.type === 'move' && e.actor === 'buyer')).toBe(true), { timeout: 10_000 });

    // Next turn: the form has the focus again; back to the actions, down to Accept, Enter.
    await yourTurn(target);
    expect(cell(target, 'turns-left')).toBe('Turn 4 of 10: 7 turns left, this one included (4 of them yours).');
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    expect((document.activeElement as HTMLInputElement).value).toBe('offer');
    await userEvent.keyboard('{ArrowDown}');
    expect((document.activeElement as HTMLInputElement).value).toBe('accept');
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(session.status).toBe('finished'), { timeout: 10_000 });

    const game = await expected(scenario, 'buyer', opponent, (turn) =>
      turn === 1 ? { message: 'Meet me here?', action: { type: 'offer', price: 142.45 } } : { action: { type: 'accept' } },
    );
    expect(session.events).toEqual(game.events);
    expect(game.outcome).toMatchObject({ kind: 'deal', acceptedBy: 'buyer' });
    expect(game.metrics.buyer.irViolation).toBe(false);
    await checkDebrief(target, scenario, 'buyer', game, opponent);
    // The focus moved from the closed form to the debrief, and the transcript names the user's seat "you".
    expect(document.activeElement).toBe(target.querySelector('#debrief-title'));
    expect(text(target.querySelector('.transcript .bubble.buyer .agent'))).toBe('you');
    expect(cell(target, 'ir')).toBe('Nobody broke individual rationality: neither side ended below zero.');
    expect(cell(target, 'debrief-headline')).toBe(
      `Deal: you got ${money(game.metrics.buyer.utility)}, ${pct(game.metrics.buyer.share!, 1)} of the ${money(roundCents(scenario.buyerValue - scenario.sellerCost))} to share.`,
    );
    expect(cell(target, 'advice').startsWith('Next: ')).toBe(true);
  });

  test('as the seller under an uncertain deadline: the range, never the limit; accepting below cost gets no green headline', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 3, count: 1, deadline: { kind: 'uncertain', min: 8, max: 12 }, firstMover: 'buyer' })[0]!;
    const opponent = 'boulware';
    // Step by step: the buyer's move waits for "Next turn", so the seat is seen while the other side moves.
    const { session, target } = await startAs('seller', scenario, { buyer: opponent, seller: 'conceder' }, 'Play step by step');
    expect(cell(target, 'turns-left')).toBe(
      'Turn 1 of 8–12 (the exact limit is hidden from both sides): 8 to 12 turns left, this one included (4 to 6 of them yours).',
    );
    expect(seatText(target)).toContain('The buyer is moving.');
    expect(must(control<HTMLInputElement>(target, 'Price ($)').closest('fieldset')).disabled).toBe(true);
    const next = must([...target.querySelectorAll<HTMLButtonElement>('.controls button')].find((b) => text(b) === 'Next turn'));
    await tabTo(next, true);
    await userEvent.keyboard('{Enter}');

    await yourTurn(target);
    expect(text(target)).not.toContain(money(scenario.buyerValue));
    expect(seatText(target)).toContain(`Your cost (private) ${money(scenario.sellerCost)}`);
    expect(cell(target, 'turns-left')).toBe(
      'Turn 2 of 8–12 (the exact limit is hidden from both sides): 7 to 11 turns left, this one included (4 to 6 of them yours).',
    );
    const status = text(target.querySelector('.controls [role="status"]'));
    expect(status).toBe('Playing turn 2 of 8–12');

    // Below a cent is refused, then a high offer (above the buyer's value, within twice the list price, so nothing is asked) goes out with Enter.
    await userEvent.keyboard('0.001{Enter}');
    expect(text(target.querySelector('.move-form [role="alert"]'))).toBe('An offer must be at least one cent ($0.01).');
    const high = roundCents(Math.min(scenario.buyerValue + scenario.item.listPrice, 2 * scenario.item.listPrice));
    expect(high).toBeGreaterThan(scenario.buyerValue);
    await userEvent.keyboard(`{Control>}a{/Control}{Backspace}${high}{Enter}`);
    // The buyer's answer waits for the next step: the seat counts the turns left from the other side's turn.
    await vi.waitFor(() => expect(seatText(target)).toContain('The buyer is moving.'), { timeout: 10_000 });
    // The seat's status and its turn counter may change a moment apart: wait for the counter too.
    await vi.waitFor(() =>
      expect(cell(target, 'turns-left')).toBe(
        'Turn 3 of 8–12 (the exact limit is hidden from both sides): 6 to 10 turns left, this one included (3 to 5 of them yours).',
      ),
    );
    await tabTo(next, true);
    await userEvent.keyboard('{Enter}');

    await yourTurn(target);
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}{ArrowDown}');
    expect((document.activeElement as HTMLInputElement).value).toBe('accept');
    // Boulware's offer lies below this seller's cost: accepting it asks first, saying what it costs; "Send anyway" sends it.
    await userEvent.keyboard('{Enter}');
    const pending = session.prompt?.pending ?? 0;
    const confirm = must(target.querySelector('[role="alertdialog"]'), 'confirmation');
    expect(text(confirm)).toContain(
      `Accepting ${money(pending)} would lose you ${money(roundCents(scenario.sellerCost - pending))}: it is below your cost of ${money(scenario.sellerCost)}.`,
    );
    expect(session.status).toBe('playing');
    await userEvent.keyboard('{Tab}');
    expect(text(document.activeElement)).toBe('Send anyway');
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(session.status).toBe('finished'), { timeout: 10_000 });

    const game = await expected(scenario, 'seller', opponent, (turn) =>
      turn === 1 ? { action: { type: 'offer', price: high } } : { action: { type: 'accept' } },
    );
    expect(session.events).toEqual(game.events);
    // Boulware's offer lay below this seller's cost: accepting it lost money.
    expect(game.metrics.seller.irViolation).toBe(true);
    expect(computeMetrics(scenario, session.events).seller.utility).toBeLessThan(0);
    await checkDebrief(target, scenario, 'seller', game, opponent);
    const headline = must(target.querySelector('[data-testid="debrief-headline"]'));
    expect(text(headline)).toBe(`You lost ${money(-game.metrics.seller.utility)}: the deal broke individual rationality for you.`);
    expect(headline.classList.contains('good')).toBe(false);
    expect(headline.classList.contains('bad')).toBe(true);
    expect(must(target.querySelector('.outcome .headline')).classList.contains('violated')).toBe(true);
    expect(cell(target, 'ir')).toBe('Individual rationality broken: you ended below zero.');
    expect(cell(target, 'advice')).toBe(
      `Next: Never agree to a price beyond your own cost of ${money(scenario.sellerCost)}: walking away leaves you at $0, which beats any loss.`,
    );
  });
});

describe('the debrief against a language model', () => {
  test('does not replay the model by itself: it offers a button, and names the opponent as text', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 3, count: 1, deadline: { kind: 'fixed', turns: 10 } })[0]!;
    const opponent = 'openai:<img src=x onerror="window.__pwned=1">';
    const events = [{ type: 'end', turn: 10, outcome: { kind: 'turn_limit', turn: 10 } }];
    let asked = 0;
    const target = render(Debrief, { scenario, role: 'buyer', events, opponent, comparison: new SeatComparison(), oncompare: () => void (asked += 1) });
    expect(target.querySelector('[data-testid="strategies"]')).toBeNull();
    expect(text(target)).toContain(opponent);
    expect(target.querySelector('img')).toBeNull();
    const button = must([...target.querySelectorAll('button')].find((b) => text(b) === `Play the ${DEBRIEF_STRATEGIES.length} strategies against it`));
    button.focus();
    await userEvent.keyboard('{Enter}');
    expect(asked).toBe(1);
    expect(cell(target, 'debrief-headline')).toBe(`No deal, though there was ${money(roundCents(scenario.buyerValue - scenario.sellerCost))} to share.`);
    expect(must(target.querySelector('[data-testid="debrief-headline"]')).classList.contains('good')).toBe(false);
  });
});
