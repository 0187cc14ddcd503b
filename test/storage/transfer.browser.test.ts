import { readHandIns } from '../../src/storage/hand-in-records';
import { describe, expect, test } from 'vitest';
import type { ParleyDb } from '../../src/storage/db';
import { createRun, deleteRun, getRun, listRuns, loadNegotiations, updateRun } from '../../src/storage/runs';
import type { NegotiationRow, RunConfig } from '../../src/storage/schema';
import { exportRunJson, exportRunJsonl, importRun, MAX_IMPORT_BYTES, type ImportErrorKind } from '../../src/storage/transfer';
import { StorageFullError } from '../../src/storage/errors';
import { RunWriter } from '../../src/storage/writer';
import { bulkyModelRun, dbWithQuota, dump, freshDb, standingsOf, storedTournament, TOURNAMENT, tournamentRows } from './helpers';

const NOW = 2_000;

async function roundTrip(format: 'json' | 'jsonl') {
  const db = freshDb();
  const { run, rows } = await storedTournament(db, { id: 'r' });
  const other = await storedTournament(db, { id: 'other', rows: 5 });
  const text = format === 'json' ? await exportRunJson(db, 'r') : await exportRunJsonl(db, 'r');
  await deleteRun(db, 'r');
  const result = await importRun(db, text, { now: NOW });
  return { db, run, rows, other, text, result };
}

