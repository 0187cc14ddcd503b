/**
 * The heartbeat: a simulation worker killed without an error event (as the browser ends one that
 * runs out of memory) is found gone, and the run it played is interrupted, kept and resumable. The
 * heartbeat runs on a fake clock the test advances; nothing waits on the wall clock, only on state.
 */
import { afterEach, describe, expect, onTestFinished, test } from 'vitest';
import { commands } from 'vitest/browser';
import type {} from '../support/paced-commands';
import { SILENT_DEATH, SimClient, WORKER_LOCK_PREFIX, type HeartbeatClock, type SimMessage } from '../../src/worker/client';
import { deleteRun, getRun, loadNegotiations } from '../../src/storage/runs';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';
import { TournamentSession } from '../../src/ui/state/tournament.svelte';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { database, sim, useSim } from '../../src/ui/state/sim';
import RunsPage from '../../src/ui/pages/RunsPage.svelte';
import { cleanup, must, render, text } from '../ui/helpers.svelte';

afterEach(cleanup);

/** Time that moves only when the test says; each timer fires for every interval passed. */
function fakeClock(): HeartbeatClock & { advance(ms: number): void } {
  let now = 0;
  const timers = new Set<{ ms: number; next: number; tick: () => void }>();
  return {
    now: () => now,
    every(ms, tick) {
      const timer = { ms, next: now + ms, tick };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        due.tick();
      }
      now = end;
    },
  };
}

const BEAT = { intervalMs: 1_000, silentMs: 3_000 };

/** A client whose workers the test can reach, to kill one behind the client's back. */
function client(create: () => Worker, options: { giveUpMs?: number; lockHeld?: (name: string) => Promise<boolean | null> } = {}) {
  const clock = fakeClock();
  const workers: Worker[] = [];
  const c = new SimClient(
    () => {
      const w = create();
      workers.push(w);
      return w;
    },
    { clock, ...BEAT, ...options },
  );
  onTestFinished(() => c.terminate());
  const heard: SimMessage[] = [];
  c.subscribe((m) => heard.push(m));
  return { c, clock, workers, heard };
}

const simWorker = () => new Worker(new URL('../../src/worker/sim.worker.ts', import.meta.url), { type: 'module', name: 'parley-sim' });
const scripted = (source: string) => {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  return () => new Worker(url, { type: 'module' });
};

/** Beats until `ready()` holds: every poll moves the fake clock one interval on. */
const beatUntil = (clock: ReturnType<typeof fakeClock>, ready: () => boolean | Promise<boolean>) =>
  expect
    .poll(async () => {
      clock.advance(BEAT.intervalMs);
      return ready();
    })
    .toBe(true);

const PACED_AGENTS = ['boulware', 'hardliner', 'vllm:paced'];
const config = {
  agents: PACED_AGENTS,
  scenariosPerPair: 2,
  preset: 'standard' as const,
  seed: 5,
  selfPlay: false,
  deadline: { kind: 'fixed' as const, turns: 20 },
  firstMover: 'seller' as const,
  llm: { ...DEFAULT_LLM_SETTINGS },
};

