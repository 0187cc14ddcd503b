import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import RunExports from '../../src/ui/components/RunExports.svelte';
import { NEGOTIATIONS_CSV_HEADER, STANDINGS_CSV_HEADER } from '../../src/core/bilateral/csv';
import { computeMetrics } from '../../src/core/bilateral/metrics';
import { negotiationId, type NegotiationRow } from '../../src/storage/schema';
import { freshDb, storedTournament, storeRows } from '../storage/helpers';
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

const button = (target: HTMLElement, name: string) => must([...target.querySelectorAll('button')].find((b) => text(b) === name), name);

describe('RunExports', () => {
  test('the CSV of every negotiation has a header and one line per stored negotiation, read in chunks, and parses back', async () => {
    const db = freshDb();
    const { run, rows } = await storedTournament(db, { name: 'four, "scripted" agents' });
    // Enough copies to span several of scanRun's 500-row chunks.
    const more: NegotiationRow[] = [];
    for (let copy = 1; copy < 31; copy++)
      for (const row of rows) {
        const jobId = `${row.jobId}-copy${copy}`;
        more.push({ ...row, id: negotiationId(run.id, jobId), jobId, index: row.index + copy * rows.length });
      }
    await storeRows(db, run.id, more);
    const stored = [...rows, ...more];

    const saved = downloads();
    const target = render(RunExports, { runId: run.id, runName: run.name, standings: run.standings, db });
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
    const db = freshDb();
    const { run } = await storedTournament(db);
    const saved = downloads();
    const target = render(RunExports, { runId: run.id, runName: run.name, standings: run.standings, db });
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

  test('a run without standings offers no standings CSV', async () => {
    const db = freshDb();
    const target = render(RunExports, { runId: 'nothing-here', runName: 'empty', standings: null, db });
    expect((button(target, 'Standings (CSV)') as HTMLButtonElement).disabled).toBe(true);
    const saved = downloads();
    await userEvent.click(button(target, 'Every negotiation (CSV)'));
    await expect.poll(() => saved.length).toBe(1);
    expect(await (await fetch(saved[0]!.href)).text()).toBe(`${NEGOTIATIONS_CSV_HEADER.join(',')}\n`);
  });
});
