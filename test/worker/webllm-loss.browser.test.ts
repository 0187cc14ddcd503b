/**
 * A GPU lost after a model has loaded, as WebLLM 0.2.86 shows it (the move in progress fails
 * with TVM's "Tensor has already been disposed", every later call with ModelNotLoadedError),
 * in a tournament run in Chromium with real IndexedDB and Web Locks: the run pauses at the first
 * such failure, with the words of a lost device, and resumes with a fresh engine.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { LoadedEngine } from '../../src/agents/backends/webllm/engine';
import { GPU_LOST_MESSAGE } from '../../src/agents/backends/webllm/errors';
import { EnginePool, type EngineStatus } from '../../src/agents/backends/webllm/pool';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';
import { openDb } from '../../src/storage';
import { getRun, loadNegotiations } from '../../src/storage/runs';
import { WorkerRun, type RunHost } from '../../src/worker/tournament-run';
import { fakeEngine, thrifty, type FakeEngine } from '../agents/backends/webllm/fake-engine';

const MODEL = 'Qwen3-0.6B-q4f32_1-MLC';
const SPEC = `webllm:${MODEL}`;
const db = openDb(`parley-webllm-loss-${crypto.randomUUID()}`);

afterAll(async () => {
  db.close();
  await db.delete();
});

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

describe('a GPU lost after load, in a tournament run', () => {
  test('the first disposed-runtime failure pauses the run with the words of a lost device; resuming finishes it', async () => {
    const fakes: FakeEngine[] = [];
    const statuses: EngineStatus[] = [];
    const engines = new EnginePool(async (modelId): Promise<LoadedEngine> => {
      const good = thrifty();
      // The first engine's device goes at its seventh answer; a fresh one after the resume keeps its GPU.
      const engine = fakeEngine(fakes.length === 0 ? (req, i) => (i === 6 ? { lose: true } : good(req, i)) : good, { loaded: [modelId] });
      fakes.push(engine);
      return { chat: engine.chat, interruptGenerate: () => engine.interruptGenerate(), unload: () => engine.unload() };
    });
    engines.subscribe((s) => statuses.push(s));
    const host: RunHost = { db, post: () => undefined, now: () => Date.now(), engines };
    const runId = crypto.randomUUID();
    const run = await WorkerRun.start(host, 'bilateral', runId, 'webllm loss', config);

    expect(await run.play()).toBe('paused');
    const paused = await getRun(db, runId);
    expect(paused?.message).toMatch(
      new RegExp(`^${GPU_LOST_MESSAGE.replace(/[.()]/g, '\\$&')} The run was paused after \\d+ negotiations?; nothing saved was lost`),
    );
    const stored = (await loadNegotiations(db, runId)).rows;
    // One negotiation ended at the lost move; none after it was played against the dead engine.
    expect(stored.filter((r) => r.outcome === 'error')).toHaveLength(1);
    expect(stored.at(-1)?.events.at(-1)).toMatchObject({ type: 'end', outcome: { kind: 'error', message: GPU_LOST_MESSAGE } });
    expect(fakes[0]?.requests).toHaveLength(7);
    expect(statuses.filter((s) => s.state === 'lost')).toEqual([{ modelId: MODEL, state: 'lost', text: GPU_LOST_MESSAGE }]);

    expect(await new WorkerRun(host, 'bilateral', runId).play()).toBe('done');
    expect(fakes).toHaveLength(2);
    const all = (await loadNegotiations(db, runId)).rows;
    expect(all).toHaveLength(PLANNED);
    expect(all.filter((r) => r.outcome === 'error')).toHaveLength(1);
  });
});