describe('export and import round trip', () => {
  test.each(['json', 'jsonl'] as const)('%s: export, delete, import gives back identical rows', async (format) => {
    const { db, run, rows, other, result } = await roundTrip(format);
    expect(result).toEqual({ ok: true, value: run });
    expect(await getRun(db, 'r')).toEqual(run);
    expect(await loadNegotiations(db, 'r', {})).toEqual({ rows, total: 36 });
    // Standings are recomputed from the event logs, exactly as they were.
    expect((await getRun(db, 'r'))?.standings).toEqual(standingsOf(rows, TOURNAMENT.seed));
    expect(await getRun(db, 'other')).toEqual(other.run);
    expect((await loadNegotiations(db, 'other', {})).rows).toEqual(other.rows);
  });

  test('the JSON file: format, version, the run without standings, negotiations without ids', async () => {
    const { text } = await roundTrip('json');
    const file = JSON.parse(text);
    expect(Object.keys(file)).toEqual(['format', 'version', 'game', 'run', 'negotiations']);
    expect(file.format).toBe('parley-run');
    expect(file.version).toBe(2);
    expect(file.game).toBe('bilateral');
    expect(file.run).not.toHaveProperty('standings');
    expect(file.run).toMatchObject({ id: 'r', done: 36, planned: 36, status: 'done' });
    expect(file.negotiations).toHaveLength(36);
    expect(Object.keys(file.negotiations[0])).toEqual(['jobId', 'index', 'buyer', 'seller', 'tier', 'outcome', 'scenario', 'events']);
    expect(file.negotiations.map((n: { index: number }) => n.index)).toEqual([...Array(36).keys()]);
  });

  test('the JSONL file: a header line with the run, then one negotiation a line', async () => {
    const { text } = await roundTrip('jsonl');
    const lines = text.split('\n');
    expect(lines).toHaveLength(38);
    expect(lines[37]).toBe('');
    const header = JSON.parse(lines[0]!);
    expect(Object.keys(header)).toEqual(['format', 'version', 'game', 'run']);
    expect(header).toMatchObject({ format: 'parley-run-jsonl', version: 2, game: 'bilateral', run: { id: 'r', done: 36 } });
    expect(JSON.parse(lines[5]!)).toMatchObject({ index: 4, jobId: expect.any(String) });
  });

  test('an unfinished run comes back interrupted, so it can be resumed', async () => {
    const db = freshDb();
    const { rows } = await storedTournament(db, { id: 'r', rows: 10 });
    await updateRun(db, 'r', { status: 'cancelled' });
    const text = await exportRunJsonl(db, 'r');
    await deleteRun(db, 'r');
    const result = await importRun(db, text, { now: NOW });
    expect(result.ok && result.value).toMatchObject({ id: 'r', status: 'interrupted', done: 10, planned: 36 });
    expect((await loadNegotiations(db, 'r', {})).rows).toEqual(rows);
    expect((await getRun(db, 'r'))?.standings).toEqual(standingsOf(rows, TOURNAMENT.seed));
  });

  test('a run with no negotiations imports with no standings', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 0 });
    const text = await exportRunJson(db, 'r');
    await deleteRun(db, 'r');
    const result = await importRun(db, text, { now: NOW });
    expect(result.ok && result.value).toMatchObject({ status: 'interrupted', done: 0, standings: null });
  });

  test('an arena game round-trips, its standings seeded with 0', async () => {
    const db = freshDb();
    // As the Arena stores its one game: job "0" at index 0.
    const row = { ...(await tournamentRows('a'))[3]!, id: 'a:0', jobId: '0', index: 0 };
    const config: RunConfig = { kind: 'arena', buyer: row.buyer, seller: row.seller, scenario: row.scenario };
    await createRun(db, { id: 'a', name: 'one game', config, planned: 1, createdAt: 3 });
    await new RunWriter(db, 'a', { maxBatch: 1, now: () => 4 }).add(row);
    const text = await exportRunJson(db, 'a');
    await deleteRun(db, 'a');
    const result = await importRun(db, text, { now: 5 });
    expect(result.ok && result.value).toMatchObject({ id: 'a', config, status: 'done', done: 1, updatedAt: 5 });
    expect((await getRun(db, 'a'))?.standings).toEqual(standingsOf([row], 0));
    expect((await loadNegotiations(db, 'a', {})).rows).toEqual([row]);
  });

  test('the same Arena game again, under any name, is refused as a duplicate and nothing is written; a tournament comes back as a copy', async () => {
    const db = freshDb();
    const row = { ...(await tournamentRows('a'))[3]!, id: 'a:0', jobId: '0', index: 0 };
    const config: RunConfig = { kind: 'arena', buyer: row.buyer, seller: row.seller, scenario: row.scenario };
    await createRun(db, { id: 'a', name: 'first', config, planned: 1, createdAt: 3 });
    await new RunWriter(db, 'a', { maxBatch: 1, now: () => 4 }).add(row);
    const file = JSON.parse(await exportRunJson(db, 'a'));
    const before = await dump(db);
    for (const text of [JSON.stringify(file), JSON.stringify({ ...file, run: { ...file.run, id: 'other', name: 'renamed' } })])
      expect(await importRun(db, text, { now: NOW })).toEqual({
        ok: false,
        error: {
          kind: 'duplicate',
          message: 'this game is already stored, as “first”; it counts once, so nothing was imported',
          same: { id: 'a', name: 'first' },
        },
      });
    expect(await dump(db)).toEqual(before);
    // Played at another moment, the same moves are another game.
    const later = await importRun(db, JSON.stringify({ ...file, run: { ...file.run, createdAt: 5 } }), { now: NOW, newId: () => 'later' });
    expect(later.ok && later.value.id).toBe('later');

    await storedTournament(db, { id: 'r', name: 'tour' });
    const copy = await importRun(db, await exportRunJson(db, 'r'), { now: NOW, newId: () => 'copy' });
    expect(copy.ok && [copy.value.id, copy.value.name]).toEqual(['copy', 'tour (imported)']);
  });

  test('another run under an id that is taken is imported as a copy with new ids', async () => {
    const db = freshDb();
    const { run, rows } = await storedTournament(db, { id: 'r', name: 'x'.repeat(200) });
    // Another run of the same plan, started at another time: not the same game, though its id is taken.
    const file = JSON.parse(await exportRunJson(db, 'r'));
    const other = (createdAt: number) => JSON.stringify({ ...file, run: { ...file.run, createdAt } });
    const before = await dump(db);
    const ids = ['r', 'copy-1', 'copy-1', 'copy-2'];
    const newId = () => ids.shift() as string;
    const first = await importRun(db, other(run.createdAt + 1), { now: NOW, newId });
    expect(first.ok && first.value).toMatchObject({ id: 'copy-1', name: `${'x'.repeat(189)} (imported)`, status: 'done' });
    // The taken ids newId() offered were skipped.
    const second = await importRun(db, other(run.createdAt + 2), { now: NOW, newId });
    expect(second.ok && second.value.id).toBe('copy-2');
    expect((await listRuns(db)).map((r) => r.id).sort()).toEqual(['copy-1', 'copy-2', 'r']);
    const copy = await loadNegotiations(db, 'copy-1', {});
    expect(copy.rows).toEqual(rows.map((row) => ({ ...row, id: `copy-1:${row.jobId}`, runId: 'copy-1' })));
    // Each import is on record as handed in (by file); the original, played here, is not.
    expect([...(await readHandIns(db)).entries()].sort()).toEqual([
      ['copy-1', { via: 'file', at: NOW }],
      ['copy-2', { via: 'file', at: NOW }],
    ]);
    // The original is untouched.
    const after = (await dump(db)) as { runs: { id: string }[]; batches: { runId: string }[]; digests: { runId: string }[] };
    expect({
      runs: after.runs.filter((r) => r.id === 'r'),
      batches: after.batches.filter((n) => n.runId === 'r'),
      digests: after.digests.filter((n) => n.runId === 'r'),
      settings: [],
    }).toEqual(before);
    expect(await getRun(db, 'r')).toEqual(run);
  });
});

