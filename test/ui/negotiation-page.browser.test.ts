import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import NegotiationPage from '../../src/ui/pages/NegotiationPage.svelte';
import { deleteRun } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';
import { storeRows, tournamentRows } from '../storage/helpers';
import { cleanup, must, render, text } from './helpers.svelte';

afterEach(cleanup);

const button = (target: HTMLElement, name: string) => must([...target.querySelectorAll('button')].find((b) => text(b) === name), name);

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
        .flatMap((e) => (e.type === 'move' && e.actor === role && e.move.action?.type === 'offer' ? [`${((100 * e.move.action.price) / list).toFixed(1)}%`] : []))
        .join(', ') || '–';
    const soFar = [...target.querySelectorAll('table.so-far tbody tr')].map((tr) => [...tr.children].map((c) => text(c)));
    expect(soFar).toEqual([['Offers / list price', offers('buyer'), offers('seller')]]);

    await userEvent.click(button(target, 'End'));
    expect(target.querySelector('.outcome')).not.toBeNull();
    expect(text(target)).toContain('Surplus share');
  });
});
