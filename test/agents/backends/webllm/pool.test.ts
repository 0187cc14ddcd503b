/**
 * The worker's engine pool over fake engines (WebLLM's interface): one load per model whoever
 * asks, one generation at a time as WebLLM's lock has it, a lost GPU that stops calls instead of
 * reloading, moves bounded in time (on a simulated clock), idle engines unloaded for a new model,
 * and loads nobody needs stopped.
 */
import { describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from '../../../../src/engine/clock';
import type { LoadedEngine, LoadOptions } from '../../../../src/agents/backends/webllm/engine';
import { GPU_LOST_MESSAGE } from '../../../../src/agents/backends/webllm/errors';
import { EnginePool, WEBLLM_MOVE_TIMEOUT, type EngineStatus, type MoveTimeout } from '../../../../src/agents/backends/webllm/pool';
import { BackendError, type ChatRequest } from '../../../../src/agents/backends/types';
import { fakeEngine, webLlmLoadReports, type FakeEngine, type FakeModel, type FakeReply } from './fake-engine';

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
    // Half the download is 40% of the load (a download is 80% of the bar: progress.ts).
    expect(t.statuses[1]).toMatchObject({ fraction: 0.4, phase: 'downloading', phaseFraction: 0.5, text: 'Fetching param cache[1/2]' });
    expect(t.pool.states()).toEqual([{ modelId: SMALL, state: 'ready' }]);
    release();
  });

  for (const cached of [false, true]) {
    it(`shows WebLLM's phases as one bar that never moves back (${cached ? 'from the cache' : 'a first download'})`, async () => {
      const statuses: EngineStatus[] = [];
      const reports = webLlmLoadReports({ cached });
      const p = new EnginePool(async (modelId: string, opts: LoadOptions): Promise<LoadedEngine> => {
        for (const r of reports) opts.onProgress?.({ fraction: r.progress, text: r.text });
        const engine = fakeEngine(() => '{}', { loaded: [modelId] });
        return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: async () => undefined };
      });
      p.subscribe((s) => statuses.push(s));
      const release = p.use([SMALL]);
      await p.preload(SMALL, new AbortController().signal);
      release();
      const loading = statuses.filter((s) => s.state === 'loading');
      // WebLLM's own value starts over at each phase; the bar does not.
      expect(reports.filter((r, i) => i > 0 && r.progress < reports[i - 1]!.progress).length).toBe(cached ? 1 : 2);
      for (let i = 1; i < loading.length; i++) expect(loading[i]!.fraction!).toBeGreaterThanOrEqual(loading[i - 1]!.fraction!);
      const phases = loading.flatMap((s) => (s.phase ? [s.phase] : [])).filter((ph, i, all) => ph !== all[i - 1]);
      expect(phases).toEqual(cached ? ['loading', 'compiling'] : ['downloading', 'loading', 'compiling']);
      expect(statuses.at(-1)).toMatchObject({ state: 'ready', fraction: 1 });
    });
  }

  it('times a call by its generation alone: not the load before it, nor the wait for the GPU', async () => {
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      const p = new EnginePool(async (modelId) => {
        clock += 60_000; // a download and load of a minute
        const engine = fakeEngine(
          () => {
            clock += 250;
            return '{}';
          },
          { loaded: [modelId] },
        );
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
    await expect.poll(() => t.statuses.at(-1)).toMatchObject({ state: 'unloaded', text: 'The load was stopped.' });
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

/** Lets every queued task and promise run, so that what has not happened by then is not going to. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

/**
 * A pool on a simulated clock whose every load makes a fake engine answering as `model` (told
 * which load it is, from 1). `ended` lists the loads whose worker was ended (terminate).
 */
function timedPool(model: (load: number) => FakeModel | readonly FakeReply[], opts: { moveTimeout?: MoveTimeout; stopGraceMs?: number } = {}) {
  const clock = new SimulatedClock();
  const engines: FakeEngine[] = [];
  const ended: number[] = [];
  const statuses: EngineStatus[] = [];
  const pool = new EnginePool(
    async (modelId): Promise<LoadedEngine> => {
      const load = engines.length + 1;
      const engine = fakeEngine(model(load), { loaded: [modelId] });
      engines.push(engine);
      return {
        chat: engine.chat,
        interruptGenerate: () => engine.interruptGenerate(),
        unload: () => engine.unload(),
        // A worker that is ended takes WebLLM's runtime with it.
        terminate: () => {
          ended.push(load);
          void engine.unload();
        },
      };
    },
    undefined,
    { moveTimeout: opts.moveTimeout ?? { baseMs: 1000, perTokenMs: 0 }, stopGraceMs: opts.stopGraceMs ?? 100, sleep: (ms, signal) => clock.sleep(ms, signal) },
  );
  pool.subscribe((status) => statuses.push(status));
  const release = pool.use([SMALL]);
  const engine = (load = 1): FakeEngine => {
    const found = engines[load - 1];
    if (!found) throw new Error(`no load ${load}`);
    return found;
  };
  return { clock, pool, engines, engine, ended, statuses, release, backend: pool.backend(SMALL) };
}

/** A reply that WebLLM finishes only when told, whatever interrupts it meanwhile (a prefill, a grammar compile). */
function gated(): { reply: Promise<string>; open: (text?: string) => void } {
  let open: (text?: string) => void = () => undefined;
  const reply = new Promise<string>((resolve) => (open = (text = '{}') => resolve(text)));
  return { reply, open };
}

describe('EnginePool: a GPU lost after load', () => {
  it('the first move that meets the disposed runtime marks the model lost; the moves waiting and every later one fail at once', async () => {
    const t = timedPool(() => ['{}', { lose: true }, '{}']);
    await t.backend.complete(REQUEST, never);
    const losing = t.backend.complete(REQUEST, never).catch((e: unknown) => e);
    const waiting = t.backend.complete(REQUEST, never).catch((e: unknown) => e);
    expect(await losing).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
    expect(t.statuses.at(-1)).toMatchObject({ modelId: SMALL, state: 'lost', text: GPU_LOST_MESSAGE });
    expect(await waiting).toMatchObject({ kind: 'gpu-lost', message: GPU_LOST_MESSAGE });
    await expect(t.backend.complete(REQUEST, never)).rejects.toMatchObject({ kind: 'gpu-lost' });
    // The waiting move never reached WebLLM, no engine was loaded again, and the dead one was ended.
    expect(t.engine().requests).toHaveLength(2);
    expect(t.engines).toHaveLength(1);
    expect(t.ended).toEqual([1]);
  });
});

describe("EnginePool: one move at a time, as WebLLM's lock has it", () => {
  it('the next move waits until WebLLM has finished the last, not until its caller gave up', async () => {
    const first = gated();
    const t = timedPool(() => (_, i) => (i === 0 ? first.reply : '{"next":true}'));
    const caller = new AbortController();
    const a = t.backend.complete(REQUEST, caller.signal).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    caller.abort(new Error('user pressed stop'));
    expect(await a).toMatchObject({ message: 'user pressed stop' });
    expect(t.engine().interrupts).toBe(1);
    const b = t.backend.complete(REQUEST, never);
    await settle();
    // WebLLM is still on the first move: the second is held here, not in WebLLM's lock where an interrupt would be lost.
    expect(t.engine().requests).toHaveLength(1);
    expect(t.engine().waiting).toBe(0);
    first.open();
    expect((await b).text).toContain('"next":true');
    expect(t.engine().requests).toHaveLength(2);
  });

  it('a move cancelled while it waits behind another never reaches WebLLM, and sends it no interrupt', async () => {
    const t = timedPool(() => [{ hang: true, partial: '' }, '{"third":true}']);
    const first = new AbortController();
    const a = t.backend.complete(REQUEST, first.signal).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    const second = new AbortController();
    const b = t.backend.complete(REQUEST, second.signal).catch((e: unknown) => e);
    second.abort(new Error('cancelled while waiting'));
    expect(await b).toMatchObject({ message: 'cancelled while waiting' });
    expect(t.engine().interrupts).toBe(0);
    // The first move's own cancel is the interrupt WebLLM honours; then the third move goes.
    first.abort(new Error('stop'));
    await a;
    expect((await t.backend.complete(REQUEST, never)).text).toContain('"third":true');
    expect(t.engine().requests).toHaveLength(2);
    expect(t.engine().interrupts).toBe(1);
  });
});

describe('EnginePool: every move has a time limit', () => {
  const LONG: ChatRequest = { ...REQUEST, maxTokens: 100 };

  it('the limit is the base plus the allowance for each token the move may write', async () => {
    const t = timedPool(() => [{ hang: true }], { moveTimeout: { baseMs: 1000, perTokenMs: 10 } });
    const a = t.backend.complete(LONG, never).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    t.clock.advance(1999);
    await settle();
    expect(t.engine().interrupts).toBe(0);
    t.clock.advance(1);
    expect(await a).toMatchObject({ kind: 'timeout', message: `${SMALL} gave no answer within 2 s. The move was stopped.` });
  });

  it('by default, a minute and 250 ms a token: a 512-token move is stopped at 188 s', async () => {
    expect(WEBLLM_MOVE_TIMEOUT).toEqual({ baseMs: 60_000, perTokenMs: 250 });
    const t = timedPool(() => [{ hang: true }], { moveTimeout: WEBLLM_MOVE_TIMEOUT });
    const a = t.backend.complete({ ...REQUEST, maxTokens: 512 }, never).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    t.clock.advance(187_999);
    await settle();
    expect(t.engine().interrupts).toBe(0);
    t.clock.advance(1);
    expect(await a).toMatchObject({ kind: 'timeout', message: `${SMALL} gave no answer within 188 s. The move was stopped.` });
  });

  it('a stalled move is interrupted at its limit and fails as a timeout; WebLLM stopped, so the engine serves the next move', async () => {
    const t = timedPool(() => [{ hang: true }, '{"after":true}']);
    const a = t.backend.complete(REQUEST, never).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    t.clock.advance(1000);
    const error = await a;
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ kind: 'timeout', message: `${SMALL} gave no answer within 1 s. The move was stopped.` });
    expect(t.engine().interrupts).toBe(1);
    expect((await t.backend.complete(REQUEST, never)).text).toContain('"after":true');
    expect(t.engines).toHaveLength(1);
    expect(t.ended).toEqual([]);
  });

  it('a move WebLLM does not stop when interrupted is ended after the grace; the model loads afresh on the next move', async () => {
    const t = timedPool((load) => (load === 1 ? [{ stall: true }] : ['{"fresh":true}']));
    const a = t.backend.complete(REQUEST, never).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    t.clock.advance(1000);
    await expect.poll(() => t.engine().interrupts).toBe(1);
    t.clock.advance(100);
    expect(await a).toMatchObject({
      kind: 'timeout',
      message: `${SMALL} gave no answer within 1 s. WebLLM did not stop when asked, so its worker was ended; the model loads again on the next move.`,
    });
    expect(t.ended).toEqual([1]);
    expect(t.statuses.at(-1)).toMatchObject({ modelId: SMALL, state: 'unloaded', text: expect.stringContaining('stopped answering') });
    expect((await t.backend.complete(REQUEST, never)).text).toContain('"fresh":true');
    expect(t.engines).toHaveLength(2);
    // Not a lost GPU: nothing pauses a run over one stalled move.
    expect(t.statuses.some((s) => s.state === 'lost')).toBe(false);
  });

  it('a cancelled move that WebLLM never finishes holds the engine until its limit and the grace, no longer', async () => {
    const t = timedPool((load) => (load === 1 ? [{ stall: true }] : ['{"fresh":true}']));
    const caller = new AbortController();
    const a = t.backend.complete(REQUEST, caller.signal).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    caller.abort(new Error('stop'));
    expect(await a).toMatchObject({ message: 'stop' });
    const b = t.backend.complete(REQUEST, never);
    await settle();
    expect(t.engine().requests).toHaveLength(1);
    t.clock.advance(1000);
    await settle();
    expect(t.ended).toEqual([]);
    t.clock.advance(100);
    expect((await b).text).toContain('"fresh":true');
    expect(t.ended).toEqual([1]);
  });

  it('an idle engine is unloaded only once WebLLM has finished the move its caller gave up on', async () => {
    const first = gated();
    const t = timedPool(() => (_, i) => (i === 0 ? first.reply : '{}'));
    const caller = new AbortController();
    const a = t.backend.complete(REQUEST, caller.signal).catch((e: unknown) => e);
    await expect.poll(() => t.engines[0]?.requests.length).toBe(1);
    caller.abort(new Error('stop'));
    await a;
    // The run ends and the page frees the GPU while WebLLM is still on the abandoned move.
    t.release();
    const unloading = t.pool.unloadUnused();
    await settle();
    expect(t.engine().unloads).toBe(0);
    first.open();
    await unloading;
    expect(t.engine().unloads).toBe(1);
    // WebLLM finished the move before its runtime went: it did not fail under an unload.
    expect(t.engine().requests).toHaveLength(1);
    expect(t.statuses.at(-1)).toMatchObject({ modelId: SMALL, state: 'unloaded' });
  });
});
