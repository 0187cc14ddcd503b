import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import RunExports from '../../src/ui/components/RunExports.svelte';
import { NEGOTIATIONS_CSV_HEADER, STANDINGS_CSV_HEADER } from '../../src/games/bilateral/csv';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { deleteRun } from '../../src/storage/runs';
import { negotiationId, type NegotiationRow } from '../../src/storage/schema';
import { database } from '../../src/ui/state/sim';
import { storedTournament, storeRows } from '../storage/helpers';
import { cleanup, must, render, text } from './helpers.svelte';
import { parseCsv } from '../support/csv';

afterEach(cleanup);

/** Captures what the page hands the browser as downloads. */
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

/** A run in the app's own database, where the worker that builds the files reads it; deleted when the test ends. */
async function appRun(init: Parameters<typeof storedTournament>[1] = {}) {
  const db = database();
  const stored = await storedTournament(db, { ...init, id: `exports-${crypto.randomUUID()}` });
  onTestFinished(() => deleteRun(db, stored.run.id));
  return { db, ...stored };
}

describe('RunExports', () => {
  test('the CSV of every negotiation, built by the worker, has a header and one line per stored negotiation, and parses back', async () => {
    const { db, run, rows } = await appRun({ name: 'four, "scripted" agents' });
    // Enough copies to span several of the worker's 500-row chunks.
    const more: NegotiationRow[] = [];
    for (let copy = 1; copy < 31; copy++)
      for (const row of rows) {
        const jobId = `${row.jobId}-copy${copy}`;
        more.push({ ...row, id: negotiationId(run.id, jobId), jobId, index: row.index + copy * rows.length });
      }
    await storeRows(db, run.id, more);
    const stored = [...rows, ...more];

    const saved = downloads();
    const target = render(RunExports, { run });
    await userEvent.click(button(target, 'Every negotiation (CSV)'));
    await expect.poll(() => saved.length).toBe(1);
    expect(saved[0]!.name).toBe('parley-four-scripted-agents-negotiations.csv');
    await expect.poll(() => text(target.querySelector('[role="status"]'))).toBe(`Saved ${saved[0]!.name} (1,116 negotiations).`);

    const blob = await (await fetch(saved[0]!.href)).blob();
    expect(blob.type).toBe('text/csv');
    const csv = await blob.text();
    expect(csv.split('\n')).toHaveLength(stored.length + 2); // header, rows, and the empty piece after the last line break
    const [header, ...lines] = parseCsv(csv);
    expect(header).toEqual(NEGOTIATIONS_CSV_HEADER);
    expect(lines).toHaveLength(stored.length);
    const column = (name: string) => header!.indexOf(name);
    lines.forEach((line, i) => {
      const row = stored[i]!;
      const m = computeMetrics(row.scenario, row.events);
      expect(line).toHaveLength(header!.length);
      expect(line[column('jobId')]).toBe(row.jobId);
      expect(line[column('buyer')]).toBe(row.buyer);
      expect(line[column('seller')]).toBe(row.seller);
      expect(line[column('outcome')]).toBe(m.outcome);
      expect(line[column('sellerOpening')]).toBe(m.seller.opening === null ? '' : String(m.seller.opening));
      expect(line[column('buyerPatience')]).toBe(m.buyer.patience === null ? '' : String(m.buyer.patience));
    });
  });

  test('the standings CSV holds the leaderboard, the tiers and the zones', async () => {
    const { run } = await appRun();
    const saved = downloads();
    const target = render(RunExports, { run });
    button(target, 'Standings (CSV)').focus();
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => saved.length).toBe(1);
    expect(saved[0]!.name).toBe('parley-four-scripted-agents-standings.csv');
    const [header, ...lines] = parseCsv(await (await fetch(saved[0]!.href)).text());
    expect(header).toEqual(STANDINGS_CSV_HEADER);
    const s = run.standings!;
    expect(lines).toHaveLength(s.leaderboard.length + s.byTier.length + (s.byZone?.length ?? 0));
    expect(lines.filter((l) => l[0] === 'all')).toHaveLength(s.leaderboard.length);
  });

  test('a run without standings offers no standings CSV; with no negotiations its CSV is the header alone', async () => {
    const { run } = await appRun({ name: 'empty', rows: 0 });
    const target = render(RunExports, { run });
    expect((button(target, 'Standings (CSV)') as HTMLButtonElement).disabled).toBe(true);
    const saved = downloads();
    await userEvent.click(button(target, 'Every negotiation (CSV)'));
    await expect.poll(() => saved.length).toBe(1);
    expect(await (await fetch(saved[0]!.href)).text()).toBe(`${NEGOTIATIONS_CSV_HEADER.join(',')}\n`);
    expect(text(target.querySelector('[role="status"]'))).toBe('Saved parley-empty-negotiations.csv (0 negotiations).');
  });

  test('a run deleted meanwhile is named as gone, and the page stays usable', async () => {
    const { db, run } = await appRun();
    await deleteRun(db, run.id);
    const target = render(RunExports, { run });
    await userEvent.click(button(target, 'Every negotiation (CSV)'));
    await expect.poll(() => text(target.querySelector('[role="status"]'))).toBe('Download failed: that run is no longer stored');
    expect((button(target, 'Every negotiation (CSV)') as HTMLButtonElement).disabled).toBe(false);
  });
});
