import { describe, expect, test } from 'vitest';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { createRun, deleteRun, getRun, loadNegotiations } from '../../src/storage/runs';
import type { NegotiationRow, RunConfig } from '../../src/storage/schema';
import { exportRunJson, exportRunJsonl, importRun, importRunFile, type ImportErrorKind } from '../../src/storage/transfer';
import { RunWriter } from '../../src/storage/writer';
import { dump, freshDb, storedTournament, tournamentRows } from './helpers';

const NOW = 2_000;

type File = { run: Record<string, unknown> & { config: RunConfig; done: number; planned: number }; negotiations: NegotiationRow[] };

/** A stored run's export, parsed, to be forged by each test, and a check that a forgery changes nothing. */
async function fixture(rows = 36) {
  const db = freshDb();
  await storedTournament(db, { id: 'r', rows });
  await db.settings.put({ key: 'theme', value: 'dark' });
  const fresh = async (): Promise<File> => JSON.parse(await exportRunJson(db, 'r')) as File;
  const before = await dump(db);
  const expectRefused = async (file: File | string, message: RegExp, kind: ImportErrorKind = 'invalid-file') => {
    const result = await importRun(db, typeof file === 'string' ? file : JSON.stringify(file), { now: NOW });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(message);
    expect(result.error.kind).toBe(kind);
    expect(result.error.message).not.toMatch(/\n/);
    expect(await dump(db)).toEqual(before);
  };
  return { db, fresh, expectRefused };
}

const isOffer = (e: BilateralEvent) => e.type === 'move' && e.move.action?.type === 'offer';
const endOf = (n: NegotiationRow) => n.events.at(-1) as Extract<BilateralEvent, { type: 'end' }>;
/** The first negotiation of the file whose outcome is `kind`. */
function firstWith(file: File, kind: NegotiationRow['outcome']): [number, NegotiationRow] {
  const i = file.negotiations.findIndex((n) => n.outcome === kind);
  if (i < 0) throw new Error(`no ${kind} in the fixture`);
  return [i, file.negotiations[i]!];
}

describe('import replays every negotiation and refuses a forged log, naming the negotiation and the event', () => {
  test('a deal at a price nobody offered', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const [i, n] = firstWith(file, 'deal');
    const end = endOf(n);
    if (end.outcome.kind !== 'deal') throw new Error('not a deal');
    const real = end.outcome.price;
    end.outcome.price = 1.23;
    const at = n.events.length - 1;
    await expectRefused(
      file,
      new RegExp(
        `^negotiations\\[${i}\\] \\(job "${n.jobId}"\\): events\\[${at}\\] \\(end at turn ${end.turn}\\): the log ends in a deal at \\$1\\.23 .* but its moves end the negotiation in a deal at \\$${real.toFixed(2)}`,
      ),
    );
  });

  test('an accept with nothing pending', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const n = file.negotiations[4]!;
    n.events[0] = { ...(n.events[0] as Extract<BilateralEvent, { type: 'move' }>), move: { action: { type: 'accept' } } };
    await expectRefused(
      file,
      /^negotiations\[4\] \(job ".*"\): events\[0\] \(move at turn 0\): an illegal move: there is no offer from the other side to accept$/,
    );
  });

  test.each([-5, 0])('an offer of %d', async (price) => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const n = file.negotiations[9]!;
    const k = n.events.findIndex(isOffer);
    (n.events[k] as { move: { action: { price: number } } }).move.action.price = price;
    await expectRefused(
      file,
      new RegExp(`^negotiations\\[9\\] .*: events\\[${k}\\] \\(move at turn \\d+\\): an illegal move: offer price must be positive \\(got ${price}\\)$`),
    );
  });

  test('sides in the wrong order', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const n = file.negotiations[2]!;
    const [a, b] = n.events as [Extract<BilateralEvent, { type: 'move' }>, Extract<BilateralEvent, { type: 'move' }>];
    n.events[0] = { ...a, actor: b.actor };
    await expectRefused(file, /^negotiations\[2\] .*: events\[0\] \(move at turn 0\): a "move" event of the buyer, but turn 0 is the seller's$/);
  });

  test('a forfeit without its invalid attempts', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const n = file.negotiations[6]!;
    n.events[1] = { type: 'forfeit', turn: 1, actor: 'buyer' };
    await expectRefused(file, /^negotiations\[6\] .*: events\[1\] \(forfeit at turn 1\): a forfeit after 0 invalid answers; a turn is forfeited only after 3$/);
  });

  test('an end the protocol did not reach, in JSONL', async () => {
    const { db, expectRefused } = await fixture();
    const lines = (await exportRunJsonl(db, 'r')).split('\n');
    const n = JSON.parse(lines[8]!) as NegotiationRow;
    n.events = [...n.events.slice(0, 2), { type: 'end', turn: 2, outcome: { kind: 'turn_limit', turn: 2 } }];
    n.outcome = 'turn_limit';
    lines[8] = JSON.stringify(n);
    await expectRefused(
      lines.join('\n'),
      /^line 9 \(job ".*"\): events\[2\] \(end at turn 2\): the log ends in the turn limit at turn 2, but its moves never end the negotiation \(it stops at turn 2 of 20\)$/,
    );
  });
});

