import { describe, expect, test, vi } from 'vitest';
import { getRun } from '../../src/storage';
import { loadNegotiation } from '../../src/storage/runs';
import { exportRunJson, importRun } from '../../src/storage/transfer';
import { replayLog } from '../../src/games/bilateral/replay';
import { generateScenarios } from '../../src/games/bilateral/scenario';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { createRng, deriveSeed, hashString } from '../../src/engine/rng';
import { makeAgent } from '../../src/games/bilateral/registry';
import { ArenaGame, compareInSeat } from '../../src/worker/arena';
import type { FromWorker } from '../../src/worker/messages';
import type { HumanPrompt } from '../../src/games/bilateral/human';
import { freshDb } from '../storage/helpers';

type Turn = Extract<FromWorker, { type: 'arena.turn' }>;

function hostOf() {
  const db = freshDb();
  const posted: FromWorker[] = [];
  return { host: { db, post: (m: FromWorker) => void posted.push(m), now: () => 1_000 }, posted, db };
}
const turns = (posted: FromWorker[]): HumanPrompt[] => posted.filter((m): m is Turn => m.type === 'arena.turn').map((m) => m.prompt);

describe('an Arena game with a human seat', () => {
  const scenario = generateScenarios({ preset: 'standard', seed: 5, count: 1, deadline: { kind: 'fixed', turns: 8 }, firstMover: 'seller' })[0]!;

  test('asks the page for each move, plays what it answers, and is saved, exported and imported like any game', async () => {
    const { host, posted, db } = hostOf();
    const game = new ArenaGame(host, { gameId: 'h1', scenario, buyer: 'human', seller: 'conceder', delayMs: 0, paused: false, save: true });
    const done = game.play();
    // The user answers each turn with a low offer, then accepts on their third turn.
    for (let asked = 1; asked <= 3; asked++) {
      await vi.waitFor(() => expect(turns(posted)).toHaveLength(asked), { timeout: 10_000 });
      const prompt = turns(posted).at(-1)!;
      expect(prompt).toMatchObject({ role: 'buyer', reservation: scenario.buyerValue, turnLimit: 8 });
      expect(prompt.pending).toBeGreaterThan(0);
      game.answer(
        prompt.turn,
        0,
        asked < 3 ? { message: `try ${asked}`, action: { type: 'offer', price: scenario.sellerCost / 2 } } : { action: { type: 'accept' } },
      );
    }
    const runId = await done;
    expect(runId).toBe('h1');
    const run = await getRun(db, 'h1');
    expect(run?.config).toMatchObject({ kind: 'arena', buyer: 'human', seller: 'conceder' });
    const row = await loadNegotiation(db, 'h1', '0');
    expect(row?.events.at(-1)).toMatchObject({ type: 'end', outcome: { kind: 'deal', acceptedBy: 'buyer', turn: 6 } });
    expect(row?.events.filter((e) => e.type === 'move' && e.actor === 'buyer').map((e) => e.type === 'move' && e.move.message)).toEqual([
      'try 1',
      'try 2',
      undefined,
    ]);
    expect(replayLog(scenario, row!.events).ok).toBe(true);
    const imported = await importRun(freshDb(), await exportRunJson(db, 'h1'), { now: 2_000 });
    expect(imported.ok).toBe(true);
  });

  test('stopping the game while it waits for the user ends it as cancelled, unsaved, and a late move is dropped', async () => {
    const { host, posted, db } = hostOf();
    const game = new ArenaGame(host, { gameId: 'h2', scenario, buyer: 'human', seller: 'linear', delayMs: 0, paused: false, save: true });
    const done = game.play();
    await vi.waitFor(() => expect(turns(posted)).toHaveLength(1), { timeout: 10_000 });
    game.cancel();
    expect(await done).toBeNull();
    const last = posted.filter((m) => m.type === 'arena.event').at(-1);
    expect(last).toMatchObject({ event: { type: 'end', outcome: { kind: 'cancelled', turn: 1 } } });
    game.answer(1, 0, { action: { type: 'walk_away' } });
    expect(await getRun(db, 'h2')).toBeUndefined();
  });

  test('both seats human (pass and play): each prompt is its own seat’s, the game is saved, exported, imported and ranked like any', async () => {
    const { host, posted, db } = hostOf();
    const game = new ArenaGame(host, { gameId: 'h3', scenario, buyer: 'human', seller: 'human', delayMs: 0, paused: false, save: true });
    const done = game.play();
    // The seller opens; the buyer counters; the seller comes down; the buyer accepts: four prompts, roles alternating.
    const answers: [role: 'buyer' | 'seller', move: object][] = [
      ['seller', { action: { type: 'offer', price: scenario.buyerValue } }],
      ['buyer', { action: { type: 'offer', price: scenario.sellerCost } }],
      ['seller', { message: 'meet me', action: { type: 'offer', price: (scenario.buyerValue + scenario.sellerCost) / 2 } }],
      ['buyer', { action: { type: 'accept' } }],
    ];
    for (const [i, [role, move]] of answers.entries()) {
      await vi.waitFor(() => expect(turns(posted)).toHaveLength(i + 1), { timeout: 10_000 });
      const prompt = turns(posted).at(-1)!;
      // Each seat is told its own value only.
      expect(prompt).toMatchObject({ role, reservation: role === 'buyer' ? scenario.buyerValue : scenario.sellerCost });
      game.answer(prompt.turn, 0, move);
    }
    expect(await done).toBe('h3');
    const run = await getRun(db, 'h3');
    expect(run?.config).toMatchObject({ kind: 'arena', buyer: 'human', seller: 'human' });
    expect(run?.status).toBe('done');
    const row = await loadNegotiation(db, 'h3', '0');
    const price = Math.round(((scenario.buyerValue + scenario.sellerCost) / 2) * 100) / 100;
    expect(row?.events.at(-1)).toMatchObject({ type: 'end', outcome: { kind: 'deal', acceptedBy: 'buyer', price } });
    expect(replayLog(scenario, row!.events).ok).toBe(true);
    // Ranked like any game: the stored standings hold the seat in both roles.
    expect(run?.standings?.leaderboard.map((r) => `${r.agent}/${r.role}`).sort()).toEqual(['human/buyer', 'human/seller']);
    const imported = await importRun(freshDb(), await exportRunJson(db, 'h3'), { now: 2_000 });
    expect(imported.ok).toBe(true);
  });
});

