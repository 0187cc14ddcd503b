import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import SftExport from '../../src/ui/components/SftExport.svelte';
import { deleteRun } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';
import { seatExamples, selectedSeats, sftExamples, SftExampleSchema, SftTally, validationScenarios, type SftFilter } from '../../src/training/sft';
import { freshDb, storedTournament } from '../storage/helpers';
import { cleanup, control, must, render, text } from './helpers.svelte';

afterEach(cleanup);

function downloads(): { name: string; href: string }[] {
  const saved: { name: string; href: string }[] = [];
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, href: this.href });
  });
  onTestFinished(() => click.mockRestore());
  return saved;
}

const button = (target: HTMLElement, name: string) =>
  must(
    [...target.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );

describe('SftExport', () => {
  test('summarizes what the filters pick, then downloads train and validation JSONL whose every line is an example', async () => {
    // The worker reads the page's own database.
    const db = database();
    const { run, rows } = await storedTournament(db, { id: `sft-test-${crypto.randomUUID()}`, name: 'sft run' });
    onTestFinished(() => deleteRun(db, run.id));

    const target = render(SftExport, { run });
    await userEvent.click(must(target.querySelector('details > summary')));
    await expect.poll(() => [...control<HTMLSelectElement>(target, 'Agent').options].length).toBe(5);
    await userEvent.selectOptions(control(target, 'Seat'), 'seller');
    await userEvent.click(control(target, 'Deals only'));
    const validation = control<HTMLInputElement>(target, 'Validation share of scenarios');
    await userEvent.clear(validation);
    await userEvent.type(validation, '0.25');
    expect((button(target, 'Download train and validation (JSONL)') as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(button(target, 'Summarize'));

    // What training/sft.ts picks, counted here directly.
    const filter: SftFilter = { seat: 'seller', dealsOnly: true, irOnly: false };
    const picked = rows.flatMap((row) =>
      selectedSeats(row, filter)
        .filter((seat) => seatExamples(row, seat, 'per-move') > 0)
        .map((seat) => ({ row, seat })),
    );
    const heldOut = validationScenarios(
      picked.map((p) => p.row.scenario.id),
      0.25,
    );
    const tally = new SftTally();
    for (const p of picked) tally.add(p.row, p.seat, heldOut.has(p.row.scenario.id), seatExamples(p.row, p.seat, 'per-move'));
    const expected = tally.summary();
    expect(expected.train).toBeGreaterThan(0);
    expect(expected.validation).toBeGreaterThan(0);

    await expect
      .poll(() => text(target.querySelector('[data-summary="totals"]')))
      .toBe(
        `${expected.examples} examples (one per move) from ${rows.length} negotiations, moves as tool calls: train ${expected.train} (${expected.scenarios.train} scenarios), validation ${expected.validation} (${expected.scenarios.validation} scenarios).`,
      );
    const cells = (which: string) => [...target.querySelectorAll(`[data-summary="${which}"] tbody tr`)].map((tr) => [...tr.children].map((c) => text(c)));
    expect(cells('tiers')).toEqual(Object.entries(expected.byTier).map(([t, n]) => [t, String(n)]));
    expect(cells('agents')).toEqual(Object.entries(expected.byAgent).map(([a, n]) => [a, String(n)]));
    expect(cells('histogram').map((r) => Number(r[1]))).toEqual(expected.share.histogram);
    expect(text(target.querySelector('[data-summary="share"]'))).toContain(
      `over ${expected.share.n} deals with gains from trade: mean ${expected.share.mean!.toFixed(2)}`,
    );

    const saved = downloads();
    await userEvent.click(button(target, 'Download train and validation (JSONL)'));
    await expect.poll(() => saved.length).toBe(2);
    expect(saved.map((s) => s.name)).toEqual(['parley-sft-run-sft-train.jsonl', 'parley-sft-run-sft-validation.jsonl']);
    const lines = async (href: string) => (await (await fetch(href)).text()).split('\n').filter((l) => l !== '');
    const [train, held] = [await lines(saved[0]!.href), await lines(saved[1]!.href)];
    expect(train).toHaveLength(expected.train);
    expect(held).toHaveLength(expected.validation);
    for (const line of [...train, ...held]) expect(SftExampleSchema.safeParse(JSON.parse(line)).success).toBe(true);
    // Exactly sft.ts's examples, in run order, each on its side of the split.
    const want = (side: boolean) =>
      picked
        .filter((p) => heldOut.has(p.row.scenario.id) === side)
        .flatMap((p) => sftExamples(p.row, p.seat, { interface: 'tools' }))
        .map((ex) => JSON.stringify(ex));
    expect(train).toEqual(want(false));
    expect(held).toEqual(want(true));
    expect(text(target.querySelector('.actions [role="status"]'))).toBe('Saved parley-sft-run-sft-train.jsonl and parley-sft-run-sft-validation.jsonl.');

    // A changed filter needs a new summary before the next download.
    await userEvent.click(control(target, 'IR-respecting only'));
    expect((button(target, 'Download train and validation (JSONL)') as HTMLButtonElement).disabled).toBe(true);
    expect(target.querySelector('[data-summary="totals"]')).toBeNull();

    // One multi-turn example per seat instead: as many examples as seats, the shares the same.
    await userEvent.click(control(target, 'IR-respecting only'));
    await userEvent.selectOptions(control(target, 'Examples'), 'multi-turn');
    await userEvent.click(button(target, 'Summarize'));
    const seats = new SftTally();
    for (const p of picked) seats.add(p.row, p.seat, heldOut.has(p.row.scenario.id));
    const perSeat = seats.summary();
    expect(perSeat.examples).toBeLessThan(expected.examples);
    await expect
      .poll(() => text(target.querySelector('[data-summary="totals"]')))
      .toBe(
        `${perSeat.examples} examples (one per seat and negotiation) from ${rows.length} negotiations, moves as tool calls: train ${perSeat.train} (${perSeat.scenarios.train} scenarios), validation ${perSeat.validation} (${perSeat.scenarios.validation} scenarios).`,
      );
    expect(perSeat.share).toEqual(expected.share);
    saved.length = 0;
    await userEvent.click(button(target, 'Download train and validation (JSONL)'));
    await expect.poll(() => saved.length).toBe(2);
    const multi = await lines(saved[0]!.href);
    expect(multi).toEqual(
      picked
        .filter((p) => !heldOut.has(p.row.scenario.id))
        .flatMap((p) => sftExamples(p.row, p.seat, { interface: 'tools', format: 'multi-turn' }).map((ex) => JSON.stringify(ex))),
    );
  });

  test('a bad minimum share or validation share is named, by the limits of the worker message, and cannot be summarized', async () => {
    const { run } = await storedTournament(freshDb(), { id: 'not-in-the-app-database' });
    const target = render(SftExport, { run });
    await userEvent.click(must(target.querySelector('details > summary')));
    await userEvent.type(control(target, 'Minimum surplus share'), '1.5');
    expect(text(target)).toContain('Minimum surplus share: a share from 0 to 1, or empty for none.');
    expect((button(target, 'Summarize') as HTMLButtonElement).disabled).toBe(true);
    await userEvent.clear(control(target, 'Minimum surplus share'));
    expect((button(target, 'Summarize') as HTMLButtonElement).disabled).toBe(false);
    const validation = control<HTMLInputElement>(target, 'Validation share of scenarios');
    await userEvent.clear(validation);
    await userEvent.type(validation, '0.95');
    expect(text(target)).toContain('Validation share: a fraction from 0 to 0.9.');
    expect((button(target, 'Summarize') as HTMLButtonElement).disabled).toBe(true);
  });
});
