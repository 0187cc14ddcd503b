/**
 * SimClient when its worker dies: nothing that waited on the worker is left waiting. Dying
 * workers are small scripts of the test's own; the real simulation worker answers the rest.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { SimClient, type SimMessage } from '../../src/worker/client';
import type { TournamentSettings } from '../../src/worker/messages';
import { WEBLLM_MODEL_IDS } from '../../src/agents/specs';

const clients: SimClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.terminate();
});

/** A module worker running `source`; each one the client starts is counted. */
function scripted(source: string): { create: () => Worker; started: () => number } {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  let started = 0;
  return {
    create: () => {
      started++;
      return new Worker(url, { type: 'module' });
    },
    started: () => started,
  };
}

const client = (create?: () => Worker): SimClient => {
  const c = new SimClient(create);
  clients.push(c);
  return c;
};

/** A run's settings; the dying workers never read them. */
const config = { agents: ['boulware', 'linear'], scenariosPerPair: 1, seed: 1 } as unknown as TournamentSettings;

/** Everything the client's subscribers hear, from now on. */
function heard(c: SimClient): SimMessage[] {
  const messages: SimMessage[] = [];
  c.subscribe((m) => messages.push(m));
  return messages;
}

describe('SimClient when the worker dies', () => {
  test('a worker that cannot start: the pending request is answered with the reason, the run told, subscribers too; the next message starts a fresh one', async () => {
    const worker = scripted('throw new Error("boom at start");');
    const c = client(worker.create);
    const messages = heard(c);
    c.send({ type: 'run.start', runId: 'run-1', name: 'x', config });
    const reply = await c.request({ type: 'export', requestId: 'req-1', runId: 'run-1', format: 'json' });
    expect(reply).toEqual({ type: 'failed', requestId: 'req-1', message: expect.stringMatching(/^The simulation worker stopped: .*boom at start/) });
    expect(messages).toEqual([
      { type: 'failed', runId: 'run-1', message: reply.type === 'failed' ? reply.message : '' },
      { type: 'worker.stopped', message: reply.type === 'failed' ? reply.message : '', runs: ['run-1'] },
    ]);
    expect(worker.started()).toBe(1);
    const again = c.request({ type: 'export', requestId: 'req-2', runId: 'run-1', format: 'json' });
    expect(worker.started()).toBe(2);
    expect(await again).toMatchObject({ type: 'failed', requestId: 'req-2' });
  });

  test('a worker that fails while handling a message: every pending request and game hears why', async () => {
    const worker = scripted('self.onmessage = (e) => { if (e.data.type === "import") throw new Error("worker blew up"); };');
    const c = client(worker.create);
    const messages = heard(c);
    const scenario = { item: { id: 'mug', name: 'Mug', category: 'kitchen', listPrice: 10 }, buyerValue: 9, sellerCost: 4 };
    c.send({ type: 'arena.start', gameId: 'game-1', scenario, buyer: 'boulware', seller: 'linear', delayMs: 0, paused: false, save: false } as never);
    const exported = c.request({ type: 'export', requestId: 'req-1', runId: 'run-1', format: 'json' });
    const imported = c.request({ type: 'import', requestId: 'req-2', file: new Blob(['{}']) });
    const reason = expect.stringMatching(/^The simulation worker stopped: .*worker blew up/);
    expect(await exported).toEqual({ type: 'failed', requestId: 'req-1', message: reason });
    expect(await imported).toEqual({ type: 'failed', requestId: 'req-2', message: reason });
    expect(messages).toEqual([
      { type: 'failed', gameId: 'game-1', message: reason },
      { type: 'worker.stopped', message: reason, runs: [] },
    ]);
  });

  test('terminate answers what is pending, too', async () => {
    const worker = scripted('self.onmessage = () => {};');
    const c = client(worker.create);
    const pending = c.request({ type: 'export', requestId: 'req-1', runId: 'run-1', format: 'json' });
    c.terminate();
    expect(await pending).toEqual({ type: 'failed', requestId: 'req-1', message: 'The simulation worker was stopped.' });
  });
});

describe('SimClient with the real simulation worker', () => {
  test('a malformed request is answered by its id instead of being left waiting', async () => {
    const c = client();
    const reply = await c.request({ type: 'export', requestId: 'req-bad', runId: '', format: 'json' });
    expect(reply).toMatchObject({ type: 'failed', requestId: 'req-bad', message: expect.stringMatching(/malformed message/) });
  });

  test('a malformed game start is answered to its game, so the Arena is told instead of waiting', async () => {
    const c = client();
    const messages = heard(c);
    // A scenario the worker's schema refuses, as a page with a bug would send it.
    c.send({ type: 'arena.start', gameId: 'game-bad', scenario: { broken: true }, buyer: 'boulware', seller: 'linear' } as never);
    await expect
      .poll(() => messages.find((m) => m.type === 'failed'))
      .toMatchObject({ type: 'failed', gameId: 'game-bad', message: expect.stringMatching(/malformed message/) });
  });

  test("asks an engine worker for WebLLM's model list and cache, so the page never loads WebLLM", async () => {
    const c = client();
    const reply = await c.request({ type: 'models.list', requestId: 'req-models' });
    expect(reply.type).toBe('models.listed');
    if (reply.type !== 'models.listed') return;
    expect(reply.models.map((m) => m.model_id)).toEqual([...WEBLLM_MODEL_IDS]);
    expect(reply.cached).toEqual(Object.fromEntries(WEBLLM_MODEL_IDS.map((id) => [id, false])));
  }, 60_000);
});
