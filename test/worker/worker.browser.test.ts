import { afterAll, describe, expect, test } from 'vitest';
import { SimClient } from '../../src/worker/client';
import type { FromWorker } from '../../src/worker/messages';
import { deleteRun, getRun, openDb } from '../../src/storage';
import { loadNegotiations } from '../../src/storage/runs';
import { PROGRESS_INTERVAL_MS } from '../../src/worker/tournament-run';

// The real module worker, built by Vite as the app builds it; it writes to the app's database.
const client = new SimClient();
const db = openDb();
const created: string[] = [];
const stored = async (runId: string) => (await loadNegotiations(db, runId, { limit: 0 })).total;

afterAll(async () => {
  client.terminate();
  for (const id of created) await deleteRun(db, id);
  db.close();
});

/** Collects the worker's messages about one run until its status leaves 'running'. */
function follow(runId: string): Promise<{ progress: { at: number; done: number }[]; status: FromWorker & { type: 'run.status' } }> {
  const progress: { at: number; done: number }[] = [];
  return new Promise((resolve) => {
    const stop = client.subscribe((m) => {
      if (!('runId' in m) || m.runId !== runId) return;
      if (m.type === 'run.progress') progress.push({ at: performance.now(), done: m.done });
      if (m.type === 'run.status' && m.status !== 'running') {
        stop();
        resolve({ progress, status: m });
      }
    });
  });
}

const config = (scenariosPerPair: number) => ({
  agents: ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator'],
  scenariosPerPair,
  preset: 'standard' as const,
  seed: 3,
  selfPlay: false,
  deadline: { kind: 'fixed' as const, turns: 20 },
  firstMover: 'seller' as const,
});

describe('the simulation worker', () => {
  test('answers a malformed message with a failure instead of acting on it', async () => {
    const failure = new Promise<string>((resolve) => {
      const stop = client.subscribe((m) => {
        if (m.type === 'failed') {
          stop();
          resolve(m.message);
        }
      });
    });
    client.send({ type: 'run.start', runId: 'x', name: 'x', config: { ...config(1), scenariosPerPair: -4 } } as never);
    expect(await failure).toMatch(/malformed message/);
    expect(await getRun(db, 'x')).toBeUndefined();
  });

  test('stores a whole tournament and reports progress at a bounded rate', async () => {
    const runId = crypto.randomUUID();
    created.push(runId);
    const done = follow(runId);
    const t0 = performance.now();
    client.send({ type: 'run.start', runId, name: 'bounded', config: config(60) });
    const { progress, status } = await done;
    const seconds = (performance.now() - t0) / 1000;
    expect(status).toMatchObject({ status: 'done', done: 1800, planned: 1800 });
    expect(await stored(runId)).toBe(1800);
    expect((await getRun(db, runId))?.standings?.leaderboard).toHaveLength(12);
    // One at the start, one at the end, and at most one per interval in between.
    expect(progress.length).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / PROGRESS_INTERVAL_MS) + 3);
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
    expect(progress.at(-1)?.done).toBe(1800);
  });

  test('cancels a run, keeping what it stored, and resumes it to the end', async () => {
    const runId = crypto.randomUUID();
    created.push(runId);
    const cancelled = follow(runId);
    const stopOnFirstProgress = client.subscribe((m) => {
      if (m.type === 'run.progress' && m.runId === runId && m.done > 0) {
        stopOnFirstProgress();
        client.send({ type: 'run.cancel', runId });
      }
    });
    client.send({ type: 'run.start', runId, name: 'cancel me', config: config(400) });
    const { status } = await cancelled;
    expect(status.status).toBe('cancelled');
    expect(status.done).toBeLessThan(12_000);
    expect(await stored(runId)).toBe(status.done);

    const resumed = follow(runId);
    client.send({ type: 'run.resume', runId });
    expect((await resumed).status).toMatchObject({ status: 'done', done: 12_000 });
    expect(await stored(runId)).toBe(12_000);
  });
});
