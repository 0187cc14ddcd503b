import { afterEach, describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import LearnPage from '../../src/ui/pages/LearnPage.svelte';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { generateScenarios, type Scenario } from '../../src/games/bilateral/scenario';
import {
  finiteHorizonShare,
  firstBestGains,
  nashPrice,
  powerPrice,
  rubinsteinShare,
  secondBestEfficiency,
  secondBestGains,
} from '../../src/games/bilateral/theory';
import { CONCEDING, LEARN_STRATEGIES, zoneScenario } from '../../src/ui/components/learn/experiments';
import { money, pct } from '../../src/ui/components/format';
import { agent, cleanup, must, render, text } from './helpers.svelte';

afterEach(cleanup);

const cell = (target: HTMLElement, id: string) => text(target.querySelector(`[data-testid="${id}"]`));

/** Presses Tab until `el` has the focus: the keyboard's own way there. */
async function tabTo(el: Element): Promise<void> {
  for (let i = 0; i < 300 && document.activeElement !== el; i++) await userEvent.keyboard('{Tab}');
  expect(document.activeElement).toBe(el);
}

/** What `buyer` and `seller` reach on each scenario, played here by the core. */
async function playAll(scenarios: readonly Scenario[], buyer: string, seller: string) {
  const out = [];
  for (const s of scenarios) out.push({ scenario: s, ...(await playNegotiation(s, { buyer: agent(buyer, 'buyer'), seller: agent(seller, 'seller') })) });
  return out;
}

const sellerShareOverDeals = (played: Awaited<ReturnType<typeof playAll>>) => {
  const deals = played.filter((p) => p.metrics.gft && p.metrics.deal);
  return deals.reduce((sum, p) => sum + (p.metrics.seller.share as number), 0) / deals.length;
};

describe('the Learn page, with the real worker', () => {
  test('zone: the closed forms follow the sliders and every pair shows the price the core reaches on that scenario', async () => {
    const target = render(LearnPage, {});
    const zone = must(target.querySelector<HTMLElement>('[aria-labelledby="learn-zone"]'));
    expect(cell(zone, 'zone-nash')).toBe(money(nashPrice(120, 80)));
    const value = must(zone.querySelector<HTMLInputElement>('input[type="range"]'), 'value slider');
    expect(value.labels?.[0]?.textContent).toContain("Buyer's value");
    await tabTo(value);
    for (let i = 0; i < 10; i++) await userEvent.keyboard('{ArrowLeft}');
    expect(value.value).toBe('110');
    expect(cell(zone, 'zone-nash')).toBe(money(nashPrice(110, 80)));
    expect(cell(zone, 'zone-power')).toContain(money(powerPrice(110, 80, 0.5)));
    // The table answers the new scenario once its caption names it.
    await vi.waitFor(() => expect(text(zone.querySelector('caption'))).toContain(`v = ${money(110)}`), { timeout: 10_000 });
    const scenario = zoneScenario(110, 80);
    for (const buyer of LEARN_STRATEGIES)
      for (const seller of LEARN_STRATEGIES) {
        const [played] = await playAll([scenario], buyer, seller);
        const price = played!.metrics.price;
        expect(cell(zone, `zone-price-${buyer}-${seller}`), `${buyer} buying from ${seller}`).toBe(price === null ? 'no deal' : money(price));
      }
  });

  test('alternating offers: a longer limit from the keyboard gives the opener the last word, in theory and in the runs shown', async () => {
    const target = render(LearnPage, {});
    const horizon = must(target.querySelector<HTMLElement>('[aria-labelledby="learn-horizon"]'));
    expect(cell(horizon, 'horizon-infinite')).toContain(pct(rubinsteinShare(0.9, 0.9) as number, 1));
    expect(cell(horizon, 'horizon-finite')).toContain(pct(finiteHorizonShare(20, 0.9, 0.9), 1));
    expect(cell(horizon, 'horizon-last-word')).toMatch(/^the buyer makes offer 20/);
    const turns = must(horizon.querySelector<HTMLInputElement>('input[type="number"]'), 'turn limit');
    await tabTo(turns);
    await userEvent.keyboard('{ArrowUp}');
    expect(turns.value).toBe('21');
    await vi.waitFor(() => expect(cell(horizon, 'horizon-last-word')).toMatch(/^the seller makes offer 21/));
    expect(cell(horizon, 'horizon-finite')).toContain(pct(finiteHorizonShare(21, 0.9, 0.9), 1));
    await vi.waitFor(() => expect(text(horizon.querySelector('caption'))).toContain('21 turns known to both; the seller has the last word'), {
      timeout: 10_000,
    });
    const scenarios = generateScenarios({ preset: 'standard', seed: 1, count: 40, deadline: { kind: 'fixed', turns: 21 }, firstMover: 'seller' });
    for (const strategy of CONCEDING) {
      const share = sellerShareOverDeals(await playAll(scenarios, strategy, strategy));
      expect(cell(horizon, `horizon-seller-${strategy}`), strategy).toBe(pct(share, 1));
      expect(cell(horizon, `horizon-last-${strategy}`), strategy).toBe(pct(share, 1));
    }
  });

  test('private information: 1/6, 9/64 and 27/32 from theory.ts, and each pair’s realised share as the core computes it', async () => {
    const target = render(LearnPage, {});
    const section = must(target.querySelector<HTMLElement>('[aria-labelledby="learn-private"]'));
    expect(cell(section, 'ms-first-best')).toContain(firstBestGains().toFixed(3));
    expect(cell(section, 'ms-second-best')).toContain(secondBestGains().toFixed(3));
    expect(cell(section, 'ms-second-best')).toContain(pct(secondBestEfficiency(), 1));
    await vi.waitFor(() => expect(cell(section, 'ms-share-linear-hardliner')).toMatch(/%/), { timeout: 10_000 });
    const scenarios = generateScenarios({ preset: 'uniform', seed: 1, count: 30, deadline: { kind: 'uncertain', min: 16, max: 24 }, firstMover: 'alternate' });
    const played = await playAll(scenarios, 'linear', 'hardliner');
    const gains = (s: Scenario) => (s.buyerValue - s.sellerCost) / s.item.listPrice;
    const realised = played.filter((p) => p.metrics.deal).reduce((sum, p) => sum + gains(p.scenario), 0);
    const available = scenarios.reduce((sum, s) => sum + Math.max(0, gains(s)), 0);
    const mechanism = scenarios.filter((s) => gains(s) >= 1 / 4).reduce((sum, s) => sum + gains(s), 0);
    expect(realised / available).toBeLessThan(1); // the hardliner gives up the narrow zones
    expect(cell(section, 'ms-share-linear-hardliner')).toMatch(new RegExp(`^${pct(realised / available, 1).replace('.', '\\.')} `));
    expect(cell(section, 'ms-sample')).toContain(`would realise ${pct(mechanism / available, 1)} of them`);
  });

  test('anchoring: the sweep is charted, and its table holds what the swept seller gets from the core', async () => {
    const target = render(LearnPage, {});
    const section = must(target.querySelector<HTMLElement>('[aria-labelledby="learn-sweep"]'));
    await vi.waitFor(() => must(section.querySelector('canvas[data-chart-ready="true"]')), { timeout: 10_000 });
    const scenarios = generateScenarios({ preset: 'standard', seed: 1, count: 30, deadline: { kind: 'uncertain', min: 16, max: 24 }, firstMover: 'alternate' });
    const share = sellerShareOverDeals(await playAll(scenarios, 'linear', 'boulware:kappa=0.2'));
    const row = [...section.querySelectorAll('[data-testid="sweep-table"] tbody tr')].find((r) => text(r.querySelector('th')) === '0.2');
    expect(text(must(row).querySelector('td'))).toBe(pct(share, 1));
    const tiers = must(target.querySelector<HTMLElement>('[aria-labelledby="learn-tiers"]'));
    await vi.waitFor(() => expect(tiers.querySelectorAll('canvas[data-chart-ready="true"]')).toHaveLength(2), { timeout: 10_000 });
  });
});
