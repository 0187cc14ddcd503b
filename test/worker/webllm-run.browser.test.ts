/**
 * Tournament runs and Arena games with WebLLM seats, in Chromium with real IndexedDB and Web
 * Locks: the worker's classes with the engine pool over fake engines (WebLLM's interface; no
 * weights can be downloaded here). A GPU lost mid-run pauses the run with nothing lost, and
 * resuming finishes it with a fresh engine.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { LoadedEngine } from '../../src/agents/backends/webllm/engine';
import { EnginePool, type EngineStatus } from '../../src/agents/backends/webllm/pool';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { openDb } from '../../src/storage';
import { getRun, loadNegotiations } from '../../src/storage/runs';
import { ArenaGame } from '../../src/worker/arena';
import type { FromWorker } from '../../src/worker/messages';
import { WorkerRun, type RunHost } from '../../src/worker/tournament-run';
import { fakeEngine, thrifty, type FakeEngine, type FakeModel } from '../agents/backends/webllm/fake-engine';
import { generateScenarios } from '../../src/games/bilateral/scenario';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';

const MODEL = 'Qwen3-0.6B-q4f32_1-MLC';
const SPEC = `webllm:${MODEL}`;
const db = openDb(`parley-webllm-run-${crypto.randomUUID()}`);

afterAll(async () => {
  db.close();
  await db.delete();
});

/** A host whose pool loads fake engines answering with `model`; counts loads, keeps every message. */
function host(model: (modelId: string, load: number) => FakeModel) {
  const posted: FromWorker[] = [];
  const statuses: EngineStatus[] = [];
  let loads = 0;
  const fakes: FakeEngine[] = [];
  const engines = new EnginePool(async (modelId, opts): Promise<LoadedEngine> => {
    const load = ++loads;
    opts.onProgress?.({ fraction: 1, text: 'Finished loading (fake engine)' });
    const engine = fakeEngine(model(modelId, load), { loaded: [modelId] });
    fakes.push(engine);
    return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: async () => undefined };
  });
  engines.subscribe((s) => statuses.push(s));
  const h: RunHost = { db, post: (m) => posted.push(m), now: () => Date.now(), engines };
  return { host: h, posted, statuses, fakes, loads: () => loads };
}

const config = {
  agents: [SPEC, 'boulware', 'hardliner'],
  scenariosPerPair: 3,
  preset: 'standard' as const,
  seed: 11,
  selfPlay: false,
  deadline: { kind: 'fixed' as const, turns: 12 },
  firstMover: 'seller' as const,
  llm: { ...DEFAULT_LLM_SETTINGS },
};
const PLANNED = 3 * 6;

