import { describe, expect, test, vi } from 'vitest';
import { exportRunJson } from '../../src/storage/transfer';
import { deleteRun } from '../../src/storage/runs';
import { RunsStore } from '../../src/ui/state/runs.svelte';
import { sim } from '../../src/ui/state/sim';
import { freshDb, storedTournament } from '../storage/helpers';

describe('the Runs page imports a file', () => {
  test('a file over 512 MB is refused by its size: nothing reads it and the worker is never asked', async () => {
    const store = new RunsStore(() => freshDb());
    const request = vi.spyOn(sim(), 'request');
    let reads = 0;
    const read = () => {
      reads++;
      return Promise.reject(new Error('NotReadableError'));
    };
    const huge = { name: 'huge.json', size: 530 * 1024 * 1024, text: read, arrayBuffer: read, stream: read, slice: read } as unknown as File;
    expect(await store.importFile(huge)).toBeNull();
    expect(store.notice).toEqual({ kind: 'error', text: 'Could not import huge.json: the file is 530 MB; Parley imports runs of up to 512 MB' });
    expect(reads).toBe(0);
    expect(request).not.toHaveBeenCalled();
    expect(store.busy).toBe(false);
    request.mockRestore();
  });

  test('a forged log is refused through the worker, naming the negotiation and the event', async () => {
    const db = freshDb();
    const { run } = await storedTournament(db, { id: `forged-${crypto.randomUUID()}`, rows: 3 });
    const file = JSON.parse(await exportRunJson(db, run.id));
    await deleteRun(db, run.id);
    file.negotiations[1].events[0].move = { action: { type: 'offer', price: -5 } };
    const store = new RunsStore(() => db);
    expect(await store.importFile(new File([JSON.stringify(file)], 'forged.json'))).toBeNull();
    expect(store.notice?.text).toMatch(
      /^Could not import forged\.json: negotiations\[1\] \(job ".*"\): events\[0\] \(move at turn 0\): an illegal move: offer price must be positive \(got -5\)$/,
    );
  });
});
