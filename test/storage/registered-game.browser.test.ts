/**
 * A game registered at run time (the ultimatum test game, test/support/games/) in real IndexedDB:
 * a stored run created and played by the run controller, cancelled part way and resumed by plan,
 * holds the same lines as one played unbroken; it exports and imports through the one run-file format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoredRun, RunController, type RunReports } from '../../src/runs/controller';
import { registerGame } from '../../src/runs/index';
import { getRun, loadLines } from '../../src/storage/runs';
import { readRunFile } from '../../src/storage/run-file';
import { exportRunJson, exportRunJsonl, importRun } from '../../src/storage/transfer';
import type { ParleyDb } from '../../src/storage/db';
import type { UltimatumConfig } from '../support/games/ultimatum';
import { ultimatumParts } from '../support/games/ultimatum-parts';
import { freshDb } from './helpers';

const SETTINGS: UltimatumConfig = { proposers: ['fair', 'greedy', 'random'], responders: ['accept', 'proud', 'random'], rounds: 4, seed: 11 };
const PLANNED = 36;

let unregister = () => {};
beforeAll(() => void (unregister = registerGame(ultimatumParts)));
afterAll(() => unregister());

/** A clock a second on at every reading: progress is reported, and the writer writes, after every game. */
const ticking = () => {
  let t = 1_700_000_000_000;
  return () => (t += 1000);
};
const quiet: RunReports = { progress: () => {}, status: () => {} };
const play = (db: ParleyDb, runId: string, reports = quiet, now = ticking()) => new RunController({ db, now }, 'ultimatum', runId, {}, reports);

async function stored(db: ParleyDb, runId: string): Promise<unknown[]> {
  return (await loadLines(db, runId, 'ultimatum')).lines;
}

describe('a registered game in IndexedDB', () => {
  it('cancelled part way and resumed by plan, holds the lines of an unbroken run', async () => {
    const db = freshDb();
    const now = ticking();
    await createStoredRun({ db, now }, 'ultimatum', 'unbroken', 'unbroken', SETTINGS);
    expect(await play(db, 'unbroken').play()).toMatchObject({ status: 'done', done: PLANNED, planned: PLANNED });

    await createStoredRun({ db, now }, 'ultimatum', 'broken', 'broken', SETTINGS);
    // Cancelled from its own progress report once ten games are in: the run stops at a job boundary.
    let controller: RunController | null = null;
    const cancelling: RunReports = { status: () => {}, progress: (p) => void (p.done >= 10 && controller?.cancel()) };
    controller = play(db, 'broken', cancelling);
    const cut = await controller.play();
    expect(cut.status).toBe('cancelled');
    expect(cut.done).toBeGreaterThanOrEqual(10);
    expect(cut.done).toBeLessThan(PLANNED);
    expect(await stored(db, 'broken')).toHaveLength(cut.done);
    expect(await getRun(db, 'broken', 'ultimatum')).toMatchObject({ status: 'cancelled', done: cut.done });

    const resumed = await play(db, 'broken').play();
    expect(resumed).toMatchObject({ status: 'done', done: PLANNED });
    expect(await stored(db, 'broken')).toEqual(await stored(db, 'unbroken'));
    // The standings over the resumed run's lines are the unbroken run's.
    expect(resumed.standings).toEqual((await getRun(db, 'unbroken', 'ultimatum'))?.standings);
  });

  it('exports and imports through the one run-file format, JSON and JSONL', async () => {
    const db = freshDb();
    const now = ticking();
    await createStoredRun({ db, now }, 'ultimatum', 'played', 'played', SETTINGS);
    await play(db, 'played').play();
    const lines = await stored(db, 'played');
    for (const text of [await exportRunJsonl(db, 'played'), await exportRunJson(db, 'played')]) {
      const checked = readRunFile(text, text.length, 'any');
      if (!checked.ok) throw new Error(checked.error.message);
      expect(checked.value).toMatchObject({ game: 'ultimatum', run: { id: 'played', done: PLANNED } });
      expect(checked.value.rows).toEqual(lines);
      // Its id is taken (by the run exported), so the import is a copy under a new id.
      const imported = await importRun(db, text, { now: now(), game: 'any' });
      if (!imported.ok) throw new Error(imported.error.message);
      expect(imported.value).toMatchObject({ game: 'ultimatum', status: 'done', done: PLANNED });
      expect(imported.value.id).not.toBe('played');
      expect(await stored(db, imported.value.id)).toEqual(lines);
    }
  });

  it('a file of it is refused where only a built-in game is read', async () => {
    const db = freshDb();
    await createStoredRun({ db, now: ticking() }, 'ultimatum', 'played', 'played', SETTINGS);
    await play(db, 'played').play();
    const imported = await importRun(db, await exportRunJsonl(db, 'played'), { now: 0, game: 'market' });
    expect(imported.ok ? null : imported.error.kind).toBe('wrong-game');
  });
});