describe('the debrief’s replays', () => {
  test('play each strategy in the user’s seat against the opponent seeded as in the game: a random opponent opens as it did', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 8, count: 1, firstMover: 'seller' })[0]!;
    const { host, posted } = hostOf();
    const game = new ArenaGame(host, { gameId: 'g-random', scenario, buyer: 'human', seller: 'random', delayMs: 0, paused: false, save: false });
    const done = game.play();
    await vi.waitFor(() => expect(turns(posted)).toHaveLength(1), { timeout: 10_000 });
    game.answer(1, 0, { action: { type: 'walk_away' } });
    await done;
    const opening = posted.find((m) => m.type === 'arena.event')!;

    const played = await compareInSeat({}, { gameId: 'g-random', scenario, role: 'buyer', opponent: 'random', strategies: ['boulware', 'hardliner'] });
    expect(played.map((p) => p.strategy)).toEqual(['boulware', 'hardliner']);
    for (const { events } of played) {
      expect(events[0]).toEqual(opening.type === 'arena.event' && opening.event);
      expect(replayLog(scenario, events).ok).toBe(true);
    }
    // The same negotiation, played here with the game's seeds, gives the same log.
    const seed = hashString('g-random');
    const seat = (spec: string, role: 'buyer' | 'seller', xor: number) =>
      makeAgent(spec, role, { rng: createRng(seed ^ xor), jobId: 'g-random', seed: deriveSeed(seed, 'g-random', role) });
    const direct = await playNegotiation(scenario, { buyer: seat('hardliner', 'buyer', 1), seller: seat('random', 'seller', 2) });
    expect(played[1]?.events).toEqual(direct.events);
  });
});
