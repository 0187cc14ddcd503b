import { describe, expect, test } from 'vitest';
import { getRun } from '../../src/storage';
import { generateScenarios } from '../../src/games/bilateral/scenario';
import { ArenaGame } from '../../src/worker/arena';
import type { FromWorker } from '../../src/worker/messages';
import { freshDb } from '../storage/helpers';

describe('an Arena game', () => {
  test('is saved with the model settings it was played under, the defaults filled in', async () => {
    const db = freshDb();
    const posted: FromWorker[] = [];
    const host = { db, post: (m: FromWorker) => void posted.push(m), now: () => 1_000 };
    const scenario = generateScenarios({ preset: 'standard', seed: 2, count: 1 })[0]!;
    const game = { scenario, buyer: 'boulware', seller: 'linear', delayMs: 0, paused: false, save: true };
    const chosen = await new ArenaGame(host, { ...game, gameId: 'a', llm: { interface: 'json', temperature: 0.3 } }).play();
    const plain = await new ArenaGame(host, { ...game, gameId: 'b' }).play();
    expect((await getRun(db, chosen ?? ''))?.config).toMatchObject({
      kind: 'arena',
      llm: { interface: 'json', temperature: 0.3, maxTokens: null, thinking: false },
    });
    expect((await getRun(db, plain ?? ''))?.config).toMatchObject({
      kind: 'arena',
      llm: { interface: 'tools', temperature: 0.7, maxTokens: null, thinking: false },
    });
    expect(posted.filter((m) => m.type === 'arena.event').length).toBeGreaterThan(2);
  });
});
