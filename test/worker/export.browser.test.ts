import { afterAll, describe, expect, test } from 'vitest';
import { SimClient } from '../../src/worker/client';
import { OracleScorer, scoredMetrics } from '../../src/games/bilateral/oracle-agents';
import { negotiationsCsv, seatRewards, standingsCsv } from '../../src/games/bilateral/csv';
import { deleteRun, openDb } from '../../src/storage';
import { negotiationId, type NegotiationRow } from '../../src/storage/schema';
import { storedTournament, storeRows, withModelCalls } from '../storage/helpers';
import { classExport } from '../../src/ui/class-export';
import type { ClassExport } from '../../src/worker/class-files';
import { CLASS_GAMES_CSV, CLASS_RANKING_CSV, HAND_MADE_GAMES } from '../support/class-records';

// The real module worker, built by Vite as the app builds it; it reads the app's database.
const client = new SimClient();
const db = openDb();
const created: string[] = [];

afterAll(async () => {
  client.terminate();
  for (const id of created) await deleteRun(db, id);
  db.close();
});

/** A stored run of `copies` × the 36 negotiations of the test tournament, some of them with model calls. */
async function storedRun(
  copies: number,
): Promise<{ runId: string; rows: NegotiationRow[]; standings: NonNullable<Awaited<ReturnType<typeof storedTournament>>['run']['standings']> }> {
  const { run, rows } = await storedTournament(db, { id: `csv-${crypto.randomUUID()}`, name: 'a "CSV", in parts' });
  created.push(run.id);
  const more: NegotiationRow[] = [];
  for (let copy = 1; copy < copies; copy++)
    for (const row of rows) {
      const jobId = `${row.jobId}-copy${copy}`;
      const again = { ...row, id: negotiationId(run.id, jobId), jobId, index: row.index + copy * rows.length };
      more.push(copy % 2 === 0 ? withModelCalls(again) : again);
    }
  await storeRows(db, run.id, more);
  return { runId: run.id, rows: [...rows, ...more], standings: run.standings! };
}

/** Asks the worker for a run's CSV; what it reported of its progress on the way, and the file. */
async function csvOf(runId: string, table: 'standings' | 'negotiations') {
  const requestId = crypto.randomUUID();
  const progress: number[] = [];
  const stop = client.subscribe((m) => {
    if (m.type === 'csv.progress' && m.requestId === requestId) progress.push(m.done);
  });
  const reply = await client.request({ type: 'csv', requestId, runId, table });
  stop();
  return { reply, progress };
}

/** RFC 4180 as the core writes it: fields, a quoted one with its quotes doubled, `\n` line ends. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (quoted || (ch !== ',' && ch !== '\n')) {
      field += ch;
    } else {
      row.push(field);
      field = '';
      if (ch === '\n') {
        out.push(row);
        row = [];
      }
    }
  }
  return out;
}

describe('the worker builds the run CSVs', () => {
  test("the negotiations CSV is byte for byte the core function's output on the run's stored negotiations", async () => {
    const { runId, rows } = await storedRun(31);
    const { reply, progress } = await csvOf(runId, 'negotiations');
    if (reply.type !== 'exported') throw new Error(`no file: ${JSON.stringify(reply)}`);
    expect(reply.fileName).toBe('parley-a-CSV-in-parts-negotiations.csv');
    expect(reply.blob.type).toBe('text/csv');

    // All of it in one call, as the page built it chunk by chunk before (each chunk's header but the first dropped).
    const scorer = new OracleScorer();
    const expected = negotiationsCsv(
      rows.map((row) => ({
        jobId: row.jobId,
        buyer: row.buyer,
        seller: row.seller,
        scenario: row.scenario,
        metrics: scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer),
        rewards: seatRewards(row.scenario, row.events),
      })),
    );
    expect(new Uint8Array(await reply.blob.arrayBuffer())).toEqual(new TextEncoder().encode(expected));
    // And line by line against the stored rows themselves, so a field the worker passed wrongly could
    // not hide behind the expectation built the same way: each line names its own negotiation, in plan order.
    const [header, ...lines] = parseCsv(await reply.blob.text());
    const at = (name: string) => (header as string[]).indexOf(name);
    expect(lines.map((l) => [l[at('jobId')], l[at('buyer')], l[at('seller')], l[at('scenarioId')], l[at('outcome')]])).toEqual(
      rows.map((r) => [r.jobId, r.buyer, r.seller, r.scenario.id, r.outcome]),
    );
    // Read in chunks of 500, each reported.
    expect(progress).toEqual([500, 1000, rows.length]);
  });

  test('the standings CSV is the stored standings as the core writes them; a run gone is refused by name', async () => {
    const { runId, standings } = await storedRun(1);
    const { reply } = await csvOf(runId, 'standings');
    if (reply.type !== 'exported') throw new Error(`no file: ${JSON.stringify(reply)}`);
    expect(reply.fileName).toBe('parley-a-CSV-in-parts-standings.csv');
    expect(await reply.blob.text()).toBe(standingsCsv(standings));

    await deleteRun(db, runId);
    expect((await csvOf(runId, 'negotiations')).reply).toEqual({
      type: 'failed',
      requestId: expect.any(String),
      runId,
      message: 'that run is no longer stored',
    });
  });
});

describe('the worker builds the class files', () => {
  const unread = [{ runId: 'hand-broken', runName: null, problem: 'config: expected object, received null' }];
  const data = classExport(HAND_MADE_GAMES, unread);
  const fileOf = (file: 'json' | 'games' | 'ranking', sent: unknown = data) =>
    client.request({ type: 'class.file', requestId: crypto.randomUUID(), file, data: sent as ClassExport });

  test('from the class the page worked out: the games and the ranking as the page wrote them before, the whole export as JSON', async () => {
    const day = /\d{4}-\d{2}-\d{2}/.source;
    const games = await fileOf('games');
    if (games.type !== 'exported') throw new Error(`no file: ${JSON.stringify(games)}`);
    expect([games.fileName, games.blob.type]).toEqual([expect.stringMatching(new RegExp(`^parley-class-games-${day}\\.csv$`)), 'text/csv']);
    expect(await games.blob.text()).toBe(CLASS_GAMES_CSV);

    const ranking = await fileOf('ranking');
    if (ranking.type !== 'exported') throw new Error(`no file: ${JSON.stringify(ranking)}`);
    expect(ranking.fileName).toMatch(new RegExp(`^parley-class-ranking-${day}\\.csv$`));
    expect(await ranking.blob.text()).toBe(CLASS_RANKING_CSV);

    const json = await fileOf('json');
    if (json.type !== 'exported') throw new Error(`no file: ${JSON.stringify(json)}`);
    expect([json.fileName, json.blob.type]).toEqual([expect.stringMatching(new RegExp(`^parley-class-${day}\\.json$`)), 'application/json']);
    // Byte for byte the file the page saved, the skipped game named in it.
    expect(await json.blob.text()).toBe(JSON.stringify(data, null, 2));
    expect((JSON.parse(await json.blob.text()) as ClassExport).skipped).toEqual(unread);
  });

  test('a class the schema refuses is answered with a failure to its request, and no file', async () => {
    const [first, ...rest] = data.games;
    const wrong = { ...data, games: [{ ...first, outcome: 'won' }, ...rest] };
    const requestId = crypto.randomUUID();
    const reply = await client.request({ type: 'class.file', requestId, file: 'games', data: wrong as unknown as ClassExport });
    expect(reply).toMatchObject({ type: 'failed', requestId });
  });
});
