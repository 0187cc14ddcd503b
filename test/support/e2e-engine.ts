/**
 * The engine the end-to-end build (`vite build --mode e2e`) loads in place of WebLLM, which
 * cannot download weights here: vite.config.ts resolves src/agents/backends/webllm/loader.ts to
 * this module in that build alone, so the app never imports it. It is the fake engine with
 * WebLLM's `chat.completions.create` interface, answering as the prompt-reading `thrifty` model. What each build does is chosen by
 * its size, so a test picks a behaviour by picking a model:
 * - 0.6B loads in a moment and plays;
 * - 1.7B is the real WebLLM, in its own worker started by the simulation worker, pointed at a
 *   closed port on 127.0.0.1 (nothing is fetched from outside): its load fails as a download
 *   fails offline;
 * - 4B loses its GPU at its third answer, once per worker, as WebLLM does after a load (a resumed
 *   run then finishes);
 * - 8B stays at its first loading step (reported again every 100 ms, as a slow download reports)
 *   until the load is cancelled, so a test can watch the progress and cancel it on any machine.
 */
import { loadEngine, type LoadedEngine, type LoadOptions } from '../../src/agents/backends/webllm/engine';
import type { EngineLoader } from '../../src/agents/backends/webllm/pool';
import { fakeEngine, thrifty } from '../agents/backends/webllm/fake-engine';

const STEPS = 4;
let lostOnce = false;

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** What loader.ts exports, under the same name. */
export const engineLoader: EngineLoader = loadE2eEngine;

async function loadE2eEngine(modelId: string, opts: LoadOptions): Promise<LoadedEngine> {
  if (modelId.includes('-1.7B-')) {
    const base = `http://127.0.0.1:9/parley-e2e-no-weights/${modelId}/`;
    const model_list = [{ model: base, model_id: modelId, model_lib: `${base}${modelId}.wasm` }];
    return loadEngine(modelId, { ...opts, appConfig: { model_list } });
  }
  const stuck = modelId.includes('-8B-');
  for (let k = 1; k <= STEPS; k += stuck ? 0 : 1) {
    await pause(100, opts.signal);
    opts.onProgress?.({ fraction: k / STEPS, text: `Fetching param cache[${k}/${STEPS}]: ${modelId} (fake engine)` });
  }
  const play = thrifty();
  let answers = 0;
  const engine = fakeEngine(
    (request, index) => {
      answers++;
      if (modelId.includes('-4B-') && !lostOnce && answers === 3) {
        lostOnce = true;
        // As real WebLLM fails a move when the device goes after the load: its runtime disposed
        // under the move ("Tensor has already been disposed"), then ModelNotLoadedError.
        return { lose: true };
      }
      return play(request, index);
    },
    { loaded: [modelId] },
  );
  return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: async () => {} };
}
