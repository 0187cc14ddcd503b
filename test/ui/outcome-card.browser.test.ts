import { afterEach, describe, expect, test } from 'vitest';
import OutcomeCard from '../../src/ui/components/OutcomeCard.svelte';
import { ACCEPT, offer } from '../../src/games/bilateral/moves';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { replay, scenario } from '../games/bilateral/helpers';
import { agent, cleanup, must, play, render, text } from './helpers.svelte';

afterEach(cleanup);

const shares = (target: HTMLElement) => [...target.querySelectorAll('.share')].map((el) => Number((el.textContent ?? '').replace('%', '')));

describe('OutcomeCard', () => {
  test('a deal: who accepted, at what price, and a surplus split that adds up to 100%', async () => {
    const s = scenario({ buyerValue: 173.37, sellerCost: 61.09 });
    const run = await play(s, agent('conceder', 'buyer'), agent('boulware', 'seller'));
    if (run.outcome.kind !== 'deal') throw new Error('expected a deal');
    const agents = { buyer: 'conceder', seller: 'boulware' };
    const target = render(OutcomeCard, { scenario: s, ...run, agents });
    expect(text(target.querySelector('.headline'))).toBe(
      `Deal at $${run.outcome.price.toFixed(2)} on turn ${run.outcome.turn}, accepted by the ${run.outcome.acceptedBy} (${agents[run.outcome.acceptedBy]}).`,
    );
    const [buyer, seller] = shares(target);
    expect(buyer! + seller!).toBeCloseTo(100, 6);
    expect(buyer).toBeCloseTo(run.metrics.buyer.share! * 100, 0);
    expect(must(target.querySelector('.bar')).getAttribute('aria-label')).toBe(`Buyer ${buyer!.toFixed(1)}%, seller ${seller!.toFixed(1)}% of the surplus`);
    expect(target.querySelector('.violation')).toBeNull();
    expect(target.querySelector('.no-gft')).toBeNull();
  });

  test('flags an individual-rationality violation with the side and the loss', async () => {
    const s = scenario({ turnLimit: 6 }); // v = 150, c = 90; the buyer accepts the seller's ~$260
    const buyer = replay([offer(80), ACCEPT]);
    const run = await playNegotiation(s, { buyer, seller: agent('boulware', 'seller') });
    expect(run.metrics.buyer.irViolation).toBe(true);
    const target = render(OutcomeCard, { scenario: s, ...run, agents: { buyer: 'pushover', seller: 'boulware' } });
    const flagged = [...target.querySelectorAll('.violation')];
    expect(flagged).toHaveLength(1);
    expect(flagged[0]?.getAttribute('role')).toBe('alert');
    const loss = -run.metrics.buyer.utility;
    expect(text(flagged[0])).toContain(`the buyer (pushover) lost $${loss.toFixed(2)}`);
    // Shares stay shares: the buyer's is 0, the seller's the whole zone; the excess is named apart.
    const [b, sl] = shares(target);
    expect([b, sl]).toEqual([0, 100]);
    const beyond = run.metrics.seller.windfall! * s.item.listPrice;
    expect(beyond).toBeCloseTo(loss, 9);
    expect(text(flagged[0])).toContain(`The seller gained $${beyond.toFixed(2)} of that beyond the zone`);
    // The headline does not read as a success: it says so, in the danger colour, not the deal's green.
    const headline = must(target.querySelector<HTMLElement>('.headline'));
    expect(text(headline)).toMatch(/^Deal at .*\. It breaks individual rationality\.$/);
    expect(headline.classList.contains('violated')).toBe(true);
    const colour = getComputedStyle(headline).color;
    const ok = render(OutcomeCard, {
      scenario: s,
      ...(await play(s, agent('accommodator', 'buyer'), agent('conceder', 'seller'))),
      agents: { buyer: 'accommodator', seller: 'conceder' },
    });
    const green = getComputedStyle(must(ok.querySelector<HTMLElement>('.headline.deal'))).color;
    expect(colour).not.toBe(green);
  });

  test('no gains from trade: a no-deal is the right answer', async () => {
    const s = scenario({ buyerValue: 80, sellerCost: 120 });
    const run = await play(s, agent('boulware', 'buyer'), agent('hardliner', 'seller'));
    const target = render(OutcomeCard, { scenario: s, ...run, agents: { buyer: 'boulware', seller: 'hardliner' } });
    expect(text(target.querySelector('.no-gft'))).toContain('no deal is the right answer');
    expect(text(target.querySelector('.headline'))).toMatch(/^No deal/);
    expect(target.querySelector('.bar')).toBeNull();
  });

  test('errors and cancellations say so', () => {
    const s = scenario();
    const metrics = {
      gft: true,
      deal: false,
      price: null,
      outcome: 'error' as const,
      turnsUsed: 3,
      buyer: side(),
      seller: side(),
    };
    const target = render(OutcomeCard, {
      scenario: s,
      outcome: { kind: 'error', actor: 'seller', message: 'model timed out', turn: 3 },
      metrics,
      agents: { buyer: 'a', seller: 'b' },
    });
    expect(text(target.querySelector('.headline'))).toBe('Stopped by an error from the seller (b) on turn 4: model timed out');
  });
});

function side() {
  return {
    utility: 0,
    share: null,
    irViolation: false,
    offers: [],
    firstOffer: null,
    totalConcession: null,
    patience: null,
    moves: 0,
    invalidMoves: 0,
    forfeits: 0,
    calls: 0,
    tokensIn: 0,
    tokensOut: 0,
    latencyMs: 0,
  };
}
