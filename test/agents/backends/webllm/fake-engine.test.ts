/**
 * The fake engine against WebLLM 0.2.86 itself, as far as WebLLM runs without a GPU: its
 * ModelNotLoadedError is the one a real MLCEngine throws in Node, and its progress and disposal
 * texts are found in WebLLM's shipped code. Its lock and interrupt flag follow chatCompletion's
 * (`lock.acquire()`, then `this.interruptSignal = false`), which needs a loaded model to run.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { DISPOSED_TEXTS, fakeEngine, modelNotLoadedError, webLlmLoadReports } from './fake-engine';

const WEBLLM_CODE = readFileSync(createRequire(import.meta.url).resolve('@mlc-ai/web-llm'), 'utf8');
const MODEL = 'Qwen3-0.6B-q4f16_1-MLC';
const ask = (content = 'Your move.') => ({ model: MODEL, messages: [{ role: 'user' as const, content }] });
/** Lets every queued task and promise run (the fake answers within them). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

describe("the fake engine beside WebLLM's own code", () => {
  it("throws WebLLM's ModelNotLoadedError, word for word, where a real MLCEngine with no model does", async () => {
    const real = await new MLCEngine().chatCompletion(ask()).catch((e: unknown) => e);
    const fake = await fakeEngine([], { loaded: [] })
      .chat.completions.create(ask())
      .catch((e: unknown) => e);
    expect(real).toBeInstanceOf(Error);
    expect(fake).toMatchObject({ name: (real as Error).name, message: (real as Error).message });
    const realGetMessage = await new MLCEngine().getMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(realGetMessage).toMatchObject({ name: 'ModelNotLoadedError', message: modelNotLoadedError('getMessage').message });
  });

  it.each(DISPOSED_TEXTS)('"%s" is an error TVM throws in WebLLM 0.2.86', (text) => {
    expect(WEBLLM_CODE).toMatch(new RegExp(`throw (?:new )?Error\\("${text}"\\)`));
  });

  it('reports a load in the three phases WebLLM does, each from 0 to 1, in its words', () => {
    const reports = webLlmLoadReports({ shards: 2, shaders: 2 });
    expect(reports.map((r) => [r.progress, r.text.replace(/\[.*$/, '')])).toEqual([
      [0, 'Start to fetch params'],
      [0.5, 'Fetching param cache'],
      [1, 'Fetching param cache'],
      [0.5, 'Loading model from cache'],
      [1, 'Loading model from cache'],
      [0.5, 'Loading GPU shader modules'],
      [1, 'Loading GPU shader modules'],
      [1, 'Finish loading on WebGPU - fake adapter'],
    ]);
    for (const fragment of [
      '"Start to fetch params"',
      '"Fetching param cache["',
      '"MB fetched. "',
      '" It can take a while when we first visit this page to populate the cache."',
      '"Loading model from cache["',
      '"MB loaded. "',
      '"Loading GPU shader modules["',
      '"% completed, "',
      '" secs elapsed."',
      '"Finish loading on "',
    ])
      expect(WEBLLM_CODE).toContain(fragment);
    // A cached model skips the download phase, as WebLLM does when its cache holds every shard.
    expect(webLlmLoadReports({ cached: true }).some((r) => r.text.startsWith('Fetching'))).toBe(false);
  });
});

describe("the fake engine's lock and interrupt flag", () => {
  it('answers one request at a time; the others wait for the lock', async () => {
    const engine = fakeEngine([{ hang: true, partial: 'a' }, 'b']);
    const first = engine.chat.completions.create(ask());
    const second = engine.chat.completions.create(ask());
    await settle();
    expect(engine.waiting).toBe(1);
    engine.interruptGenerate();
    expect((await first).choices[0]).toMatchObject({ finish_reason: 'abort', message: { content: 'a' } });
    expect((await second).choices[0]?.message.content).toBe('b');
    expect(engine.waiting).toBe(0);
  });

  it('loses an interrupt sent while the request it was meant for waits for the lock, as WebLLM clears its flag on taking it', async () => {
    let finishFirst: (reply: string) => void = () => undefined;
    const engine = fakeEngine((_, i) => (i === 0 ? new Promise<string>((resolve) => (finishFirst = resolve)) : { hang: true, partial: 'second' }));
    const first = engine.chat.completions.create(ask());
    const second = engine.chat.completions.create(ask());
    await settle();
    // Meant for the second, which is still waiting: the first runs on, the flag is raised.
    engine.interruptGenerate();
    finishFirst('first');
    expect((await first).choices[0]?.finish_reason).toBe('stop');
    let secondDone = false;
    void second.then(() => (secondDone = true));
    await settle();
    // The second took the lock, cleared the flag and generates as if never interrupted.
    expect(secondDone).toBe(false);
    engine.interruptGenerate();
    expect((await second).choices[0]?.finish_reason).toBe('abort');
  });
});

describe("the fake engine's device lost after load", () => {
  it('fails the move in progress and those waiting with a disposal error, and every later call with ModelNotLoadedError', async () => {
    const engine = fakeEngine([{ hang: true }, 'never']);
    const running = engine.chat.completions.create(ask()).catch((e: unknown) => e);
    const waiting = engine.chat.completions.create(ask()).catch((e: unknown) => e);
    await settle();
    engine.loseDevice();
    expect(await running).toMatchObject({ message: 'Tensor has already been disposed' });
    expect(await waiting).toMatchObject({ message: 'Tensor has already been disposed' });
    await expect(engine.chat.completions.create(ask())).rejects.toMatchObject({ name: 'ModelNotLoadedError' });
    await expect(engine.getMessage()).rejects.toMatchObject({ name: 'ModelNotLoadedError' });
  });

  it('a `lose` reply loses the device during that move', async () => {
    const engine = fakeEngine(['{}', { lose: true, error: new Error('WebGPU context is not initialized') }]);
    await engine.chat.completions.create(ask());
    expect(await engine.getMessage()).toBe('{}');
    await expect(engine.chat.completions.create(ask())).rejects.toThrow('WebGPU context is not initialized');
    await expect(engine.chat.completions.create(ask())).rejects.toMatchObject({ name: 'ModelNotLoadedError' });
  });

  it('a stall ends only when the runtime is disposed under it (an unload), not when interrupted', async () => {
    const engine = fakeEngine([{ stall: true }]);
    const stalled = engine.chat.completions.create(ask()).catch((e: unknown) => e);
    let done = false;
    void stalled.then(() => (done = true));
    await settle();
    engine.interruptGenerate();
    await settle();
    expect(done).toBe(false);
    await engine.unload();
    expect(await stalled).toMatchObject({ message: 'Object has already been disposed' });
    expect(engine.unloads).toBe(1);
  });
});
