import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import NegotiationPage from '../../src/ui/pages/NegotiationPage.svelte';
import { deleteRun } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';
import { storeRows, tournamentResults, tournamentRows, toRow } from '../storage/helpers';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { ACCEPT, offer } from '../../src/games/bilateral/moves';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { makeScenario } from '../../src/games/bilateral/scenario';
import { cleanup, must, render, text } from './helpers.svelte';

afterEach(cleanup);

const button = (target: HTMLElement, name: string) =>
  must(
    [...target.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );

describe('the negotiation inspector', () => {
  test('stepping back hides what has not happened yet: no outcome, no final metrics, only the offers so far', async () => {
    const db = database();
    const runId = `inspector-test-${crypto.randomUUID()}`;
    const row = (await tournamentRows(runId)).find((r) => r.events.length > 6);
    if (!row) throw new Error('no negotiation with more than 6 events');
    await storeRows(db, runId, [row]);
    onTestFinished(() => deleteRun(db, runId));

    const target = render(NegotiationPage, { runId, jobId: row.jobId });
    await vi.waitFor(() => expect(target.querySelector('.outcome')).not.toBeNull());
    expect(text(target)).toContain('Surplus share');

    await userEvent.click(button(target, 'Start'));
    for (let i = 0; i < 3; i++) await userEvent.click(button(target, 'Next'));
    expect(text(target.querySelector('.stepper [role="status"]'))).toBe(`event 3 of ${row.events.length}`);
    expect(target.querySelector('.outcome')).toBeNull();
    const page = text(target);
    for (const final of ['Surplus share', 'Utility', 'IR violation', 'Turns used']) expect(page).not.toContain(final);
    expect(page).toContain(`appear at its end (event ${row.events.length})`);

    const list = row.scenario.item.listPrice;
    const offers = (role: 'buyer' | 'seller') =>
      row.events
        .slice(0, 3)
        .flatMap((e) =>
          e.type === 'move' && e.actor === role && e.move.action?.type === 'offer' ? [`${((100 * e.move.action.price) / list).toFixed(1)}%`] : [],
        )
        .join(', ') || '–';
    const soFar = [...target.querySelectorAll('table.so-far tbody tr')].map((tr) => [...tr.children].map((c) => text(c)));
    expect(soFar).toEqual([['Offers / list price', offers('buyer'), offers('seller')]]);

    await userEvent.click(button(target, 'End'));
    expect(target.querySelector('.outcome')).not.toBeNull();
    expect(text(target)).toContain('Surplus share');
  });

  test("at the end, each seat's reward: every weighted term with its weight named, and the total", async () => {
    const db = database();
    const runId = `inspector-reward-${crypto.randomUUID()}`;
    // v = 150, c = 90: the buyer answers once badly, bids 100, retreats to 95, then accepts 120.
    const scenario = makeScenario('reward-scn', { id: 'w', name: 'Widget', category: 'test', listPrice: 200 }, 150, 90, {
      turnLimit: 20,
      firstMover: 'seller',
    });
    const move = (turn: number, actor: 'buyer' | 'seller', m: ReturnType<typeof offer>): BilateralEvent => ({ type: 'move', turn, actor, move: m });
    const events: BilateralEvent[] = [
      move(0, 'seller', offer(180)),
      { type: 'invalid', turn: 1, actor: 'buyer', attempt: 0, reason: 'not JSON', raw: '?' },
      move(1, 'buyer', offer(100)),
      move(2, 'seller', offer(130)),
      move(3, 'buyer', offer(95)),
      move(4, 'seller', offer(120)),
      move(5, 'buyer', ACCEPT),
      { type: 'end', turn: 5, outcome: { kind: 'deal', price: 120, turn: 5, acceptedBy: 'buyer' } },
    ];
    const base = (await tournamentResults())[0]!;
    const outcome = { kind: 'deal', price: 120, turn: 5, acceptedBy: 'buyer' } as const;
    const row = toRow(runId, { ...base, scenario, events, outcome, metrics: computeMetrics(scenario, events) });
    await storeRows(db, runId, [row]);
    onTestFinished(() => deleteRun(db, runId));

    const target = render(NegotiationPage, { runId, jobId: row.jobId });
    await vi.waitFor(() => expect(target.querySelector('table.reward')).not.toBeNull());
    const cells = (term: string) => [...must(target.querySelector(`table.reward tr[data-term="${term}"]`)).children].map((c) => text(c));
    expect(cells('compliance')).toEqual(['Compliance (−0.1 per invalid answer)', '-0.100', '0.000']);
    expect(cells('consistency')).toEqual(['Consistency (−0.1 per retreat or crossing)', '-0.100', '0.000']);
    expect(cells('surplus')).toEqual(['Surplus (1 × share of v − c, 0 to 1)', '0.500', '0.500']);
    expect(cells('irPenalty')).toEqual(['IR penalty (−1 for a deal at a loss)', '0.000', '0.000']);
    expect(cells('walkAwayCredit')[1]).toBe('0.000');
    expect(cells('total')).toEqual(['Total', '0.300', '0.500']);
    expect(cells('counts')).toEqual(['Invalid answers / retreats / crossings', '1 / 1 / 0', '0 / 0 / 0']);

    // Stepped back from the end, no reward is shown.
    await userEvent.click(button(target, 'Previous'));
    expect(target.querySelector('table.reward')).toBeNull();
  });
});
