/**
 * The worker's engine pool over fake engines (WebLLM's interface): one load per model whoever
 * asks, one generation at a time, a lost GPU that stops calls instead of reloading, idle engines
 * unloaded for a new model, and loads nobody needs stopped.
 */
import { describe, expect, it, vi } from 'vitest';
import type { LoadedEngine, LoadOptions } from '../../../../src/agents/backends/webllm/engine';
import { EnginePool, type EngineStatus } from '../../../../src/agents/backends/webllm/pool';
import { BackendError, type ChatRequest } from '../../../../src/agents/backends/types';
import { fakeEngine, type FakeModel } from './fake-engine';

const SMALL = 'Qwen3-0.6B-q4f32_1-MLC';
const LARGE = 'Qwen3-4B-q4f32_1-MLC';
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Your move.' }] };
const never = new AbortController().signal;

interface Loads {
  pool: EnginePool;
  loads: { modelId: string; signal: AbortSignal | undefined }[];
  unloads: string[];
  statuses: EngineStatus[];
  /** Lets the pending loads finish. */
  finish: () => void;
}

/** A pool whose loader reports two progress steps, then waits for `finish` when `gated`. */
function pool(model: FakeModel = () => '{"message":"hi","action":{"type":"walk_away"}}', gated = false): Loads {
  const loads: Loads['loads'] = [];
  const unloads: string[] = [];
  const statuses: EngineStatus[] = [];
  let open: () => void = () => {};
  let gate = gated ? new Promise<void>((resolve) => (open = resolve)) : Promise.resolve();
  const p = new EnginePool(async (modelId: string, opts: LoadOptions): Promise<LoadedEngine> => {
    loads.push({ modelId, signal: opts.signal });
    opts.onProgress?.({ fraction: 0.5, text: 'Fetching param cache[1/2]' });
    await new Promise<void>((resolve, reject) => {
      gate.then(resolve);
      opts.signal?.addEventListener('abort', () => reject(opts.signal?.reason), { once: true });
    });
    opts.onProgress?.({ fraction: 1, text: 'Finished' });
    const engine = fakeEngine(model, { loaded: [modelId] });
    return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: async () => void unloads.push(modelId) };
  });
  p.subscribe((s) => statuses.push(s));
  return {
    pool: p,
    loads,
    unloads,
    statuses,
    finish: () => {
      open();
      gate = Promise.resolve();
    },
  };
}