/** The export of a 36-negotiation run, parsed, to be spoilt by each test. */
async function fixture() {
  const db = freshDb();
  await storedTournament(db, { id: 'r' });
  await db.settings.put({ key: 'theme', value: 'dark' });
  const json = JSON.parse(await exportRunJson(db, 'r'));
  const jsonl = (await exportRunJsonl(db, 'r')).split('\n');
  const before = await dump(db);
  const expectRefused = async (text: string, kind: ImportErrorKind, message: RegExp, opts: { size?: number } = {}) => {
    const result = await importRun(db, text, { now: NOW, ...opts });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe(kind);
    expect(result.error.message).toMatch(message);
    expect(result.error.message.split('\n').length).toBeLessThanOrEqual(2);
    expect(await dump(db)).toEqual(before);
  };
  return { db, json, jsonl, expectRefused };
}

/** The first event of a negotiation that carries an offer. */
const offerAt = (n: NegotiationRow) => n.events.findIndex((e) => e.type === 'move' && e.move.action?.type === 'offer');
const spoil = (json: { negotiations: NegotiationRow[] }, i: number, f: (n: NegotiationRow) => void) => f(json.negotiations[i]!);

describe('import refuses a bad file, names the place, and changes nothing', () => {
  test('an empty file, malformed JSON and a CSV', async () => {
    const { expectRefused } = await fixture();
    await expectRefused('', 'invalid-file', /empty/);
    await expectRefused('{"format": "parley-run", oops}', 'invalid-file', /not valid JSON/);
    await expectRefused('jobId,buyer\n1,boulware\n', 'invalid-file', /not valid JSON/);
  });

  test('a truncated file', async () => {
    const { json, jsonl, expectRefused } = await fixture();
    const text = JSON.stringify(json);
    await expectRefused(text.slice(0, Math.floor(text.length / 2)), 'truncated', /ends in the middle.*cut off/);
    await expectRefused(text.slice(0, -1), 'truncated', /cut off/);
    const cutMidLine = jsonl.join('\n').slice(0, jsonl.slice(0, 20).join('\n').length + 40);
    await expectRefused(cutMidLine, 'truncated', /^line 21: the file ends in the middle of this line/);
    const cutAtLine = jsonl.slice(0, 30).join('\n') + '\n';
    await expectRefused(cutAtLine, 'truncated', /run.done says 36 negotiations but the file holds 29/);
  });

  test('a file of another format', async () => {
    const { json, jsonl, expectRefused } = await fixture();
    await expectRefused(JSON.stringify({ ...json, format: 'parley-auction' }), 'wrong-format', /format is "parley-auction".*"parley-run"/);
    // A market run file (the old market format among them) is a run file of another game.
    await expectRefused(
      JSON.stringify({ ...json, format: 'parley-market', version: 1 }),
      'wrong-game',
      /^the file holds a market run; only a bilateral run is read here$/,
    );
    await expectRefused(JSON.stringify({ ...json, version: 4, game: 'market' }), 'wrong-game', /market run/);
    await expectRefused(JSON.stringify({ ...json, game: 'auction' }), 'invalid-file', /^game: "auction" is no game this Parley knows/);
    await expectRefused('[1, 2, 3]', 'wrong-format', /not a Parley run export/);
    await expectRefused(JSON.stringify({ runs: [] }), 'wrong-format', /no "format" field/);
    const header = JSON.parse(jsonl[0]!);
    // A JSONL body under a JSON header is still not the JSON format.
    await expectRefused([JSON.stringify({ ...header, format: 'parley-run' }), ...jsonl.slice(1)].join('\n'), 'invalid-file', /not valid JSON/);
  });

  test('a file from a newer Parley', async () => {
    const { json, jsonl, expectRefused } = await fixture();
    await expectRefused(JSON.stringify({ ...json, version: 5 }), 'wrong-version', /version 5.*newer Parley.*reads versions 1 to 4/);
    const header = JSON.parse(jsonl[0]!);
    await expectRefused([JSON.stringify({ ...header, version: 5 }), ...jsonl.slice(1)].join('\n'), 'wrong-version', /^line 1: .*version 5/);
    await expectRefused(
      JSON.stringify({ ...json, format: 'parley-market', version: 2 }),
      'wrong-version',
      /version 2, written by a newer Parley; this one reads version 1\./,
    );
    await expectRefused(JSON.stringify({ ...json, version: 'one' }), 'invalid-file', /version: expected a positive whole number/);
  });

  test('a price that is a string, in JSON and in JSONL', async () => {
    const { json, jsonl, expectRefused } = await fixture();
    const k = offerAt(json.negotiations[12]);
    spoil(json, 12, (n) => {
      (n.events[k] as { move: { action: { price: unknown } } }).move.action.price = '12.50';
    });
    await expectRefused(
      JSON.stringify(json),
      'invalid-file',
      new RegExp(`^negotiations\\[12\\]\\.events\\[${k}\\]\\.move\\.action\\.price: expected number, received string$`),
    );
    const row = JSON.parse(jsonl[13]!);
    row.events[k].move.action.price = '12.50';
    jsonl[13] = JSON.stringify(row);
    await expectRefused(jsonl.join('\n'), 'invalid-file', new RegExp(`^line 14: events\\[${k}\\]\\.move\\.action\\.price: expected number, received string$`));
  });

  test('a scenario value and a run field of the wrong kind', async () => {
    const { json, expectRefused } = await fixture();
    spoil(json, 35, (n) => ((n.scenario as { buyerValue: unknown }).buyerValue = -5));
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[35\]\.scenario\.buyerValue: Too small/);
    const run = { ...json.run, config: { ...json.run.config, tournament: { ...json.run.config.tournament, seed: 1.5 } } };
    await expectRefused(JSON.stringify({ ...json, negotiations: [], run }), 'invalid-file', /^run\.config\.tournament\.seed: expected int/);
  });

  test('an outcome that the event log does not end in', async () => {
    const { json, expectRefused } = await fixture();
    const actual = json.negotiations[5].outcome;
    const claimed = actual === 'deal' ? 'walk_away' : 'deal';
    spoil(json, 5, (n) => (n.outcome = claimed));
    await expectRefused(
      JSON.stringify(json),
      'invalid-file',
      new RegExp(`^negotiations\\[5\\]: outcome is "${claimed}" but the event log ends in "${actual}"`),
    );
  });

  test('an event log without an end, or with one in the middle', async () => {
    const { json, expectRefused } = await fixture();
    spoil(json, 2, (n) => n.events.pop());
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[2\]: events: the log has no "end" event/);
    const again = await fixture();
    spoil(again.json, 2, (n) => n.events.push({ type: 'forfeit', turn: 99, actor: 'buyer' }));
    await again.expectRefused(JSON.stringify(again.json), 'invalid-file', /^negotiations\[2\]: events\[\d+\]: an "end" event before the last/);
  });

  test('a duplicate index or job id', async () => {
    const { json, expectRefused } = await fixture();
    spoil(json, 3, (n) => (n.index = 2));
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[3\]: index 2 is already used at negotiations\[2\]/);
    spoil(json, 3, (n) => {
      n.index = 3;
      n.jobId = json.negotiations[0].jobId;
    });
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[3\]: jobId ".*" is already used at negotiations\[0\]/);
  });

  test('progress that does not add up', async () => {
    const { json, expectRefused } = await fixture();
    await expectRefused(
      JSON.stringify({ ...json, run: { ...json.run, done: 40, planned: 40 } }),
      'invalid-file',
      /run.done says 40 negotiations but the file holds 36/,
    );
    await expectRefused(JSON.stringify({ ...json, run: { ...json.run, planned: 30 } }), 'invalid-file', /run.planned \(30\) is less than run.done \(36\)/);
    spoil(json, 0, (n) => (n.tier = n.tier === 1 ? 2 : 1));
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[0\]: tier is \d but scenario.tier is \d/);
  });

  test('strings beyond the schema limits', async () => {
    const { json, expectRefused } = await fixture();
    await expectRefused(
      JSON.stringify({ ...json, run: { ...json.run, name: 'n'.repeat(100_000) } }),
      'invalid-file',
      /^run\.name: Too big: expected string to have <=200 characters$/,
    );
    spoil(json, 7, (n) => (n.buyer = 'b'.repeat(5_000)));
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[7\]\.buyer: Too big/);
    spoil(json, 7, (n) => {
      n.buyer = json.negotiations[8].buyer;
      n.events.unshift({ type: 'invalid', turn: 0, actor: 'buyer', attempt: 0, reason: 'x', raw: 'r'.repeat(1_000_000) });
    });
    await expectRefused(JSON.stringify(json), 'invalid-file', /^negotiations\[7\]\.events\[0\]\.raw: Too big: expected string to have <=200000 characters$/);
  });

  test('a file over 512 MB is refused before it is read', async () => {
    const { expectRefused } = await fixture();
    await expectRefused('not even JSON', 'too-large', /600 MB.*512 MB/, { size: 600 * 1024 * 1024 });
    expect(MAX_IMPORT_BYTES).toBe(512 * 1024 * 1024);
  });

  test('a required field smuggled in through __proto__ is not found there', async () => {
    const { json, expectRefused } = await fixture();
    const text = JSON.stringify(json).replace(/"buyerValue":([0-9.]+),/, '"__proto__":{"buyerValue":$1},');
    expect(JSON.parse(text).negotiations[0].scenario).not.toHaveProperty('buyerValue');
    await expectRefused(text, 'invalid-file', /^negotiations\[0\]\.scenario\.buyerValue: expected number, received undefined$/);
    expect(({} as Record<string, unknown>).buyerValue).toBeUndefined();
  });
});