describe('import checks a run against its own plan', () => {
  test('a job id that is not in the plan, or one with a ":"', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    file.negotiations[3]!.jobId = '9-9-0';
    await expectRefused(file, /^negotiations\[3\] \(job "9-9-0"\): not a job of the run's plan \(4 agents, 3 scenarios per pair/);
    file.negotiations[3]!.jobId = 'b:c';
    await expectRefused(file, /^negotiations\[3\]\.jobId: must not contain ":"/);
  });

  test('a job at another index, or played by other agents', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const [a, b] = [file.negotiations[1]!, file.negotiations[2]!];
    [a.index, b.index] = [b.index, a.index];
    await expectRefused(file, new RegExp(`^negotiations\\[1\\] \\(job "${a.jobId}"\\): index is 2 but the run's plan puts this job at 1$`));
    const again = await fresh();
    const n = again.negotiations[5]!;
    [n.buyer, n.seller] = [n.seller, n.buyer];
    await expectRefused(again, /^negotiations\[5\] .*: buyer is ".*" but the run's plan has ".*" buy in this job$/);
  });

  test('a scenario edited after the run, though its log still replays', async () => {
    const { fresh, expectRefused } = await fixture();
    const file = await fresh();
    const n = file.negotiations[13]!;
    const real = n.scenario.buyerValue;
    n.scenario.buyerValue = real + 1000;
    await expectRefused(
      file,
      new RegExp(
        `^negotiations\\[13\\] .*: scenario\\.buyerValue is ${real + 1000} where ${real} was expected: not scenario 1 of the run's config \\(standard, seed 7\\)$`,
      ),
    );
  });

  test('a planned count its config does not make', async () => {
    const { fresh, expectRefused } = await fixture(4);
    const file = await fresh();
    await expectRefused({ ...file, run: { ...file.run, planned: 1000 } }, /^run\.planned is 1000 but its tournament config plans 36$/);
  });

  test('negotiations from another plan (the config was edited)', async () => {
    const { fresh, expectRefused } = await fixture(6);
    const file = await fresh();
    const config = file.run.config;
    if (config.kind !== 'tournament') throw new Error('not a tournament');
    // Two agents: a plan of 2 × 3 = 6 negotiations, which the file's six rows do not belong to.
    const tournament = { ...config.tournament, agents: config.tournament.agents.slice(0, 2) };
    await expectRefused(
      { ...file, run: { ...file.run, planned: 6, config: { kind: 'tournament', tournament } } },
      /^negotiations\[\d\] \(job ".*"\): (not a job|index is|seller is)/,
    );
  });

  test('an unfinished run with a hole in its plan', async () => {
    const { fresh, expectRefused } = await fixture(10);
    const file = await fresh();
    const negotiations = file.negotiations.filter((n) => n.index !== 4);
    await expectRefused(
      { ...file, negotiations, run: { ...file.run, done: 9 } },
      /^negotiations\[4\]: plan index 4 is missing before index 5; a run holds the first negotiations of its plan/,
    );
  });

  test('an Arena game with another scenario or another job; an unfinished one imports as cancelled', async () => {
    const db = freshDb();
    const row = { ...(await tournamentRows('a'))[3]!, id: 'a:0', jobId: '0', index: 0 };
    const config: RunConfig = { kind: 'arena', buyer: row.buyer, seller: row.seller, scenario: row.scenario };
    await createRun(db, { id: 'a', name: 'one game', config, planned: 1, createdAt: 3 });
    await new RunWriter(db, 'a', { maxBatch: 1, now: () => 4 }).add(row);
    const file = JSON.parse(await exportRunJson(db, 'a')) as File;
    await deleteRun(db, 'a');
    const before = await dump(db);
    const refused = async (f: File, message: RegExp) => {
      const result = await importRun(db, JSON.stringify(f), { now: NOW });
      expect(result.ok ? 'imported' : result.error.message).toMatch(message);
      expect(await dump(db)).toEqual(before);
    };
    const edited = structuredClone(file);
    edited.negotiations[0]!.scenario.sellerCost = 1;
    await refused(edited, /^negotiations\[0\] \(job "0"\): scenario\.sellerCost is 1 where .* was expected: not the run's scenario/);
    const moved = structuredClone(file);
    moved.negotiations[0]!.jobId = '0-1-0';
    await refused(moved, /^negotiations\[0\] \(job "0-1-0"\): an Arena run holds one negotiation, job "0" at index 0/);
    await refused({ ...file, run: { ...file.run, planned: 2 } }, /^run\.planned is 2 but an Arena run plays 1$/);
    const empty = await importRun(db, JSON.stringify({ ...file, negotiations: [], run: { ...file.run, done: 0, status: 'interrupted' } }), { now: NOW });
    expect(empty.ok && empty.value).toMatchObject({ id: 'a', status: 'cancelled', done: 0, planned: 1 });
  });
});

describe('ids that cannot collide', () => {
  test('run "a" and run "a:0" import side by side, each with its own negotiations', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 36 });
    const file = JSON.parse(await exportRunJson(db, 'r')) as File;
    await deleteRun(db, 'r');
    const as = (id: string, rows: number) => JSON.stringify({ ...file, run: { ...file.run, id, done: rows }, negotiations: file.negotiations.slice(0, rows) });
    for (const [id, rows] of [
      ['a', 36],
      ['a:0', 10],
      ['a:0:0', 3],
    ] as const) {
      const result = await importRun(db, as(id, rows), { now: NOW });
      expect(result.ok && result.value.id).toBe(id);
    }
    expect((await loadNegotiations(db, 'a')).total).toBe(36);
    expect((await loadNegotiations(db, 'a:0')).rows.map((r) => r.id)).toEqual(file.negotiations.slice(0, 10).map((n) => `a:0:${n.jobId}`));
    expect((await loadNegotiations(db, 'a:0:0')).total).toBe(3);
  });

  test("a key already taken becomes a clear refusal, not Dexie's ConstraintError, and nothing is written", async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 5 });
    const text = await exportRunJson(db, 'r');
    await deleteRun(db, 'r');
    // A stray batch under the key the import will write, filed under another run (so the id looks free).
    await db.batches.add({ id: 'r:0', runId: 'stray', first: 0, count: 0, negotiations: [] });
    const before = await dump(db);
    const result = await importRun(db, text, { now: NOW });
    expect(result).toEqual({
      ok: false,
      error: { kind: 'conflict', message: expect.stringMatching(/^the run's records clash with records already stored \(.*\); nothing was imported$/) },
    });
    expect(result.ok || result.error.message).not.toMatch(/bulkAdd|operations failed/);
    expect(await dump(db)).toEqual(before);
    expect(await getRun(db, 'r')).toBeUndefined();
  });
});