describe('the heartbeat', () => {
  test('finds a worker killed without a word: its run is interrupted, what it stored is kept, and it resumes to the end', async () => {
    // Only the life lock can tell it dead here: silence alone never counts.
    const { c, clock, workers } = client(simWorker, { giveUpMs: Infinity });
    // The page's own client is put back afterwards (its worker ended, to start again when next asked):
    // the files after this one share the page, and what follows the worker (the engines' view) follows that client.
    const pageClient = sim();
    useSim(c);
    onTestFinished(() => useSim(pageClient));
    // A remote model that answers nothing until allowed holds the run mid-way, however fast the machine.
    const paced = await commands.pacedModelStart({ allowance: 0 });
    onTestFinished(() => commands.pacedModelClose(paced.id));
    const session = new TournamentSession(() => ({ providers: { vllm: { baseUrl: paced.baseUrl } } }));
    onTestFinished(() => session.dispose());
    const runId = session.start('killed mid-way', config);
    onTestFinished(() => deleteRun(database(), runId));
    await commands.pacedModelWhenHeld(paced.id);
    await expect.poll(async () => (await getRun(database(), runId))?.status).toBe('running');
    // The worker says it holds its life lock before it is killed.
    await beatUntil(clock, () => c.lifeLock !== null);
    expect(c.lifeLock?.startsWith(WORKER_LOCK_PREFIX)).toBe(true);
    const storedBefore = (await loadNegotiations(database(), runId, { limit: 0 })).total;

    // Killed behind the client's back: no error event, no last message.
    workers[0]!.terminate();
    await beatUntil(clock, () => session.status === 'interrupted');
    expect(session.message).toBe(`${SILENT_DEATH} The run is interrupted: every negotiation it stored is kept; resume it to play the rest.`);
    await expect.poll(async () => (await getRun(database(), runId))?.status).toBe('interrupted');
    expect((await loadNegotiations(database(), runId, { limit: 0 })).total).toBe(storedBefore);

    // The Runs page offers to resume it.
    const store = new RunsStore();
    const target = render(RunsPage, { store, tournament: session });
    await store.init();
    const row = () => target.querySelector(`tr[data-run-id="${runId}"]`);
    await expect.poll(() => text(row())).toContain('interrupted');
    expect([...must(row()).querySelectorAll('button')].map((b) => text(b))).toContain('Resume');

    // Resumed, in a fresh worker: it plays the rest, and every negotiation is stored once.
    await commands.pacedModelAllow(paced.id, null);
    session.resume(runId);
    await expect.poll(() => session.status, { timeout: 30_000 }).toBe('done');
    expect(workers).toHaveLength(2);
    const run = await getRun(database(), runId);
    expect(run).toMatchObject({ status: 'done', done: run?.planned });
    expect((await loadNegotiations(database(), runId, { limit: 0 })).total).toBe(run?.planned);
  });

  test('leaves alone a worker that is silent but holds its life lock (busy, not dead)', async () => {
    // Answers the first ping once it holds the lock, then never again, as a worker deep in long work.
    const busy = scripted(`
      let answered = false;
      self.onmessage = (e) => {
        if (e.data.type !== 'ping' || answered) return;
        answered = true;
        navigator.locks.request(e.data.lock, () => {
          self.postMessage({ type: 'pong', beat: e.data.beat, lock: e.data.lock });
          return new Promise(() => {});
        });
      };`);
    let asked = 0;
    const lockHeld = async (name: string) => {
      const { held = [] } = await navigator.locks.query();
      asked++;
      return held.some((l) => l.name === name);
    };
    const { c, clock, heard } = client(busy, { giveUpMs: Infinity, lockHeld });
    await beatUntil(clock, () => c.lifeLock !== null);
    // Long past the silence allowed, and asked after several times: still there.
    await beatUntil(clock, () => asked >= 3);
    expect(heard.filter((m) => m.type === 'worker.stopped')).toEqual([]);
    expect(c.lifeLock).not.toBeNull();
  });

  test('where the worker never says it holds a lock, long silence is taken for death', async () => {
    const { c, clock, heard } = client(scripted('self.onmessage = () => {};'), { giveUpMs: 30_000 });
    c.send({ type: 'run.start', runId: 'run-1', name: 'x', config: config as never });
    clock.advance(29_000);
    // Let the one question asked meanwhile settle (a task, not a time: the clock is the test's).
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(heard).toEqual([]);
    clock.advance(1_000);
    await expect
      .poll(() => heard)
      .toEqual([
        { type: 'failed', runId: 'run-1', message: SILENT_DEATH },
        { type: 'worker.stopped', message: SILENT_DEATH, runs: ['run-1'] },
      ]);
  });
});
