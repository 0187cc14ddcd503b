/**
 * A Learn widget's run against a worker the test answers by hand: progress is shown as it is
 * reported, Stop sends learn.cancel for that run, and a stopped run's partial figures are labelled.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { flushSync } from 'svelte';
import { SimClient } from '../../src/worker/client';
import type { FromWorker, ToWorker } from '../../src/worker/messages';
import { LearnRun } from '../../src/ui/components/learn/learn-run.svelte';
import RunStatus from '../../src/ui/components/learn/RunStatus.svelte';
import { horizonExperiment } from '../../src/ui/components/learn/experiments';
import { cleanup, must, render, text } from './helpers.svelte';

afterEach(cleanup);

/** A stand-in for the worker: keeps what the page posts and answers when the test says. */
function handWorker() {
  const posted: ToWorker[] = [];
  const worker = {
    onmessage: null as ((e: MessageEvent) => void) | null,
    onerror: null,
    postMessage: (m: ToWorker) => void posted.push(m),
    terminate: () => {},
  };
  return { posted, worker: worker as unknown as Worker, answer: (m: FromWorker) => worker.onmessage?.({ data: m } as MessageEvent) };
}

test('progress while it plays, Stop from the keyboard cancels that run, and the partial answer says how far it got', async () => {
  const { posted, worker, answer } = handWorker();
  const client = new SimClient(() => worker);
  const run = new LearnRun(() => client);
  const experiment = horizonExperiment(20, true, 'seller', 40, ['linear', 'boulware']);
  const target = render(RunStatus, { run, experiment, onrun: () => {} });
  const started = run.start(experiment);
  const request = posted.find((m) => m.type === 'learn.run');
  if (request?.type !== 'learn.run') throw new Error('no learn.run posted');
  answer({ type: 'learn.progress', requestId: request.requestId, done: 30, planned: 80 });
  answer({ type: 'learn.progress', requestId: 'another-run', done: 79, planned: 80 });
  flushSync();
  expect(text(target.querySelector('label'))).toBe('Playing 30 of 80 negotiations');
  expect(must(target.querySelector('progress')).value).toBe(30);
  const stop = must([...target.querySelectorAll('button')].find((b) => text(b) === 'Stop'));
  stop.focus();
  await userEvent.keyboard('{Enter}');
  expect(posted.at(-1)).toEqual({ type: 'learn.cancel', running: request.requestId });
  const cell = {
    n: 30,
    errors: 0,
    gft: 28,
    gftDeals: 28,
    lossDeals: 0,
    dealRate: 1,
    buyerShare: 0.5,
    sellerShare: 0.5,
    buyerExpectedShare: 0.5,
    sellerExpectedShare: 0.5,
    gains: { scenarios: 30, realised: 3, firstBest: 3, secondBest: 2 },
    first: null,
  };
  answer({ type: 'learn.done', requestId: request.requestId, cancelled: true, done: 30, planned: 80, cells: [cell], standings: null });
  await started;
  await vi.waitFor(() => expect(text(target.querySelector('[role="status"]'))).toBe('Stopped after 30 of 80 negotiations: the figures below cover those.'));
  expect(run.status).toBe('stopped');
  expect(target.querySelector('progress')).toBeNull();
  run.dispose();
});