describe('hostile keys', () => {
  test('__proto__ and constructor keys are dropped, pollute nothing, and are not stored', async () => {
    const db = freshDb();
    await storedTournament(db, { id: 'r', rows: 3 });
    const json = JSON.parse(await exportRunJson(db, 'r'));
    await deleteRun(db, 'r');
    const evil = '{"__proto__":{"polluted":"yes","status":"done"},"constructor":{"prototype":{"polluted":"yes"}}';
    const text = JSON.stringify(json)
      .replace(/^\{/, `${evil},`)
      .replace('"run":{', `"run":${evil},`)
      .replaceAll('"scenario":{', `"scenario":${evil},`)
      .replaceAll('"move":{', `"move":${evil},`);
    expect(text.split('__proto__').length).toBeGreaterThan(6);
    const result = await importRun(db, text, { now: NOW });
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const run = await getRun(db, 'r');
    const { rows } = await loadNegotiations(db, 'r');
    const stored = JSON.stringify({ run, rows, batches: await db.batches.toArray() });
    expect(stored).not.toMatch(/__proto__|constructor|polluted/);
    for (const value of [run, ...rows, ...rows.map((r) => r.scenario)]) expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    // Status comes from done and planned, never from a smuggled key.
    expect(run?.status).toBe('interrupted');
  });
});

describe('import on a full disk', () => {
  test('StorageFullError, and not one row of the run is stored', async () => {
    const source = freshDb();
    const { run } = await bulkyModelRun(source, 'r');
    const text = await exportRunJsonl(source, 'r');
    expect(text.length).toBeGreaterThan(20 * 150_000);

    const db: ParleyDb = await dbWithQuota(2_000_000);
    await db.settings.put({ key: 'k', value: 1 });
    const before = await dump(db);
    await expect(importRun(db, text, { now: NOW })).rejects.toBeInstanceOf(StorageFullError);
    expect(await dump(db)).toEqual(before);
    expect(run.id).toBe('r');
  });
});
