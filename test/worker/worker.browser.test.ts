import { afterAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import type {} from '../support/paced-commands';
import { SimClient } from '../../src/worker/client';
import type { FromWorker } from '../../src/worker/messages';
import { deleteRun, getRun, openDb } from '../../src/storage';
import { loadNegotiations } from '../../src/storage/runs';
import { PROGRESS_INTERVAL_MS } from '../../src/runs/play';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';

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

const config = (scenariosPerPair: number, agents = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator']) => ({
  agents,
  scenariosPerPair,
  preset: 'standard' as const,
  seed: 3,
  selfPlay: false,
  deadline: { kind: 'fixed' as const, turns: 20 },
  firstMover: 'seller' as const,
  llm: { ...DEFAULT_LLM_SETTINGS },
});

/**
 * Two scripted strategies and a remote model paced by the test (test/support/paced-model.ts): the
 * run cannot get past the model's calls faster than the test lets them through.
 */
const PACED_AGENTS = ['boulware', 'hardliner', 'vllm:paced'];
const remote = (baseUrl: string) => ({ providers: { vllm: { baseUrl } } });

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

  test('stores a whole tournament', async () => {
    const runId = crypto.randomUUID();
    created.push(runId);
    const done = follow(runId);
    client.send({ type: 'run.start', runId, name: 'whole', config: config(10) });
    const { progress, status } = await done;
    expect(status).toMatchObject({ status: 'done', done: 300, planned: 300 });
    expect(await stored(runId)).toBe(300);
    expect((await getRun(db, runId))?.standings?.leaderboard).toHaveLength(12);
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
    expect(progress.at(-1)?.done).toBe(300);
  });

  test('reports progress at a bounded rate through a run that lasts, paced by its model', async () => {
    // One model call per 10 ms: the run takes at least as long as its calls, on any machine.
    const paced = await commands.pacedModelStart({ everyMs: 10 });
    try {
      const runId = crypto.randomUUID();
      created.push(runId);
      const done = follow(runId);
      const t0 = performance.now();
      client.send({ type: 'run.start', runId, name: 'paced', config: config(2, PACED_AGENTS), remote: remote(paced.baseUrl) });
      const { progress, status } = await done;
      const seconds = (performance.now() - t0) / 1000;
      expect(status).toMatchObject({ status: 'done', done: 12, planned: 12 });
      // Dozens of calls, each let through 10 ms after the one before: the run lasted a good part of a second.
      expect((await commands.pacedModelState(paced.id)).answered).toBeGreaterThan(12);
      // One at the start, one at the end, and at most one per interval in between.
      expect(progress.length).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / PROGRESS_INTERVAL_MS) + 3);
      expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
      expect(progress.at(-1)?.done).toBe(12);
    } finally {
      await commands.pacedModelClose(paced.id);
    }
  });

  test('cancels a run held mid-way by its model, keeping what it stored, and resumes it to the end', async () => {
    // The model answers nothing until allowed: the run is mid-way for as long as the test waits.
    const paced = await commands.pacedModelStart({ allowance: 0 });
    try {
      const runId = crypto.randomUUID();
      created.push(runId);
      const planned = 6 * 4;
      const cancelled = follow(runId);
      client.send({ type: 'run.start', runId, name: 'cancel me', config: config(4, PACED_AGENTS), remote: remote(paced.baseUrl) });
      await commands.pacedModelWhenHeld(paced.id);
      client.send({ type: 'run.cancel', runId });
      const { status } = await cancelled;
      expect(status.status).toBe('cancelled');
      // The first negotiation (boulware against hardliner) needs no model; the run stopped at the next.
      expect(status.done).toBeGreaterThan(0);
      expect(status.done).toBeLessThan(planned);
      expect(await stored(runId)).toBe(status.done);

      await commands.pacedModelAllow(paced.id, null);
      const resumed = follow(runId);
      client.send({ type: 'run.resume', runId, remote: remote(paced.baseUrl) });
      expect((await resumed).status).toMatchObject({ status: 'done', done: planned });
      expect(await stored(runId)).toBe(planned);
    } finally {
      await commands.pacedModelClose(paced.id);
    }
  });
});
