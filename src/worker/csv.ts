/**
 * A stored run's CSV files, built in the simulation worker: the standings as stored, and one line
 * per negotiation with its metrics (oracle figures included) and rewards, folded from its events a
 * chunk of stored rows at a time, so a long run never holds the page and never sits in memory whole.
 */
import { negotiationsCsv, seatRewards, standingsCsv } from '../games/bilateral/csv';
import { OracleScorer, scoredMetrics } from '../games/bilateral/oracle-agents';
import { scanRun, type ParleyDb } from '../storage';
import { readRun } from '../storage/runs';
import { runFileName } from './file-names';
import type { CsvTable } from './messages';

/** Every line of the negotiations CSV after the first chunk's: a chunk's CSV starts with the header, the file keeps one. */
const withoutHeader = (csv: string): string => csv.slice(csv.indexOf('\n') + 1);

async function negotiationLines(db: ParleyDb, runId: string, onProgress: (done: number) => void): Promise<string[]> {
  const parts: string[] = [];
  let done = 0;
  const scorer = new OracleScorer();
  await scanRun(db, runId, (rows) => {
    const csv = negotiationsCsv(
      rows.map((row) => ({
        jobId: row.jobId,
        buyer: row.buyer,
        seller: row.seller,
        scenario: row.scenario,
        metrics: scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer),
        rewards: seatRewards(row.scenario, row.events),
      })),
    );
    parts.push(parts.length === 0 ? csv : withoutHeader(csv));
    done += rows.length;
    onProgress(done);
  });
  return parts.length === 0 ? [negotiationsCsv([])] : parts;
}

/** The file and its name, `parley-{the run's name, made safe}-{table}.csv`; throws where there is nothing to write. */
export async function runCsv(db: ParleyDb, runId: string, table: CsvTable, onProgress: (done: number) => void): Promise<{ fileName: string; blob: Blob }> {
  const checked = await readRun(db, runId);
  if (!checked) throw new Error('that run is no longer stored');
  if (!checked.ok) throw new Error(`the run's record cannot be read (${checked.error.problem})`);
  const { run } = checked.value;
  const fileName = runFileName(run.name, table, 'csv');
  if (table === 'standings') {
    if (!run.standings) throw new Error('this run has no standings yet (they are stored when it stops)');
    return { fileName, blob: new Blob([standingsCsv(run.standings)], { type: 'text/csv' }) };
  }
  return { fileName, blob: new Blob(await negotiationLines(db, runId, onProgress), { type: 'text/csv' }) };
}