describe('EnginePool', () => {
  it('loads a model once for every caller, reporting progress, then answers through WebLLM requests', async () => {
    const t = pool(undefined, true);
    const release = t.pool.use([SMALL]);
    const backend = t.pool.backend(SMALL);
    const answers = Promise.all([backend.complete(REQUEST, never), t.pool.backend(SMALL).complete(REQUEST, never)]);
    await Promise.resolve();
    t.finish();
    const [a, b] = await answers;
    expect(t.loads.map((l) => l.modelId)).toEqual([SMALL]);
    expect(a.text).toContain('walk_away');
    expect(b.model).toBe(SMALL);
    expect(t.statuses.map((s) => s.state)).toEqual(['loading', 'loading', 'loading', 'ready']);
    expect(t.statuses[1]).toMatchObject({ fraction: 0.5, text: 'Fetching param cache[1/2]' });
    expect(t.pool.states()).toEqual([{ modelId: SMALL, state: 'ready' }]);
    release();
  });

  it('times a call by its generation alone: not the load before it, nor the wait for the GPU', async () => {
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      const p = new EnginePool(async (modelId) => {
        clock += 60_000; // a download and load of a minute
        const engine = fakeEngine(() => {
          clock += 250;
          return '{}';
        }, { loaded: [modelId] });
        return { chat: engine.chat, interruptGenerate: () => undefined, unload: async () => undefined };
      });
      p.use([SMALL]);
      const [a, b] = await Promise.all([p.backend(SMALL).complete(REQUEST, never), p.backend(SMALL).complete(REQUEST, never)]);
      expect(a.latencyMs).toBe(250);
      expect(b.latencyMs).toBe(250);
      expect(clock).toBe(60_500);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('lets one generation run at a time on an engine', async () => {
    let running = 0;
    let most = 0;
    const t = pool(async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return '{}';
    });
    t.pool.use([SMALL]);
    await Promise.all(Array.from({ length: 4 }, () => t.pool.backend(SMALL).complete(REQUEST, never)));
    expect(most).toBe(1);
  });

  it('marks an engine whose GPU is lost: calls fail at once, and a new use loads it afresh', async () => {
    let n = 0;
    const t = pool(() => (++n === 2 ? { reject: 'DeviceLostError: The WebGPU device was lost' } : '{}'));
    t.pool.use([SMALL]);
    const backend = t.pool.backend(SMALL);
    await backend.complete(REQUEST, never);
    const lost = await backend.complete(REQUEST, never).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(BackendError);
    expect((lost as BackendError).kind).toBe('gpu-lost');
    expect(t.statuses.at(-1)).toMatchObject({ modelId: SMALL, state: 'lost' });
    expect(t.unloads).toEqual([SMALL]);
    // No reload loop: the next call fails without loading.
    const again = await backend.complete(REQUEST, never).catch((e: unknown) => e);
    expect((again as BackendError).kind).toBe('gpu-lost');
    expect(t.loads).toHaveLength(1);
    expect(t.pool.states()[0]?.state).toBe('lost');
    // A run that uses the model again (a resume) gets a fresh engine.
    t.pool.use([SMALL]);
    expect((await backend.complete(REQUEST, never)).text).toContain('{}');
    expect(t.loads).toHaveLength(2);
  });

  it('reports a failed load, and tries again on the next call', async () => {
    let fail = true;
    const statuses: EngineStatus[] = [];
    const p = new EnginePool(async (modelId) => {
      if (fail) throw new Error('Failed to fetch');
      const engine = fakeEngine(['{}'], { loaded: [modelId] });
      return { chat: engine.chat, interruptGenerate: () => undefined, unload: async () => undefined };
    });
    p.subscribe((s) => statuses.push(s));
    p.use([SMALL]);
    await expect(p.backend(SMALL).complete(REQUEST, never)).rejects.toThrow('Failed to fetch');
    expect(statuses.at(-1)).toMatchObject({ state: 'failed', text: 'Failed to fetch' });
    fail = false;
    expect((await p.backend(SMALL).complete(REQUEST, never)).text).toContain('{}');
    expect(statuses.at(-1)?.state).toBe('ready');
  });

  it('stops a load once no run or game uses the model, and a cancelled caller stops waiting', async () => {
    const t = pool(undefined, true);
    const release = t.pool.use([LARGE]);
    const caller = new AbortController();
    const call = t.pool.backend(LARGE).complete(REQUEST, caller.signal);
    await Promise.resolve();
    caller.abort(new Error('cancelled'));
    await expect(call).rejects.toThrow('cancelled');
    expect(t.loads[0]?.signal?.aborted).toBe(false);
    release();
    expect(t.loads[0]?.signal?.aborted).toBe(true);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(t.statuses.at(-1)).toMatchObject({ state: 'unloaded', text: 'The load was stopped.' });
  });

  it('unloads engines nobody uses before loading another model, and keeps those in use', async () => {
    const t = pool();
    const releaseSmall = t.pool.use([SMALL]);
    await t.pool.backend(SMALL).complete(REQUEST, never);
    const releaseLarge = t.pool.use([LARGE]);
    await t.pool.backend(LARGE).complete(REQUEST, never);
    expect(t.unloads).toEqual([]);
    releaseSmall();
    releaseLarge();
    const releaseThird = t.pool.use(['Qwen3-1.7B-q4f32_1-MLC']);
    await t.pool.backend('Qwen3-1.7B-q4f32_1-MLC').complete(REQUEST, never);
    expect(t.unloads.sort()).toEqual([LARGE, SMALL].sort());
    releaseThird();
    await t.pool.unloadUnused();
    expect(t.unloads).toContain('Qwen3-1.7B-q4f32_1-MLC');
    expect(t.statuses.filter((s) => s.state === 'unloaded')).toHaveLength(3);
  });

  it('loads a model ahead of play and leaves it loaded; a cancelled preload stops unless a run needs the model', async () => {
    const t = pool(undefined, true);
    const done = t.pool.preload(SMALL, new AbortController().signal);
    await Promise.resolve();
    t.finish();
    await done;
    expect(t.pool.states()).toEqual([{ modelId: SMALL, state: 'ready' }]);
    expect(t.unloads).toEqual([]);
    // Asked again, an engine already loaded says it is ready at once.
    await t.pool.preload(SMALL, new AbortController().signal);
    expect(t.statuses.at(-1)).toMatchObject({ modelId: SMALL, state: 'ready' });
    expect(t.loads).toHaveLength(1);

    const gated = pool(undefined, true);
    const stop = new AbortController();
    const cancelled = gated.pool.preload(LARGE, stop.signal);
    await Promise.resolve();
    stop.abort(new Error('cancelled'));
    await expect(cancelled).rejects.toThrow('cancelled');
    expect(gated.loads[0]?.signal?.aborted).toBe(true);

    const shared = pool(undefined, true);
    const release = shared.pool.use([LARGE]);
    const stop2 = new AbortController();
    const preload = shared.pool.preload(LARGE, stop2.signal);
    const play = shared.pool.backend(LARGE).complete(REQUEST, never);
    await Promise.resolve();
    stop2.abort(new Error('cancelled'));
    await expect(preload).rejects.toThrow('cancelled');
    expect(shared.loads[0]?.signal?.aborted).toBe(false);
    shared.finish();
    expect((await play).text).toContain('walk_away');
    release();
  });
});