describe('WebLLM seats in the worker', () => {
  test('a tournament with a WebLLM agent: every model move stored with its call, scored from its log', async () => {
    const t = host(() => thrifty());
    const runId = crypto.randomUUID();
    const run = await WorkerRun.start(t.host, 'bilateral', runId, 'webllm', config);
    expect(await run.play()).toBe('done');
    expect(t.loads()).toBe(1);
    const rows = (await loadNegotiations(db, runId)).rows;
    expect(rows).toHaveLength(PLANNED);
    const scenarios = generateScenarios({ preset: 'standard', seed: 11, count: 3, deadline: { kind: 'fixed', turns: 12 }, firstMover: 'seller' });
    for (const row of rows) {
      expect(row.scenario).toEqual(scenarios[Number(row.jobId.split('-')[2])]);
      const role = row.buyer === SPEC ? 'buyer' : row.seller === SPEC ? 'seller' : null;
      if (role === null) continue;
      const modelEvents = row.events.filter((e) => e.type !== 'end' && e.type !== 'forfeit' && e.actor === role);
      expect(modelEvents.length).toBeGreaterThan(0);
      for (const e of modelEvents) {
        if (e.type !== 'move' && e.type !== 'invalid') continue;
        expect(e.call).toMatchObject({ backend: 'webllm', model: MODEL });
        expect(e.call?.prompt).toContain(`You are the ${role}`);
      }
      // The thrifty model never goes past its own reservation: no deal below cost or above value.
      expect(computeMetrics(row.scenario, row.events)[role].irViolation).toBe(false);
    }
    // Loaded once: the load's steps, the last of them the seat's move grammar compiled, then ready.
    expect(t.statuses.map((s) => s.state)).toEqual(['loading', 'loading', 'loading', 'loading', 'ready']);
    expect(t.statuses.filter((s) => s.phase === 'preparing').map((s) => s.phaseFraction)).toEqual([0, 1]);
    expect((await getRun(db, runId))?.status).toBe('done');
  });

  test('a GPU lost mid-run ends that negotiation as an error and pauses the run; resuming finishes it', async () => {
    let lost = false;
    const t = host(() => {
      const good = thrifty();
      let answers = 0;
      return (request, index) => {
        if (!lost && ++answers === 7) {
          lost = true;
          // As real WebLLM fails a move when the device goes after the load: its runtime disposed under it.
          return { lose: true };
        }
        return good(request, index);
      };
    });
    const runId = crypto.randomUUID();
    const run = await WorkerRun.start(t.host, 'bilateral', runId, 'webllm', config);
    expect(await run.play()).toBe('paused');
    const paused = await getRun(db, runId);
    expect(paused?.status).toBe('paused');
    expect(paused?.message).toContain('The GPU stopped working');
    expect(paused?.message).toContain('nothing saved was lost');
    const stored = (await loadNegotiations(db, runId)).rows;
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThan(PLANNED);
    const last = stored.at(-1);
    expect(last?.outcome).toBe('error');
    expect(last?.events.at(-1)).toMatchObject({ type: 'end', outcome: { kind: 'error', message: expect.stringContaining('device lost') } });
    expect(stored.filter((r) => r.outcome === 'error')).toHaveLength(1);
    const status = t.posted.filter((m) => m.type === 'run.status').at(-1);
    expect(status).toMatchObject({ status: 'paused', done: stored.length });
    expect(t.statuses.some((s) => s.state === 'lost')).toBe(true);

    expect(await new WorkerRun(t.host, 'bilateral', runId).play()).toBe('done');
    expect(t.loads()).toBe(2);
    const all = (await loadNegotiations(db, runId)).rows;
    expect(all).toHaveLength(PLANNED);
    expect(all.slice(0, stored.length)).toEqual(stored);
    expect(all.filter((r) => r.outcome === 'error')).toHaveLength(1);
  });

  test('an Arena game between two WebLLM models uses one engine each, and a cancel interrupts generation', async () => {
    let hung = false;
    const t = host((modelId) => {
      const good = thrifty();
      // The seller (1.7B) opens, the buyer (0.6B) answers, and the seller's second answer never comes.
      return (request, index) => (modelId.includes('1.7B') && index === 1 ? ((hung = true), { hang: true }) : good(request, index));
    });
    const events: FromWorker[] = [];
    const s = generateScenarios({ preset: 'standard', seed: 3, count: 1 })[0];
    if (!s) throw new Error('no scenario');
    const game = new ArenaGame(
      { ...t.host, post: (m) => events.push(m) },
      {
        gameId: crypto.randomUUID(),
        scenario: s,
        buyer: SPEC,
        seller: 'webllm:Qwen3-1.7B-q4f32_1-MLC',
        delayMs: 0,
        paused: false,
        save: true,
      },
    );
    const played = game.play();
    await expect.poll(() => hung, { timeout: 5000 }).toBe(true);
    expect(t.loads()).toBe(2);
    game.cancel();
    expect(await played).toBeNull();
    // The seller's engine was told to stop generating; the buyer's had nothing to stop.
    const seller = t.fakes.find((f) => f.requests[0]?.model === 'Qwen3-1.7B-q4f32_1-MLC');
    expect(seller?.interrupts).toBe(1);
    expect(t.fakes.find((f) => f !== seller)?.interrupts).toBe(0);
    const end = events.filter((m) => m.type === 'arena.event').at(-1);
    expect(end?.type === 'arena.event' && end.event).toMatchObject({ type: 'end', outcome: { kind: 'cancelled' } });
  });

  test('an Arena game with the same WebLLM model in both seats loads it once and plays it to the end', async () => {
    const t = host(() => thrifty());
    const s = generateScenarios({ preset: 'standard', seed: 5, count: 1 })[0];
    if (!s) throw new Error('no scenario');
    const game = new ArenaGame(t.host, { gameId: crypto.randomUUID(), scenario: s, buyer: SPEC, seller: SPEC, delayMs: 0, paused: false, save: true });
    const runId = await game.play();
    expect(runId).not.toBeNull();
    expect(t.loads()).toBe(1);
    const [row] = (await loadNegotiations(db, runId as string)).rows;
    const actors = new Set(row?.events.flatMap((e) => (e.type === 'move' && e.call?.backend === 'webllm' ? [e.actor] : [])));
    expect(actors).toEqual(new Set(['buyer', 'seller']));
    expect(row?.outcome).not.toBe('error');
  });
});