describe('a file is refused by its size before it is read', () => {
  test('a 530 MB file says too large, and its text is never asked for', async () => {
    const db = freshDb();
    const before = await dump(db);
    let reads = 0;
    const huge = { size: 530 * 1024 * 1024, text: () => (reads++, Promise.reject(new Error('NotReadableError'))) };
    const result = await importRunFile(db, huge, { now: NOW });
    expect(result).toEqual({ ok: false, error: { kind: 'too-large', message: 'the file is 530 MB; Parley imports runs of up to 512 MB' } });
    expect(reads).toBe(0);
    expect(await dump(db)).toEqual(before);
  });

  test('a file that cannot be read says so; a real File imports', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 3 });
    const text = await exportRunJsonl(db, 'r');
    await deleteRun(db, 'r');
    const unreadable = { size: 10, text: () => Promise.reject(new Error('the file changed on disk')) };
    expect(await importRunFile(db, unreadable, { now: NOW })).toEqual({
      ok: false,
      error: { kind: 'invalid-file', message: 'the file could not be read (the file changed on disk)' },
    });
    const result = await importRunFile(db, new File([text], 'run.jsonl'), { now: NOW });
    expect(result.ok && result.value).toMatchObject({ id: 'r', done: 3, status: 'interrupted' });
  });
});
