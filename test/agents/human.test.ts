import { describe, expect, it } from 'vitest';
import { HumanPromptSchema, HumanSeat, HUMAN_SPEC, humanPrompt, type HumanPrompt } from '../../src/games/bilateral/human';
import { createAgentFactory, makeAgent } from '../../src/games/bilateral/registry';
import { parseAgentSpec, parseAgentSpecs, SPEC_PROBLEMS } from '../../src/games/bilateral/specs';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { replayLog } from '../../src/games/bilateral/replay';
import { CATALOG } from '../../src/games/bilateral/catalog';
import { createRng } from '../../src/engine/rng';
import { makeScenario, type Role } from '../../src/games/bilateral/scenario';
import type { Move } from '../../src/games/bilateral/moves';
import { runCli } from '../cli/helpers';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

const ITEM = CATALOG[10]!;
/** A scenario whose values are far from anything the seat is shown, so a leak would be seen. */
const scenario = makeScenario('human-test', ITEM, 123.45, 67.89, { turnLimit: 10, firstMover: 'buyer' });
const seller = (role: Role = 'seller') => makeAgent('hardliner', role, { rng: createRng(1), jobId: 'h', seed: 1 });

/** A human seat whose user answers each prompt, after the current task, with the next move from `script`. */
function scripted(script: (prompt: HumanPrompt) => Move) {
  const prompts: HumanPrompt[] = [];
  const seat: HumanSeat = new HumanSeat((prompt) => {
    prompts.push(prompt);
    setTimeout(() => seat.answer(prompt.turn, prompt.retry?.attempt ?? 0, script(prompt)), 0);
  });
  return { seat, prompts };
}

describe('the human seat', () => {
  it('plays a whole negotiation through its answers, recorded, scored and replayable like any agent', async () => {
    const { seat, prompts } = scripted((p) =>
      p.pending !== null && p.pending < 110 ? { action: { type: 'accept' } } : { message: 'How about this?', action: { type: 'offer', price: 70 + p.turn } },
    );
    const played = await playNegotiation(scenario, { buyer: seat, seller: seller() });
    expect(played.events[0]).toEqual({ type: 'move', turn: 0, actor: 'buyer', move: { message: 'How about this?', action: { type: 'offer', price: 70 } } });
    expect(played.outcome.kind).not.toBe('error');
    expect(replayLog(scenario, played.events).ok).toBe(true);
    // Asked on each of its turns (0, 2, 4, …) with its own side only.
    expect(prompts.map((p) => p.turn)).toEqual(prompts.map((_, i) => 2 * i));
    expect(prompts[0]).toMatchObject({ role: 'buyer', reservation: 123.45, listPrice: ITEM.listPrice, turnLimit: 10, pending: null, ownStanding: null });
    for (const p of prompts) expect(JSON.stringify(p)).not.toContain('67.89');
    // The seller's counter-offer replaced the buyer's on the table (one standing offer at a time).
    expect(prompts[1]?.pending).toBeGreaterThan(0);
    expect(prompts[1]?.ownStanding).toBeNull();
    expect(seat.isWaiting).toBe(false);
  });

  it('gives the opponent’s standing offer and the deadline range it knows, never the exact uncertain limit', async () => {
    const uncertain = makeScenario('human-range', ITEM, 123.45, 67.89, { turnLimit: 17, turnRange: { min: 14, max: 20 }, firstMover: 'seller' });
    const { seat, prompts } = scripted(() => ({ action: { type: 'walk_away' } }));
    const played = await playNegotiation(uncertain, { buyer: seat, seller: seller() });
    expect(played.outcome).toMatchObject({ kind: 'walk_away', by: 'buyer', turn: 2 });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ turn: 1, turnLimit: null, turnRange: { min: 14, max: 20 } });
    expect(prompts[0]?.pending).toBeGreaterThan(0);
    expect(JSON.stringify(prompts[0])).not.toContain('17');
  });

  it('a move the protocol refuses is recorded and asked again with the reason; a malformed one too', async () => {
    let tries = 0;
    const { seat, prompts } = scripted(() => {
      tries += 1;
      if (tries === 1) return { action: { type: 'accept' } }; // nothing on the table yet
      if (tries === 2) return { action: { type: 'offer', price: 'ten' } } as unknown as Move;
      return { action: { type: 'walk_away' } };
    });
    const played = await playNegotiation(scenario, { buyer: seat, seller: seller() });
    const invalid = played.events.filter((e) => e.type === 'invalid');
    expect(invalid.map((e) => e.type === 'invalid' && [e.attempt, e.reason])).toEqual([
      [0, 'there is no offer from the other side to accept'],
      [1, expect.stringMatching(/^not a move: /)],
    ]);
    expect(prompts.map((p) => p.retry?.attempt ?? 0)).toEqual([0, 1, 2]);
    expect(prompts[1]?.retry?.reason).toBe('there is no offer from the other side to accept');
    expect(played.outcome).toMatchObject({ kind: 'walk_away', by: 'buyer' });
  });

  it('drops an answer for another turn or attempt, and one when nothing waits', async () => {
    const prompts: HumanPrompt[] = [];
    const seat = new HumanSeat((p) => void prompts.push(p));
    expect(seat.answer(0, 0, { action: { type: 'walk_away' } })).toBe('not-waiting');
    const game = playNegotiation(scenario, { buyer: seat, seller: seller() });
    await Promise.resolve();
    expect(seat.isWaiting).toBe(true);
    expect(seat.answer(2, 0, { action: { type: 'walk_away' } })).toBe('stale');
    expect(seat.answer(0, 1, { action: { type: 'walk_away' } })).toBe('stale');
    expect(seat.isWaiting).toBe(true);
    expect(seat.answer(0, 0, { action: { type: 'walk_away' } })).toBe('answered');
    expect((await game).outcome).toMatchObject({ kind: 'walk_away', by: 'buyer', turn: 1 });
  });

  it('cancelling the game ends the wait: the negotiation ends as cancelled and a late answer is dropped', async () => {
    const seat = new HumanSeat(() => {});
    const controller = new AbortController();
    const game = playNegotiation(scenario, { buyer: seat, seller: seller() }, { signal: controller.signal });
    await Promise.resolve();
    expect(seat.isWaiting).toBe(true);
    controller.abort(new Error('cancelled'));
    const played = await game;
    expect(played.outcome).toEqual({ kind: 'cancelled', turn: 0 });
    expect(played.events).toEqual([{ type: 'end', turn: 0, outcome: { kind: 'cancelled', turn: 0 } }]);
    expect(seat.isWaiting).toBe(false);
    expect(seat.answer(0, 0, { action: { type: 'walk_away' } })).toBe('not-waiting');
  });

  it('an already cancelled signal rejects at once without asking', async () => {
    let asked = 0;
    const seat = new HumanSeat(() => void (asked += 1));
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const obs = {
      role: 'buyer',
      item: scenario.item,
      reservation: 1,
      turn: 0,
      turnLimit: 10,
      turnRange: { min: 10, max: 10 },
      firstMover: 'buyer',
      priceRange: { lo: 1, hi: 2 },
      ownTurn: 0,
      ownTurns: 5,
      pending: null,
      ownStanding: null,
      ownOffers: [],
      opponentOffers: [],
      transcript: [],
      pastTurn: () => undefined,
    } as const;
    await expect(seat.act(obs, controller.signal)).rejects.toThrow('gone');
    expect(asked).toBe(0);
  });
});

describe('the prompt', () => {
  it('always fits its message schema: a very long refusal reason is clipped, not left to fail on the way', () => {
    const obs = {
      role: 'seller',
      item: scenario.item,
      reservation: 67.89,
      turn: 3,
      turnLimit: null,
      turnRange: { min: 8, max: 12 },
      firstMover: 'buyer',
      priceRange: { lo: 50, hi: 130 },
      ownTurn: 1,
      ownTurns: 4,
      pending: 99.5,
      ownStanding: null,
      ownOffers: [120],
      opponentOffers: [80, 99.5],
      transcript: [],
      pastTurn: () => undefined,
    } as const;
    const prompt = humanPrompt(obs, { attempt: 1, reason: 'x'.repeat(5000) });
    expect(HumanPromptSchema.safeParse(prompt).success).toBe(true);
    expect(prompt.retry?.reason).toHaveLength(2000);
    expect(Object.keys(humanPrompt(obs)).sort()).toEqual([
      'listPrice',
      'ownStanding',
      'ownTurn',
      'ownTurns',
      'pending',
      'reservation',
      'role',
      'turn',
      'turnLimit',
      'turnRange',
    ]);
  });
});

const HUMAN_ONLY_IN_ARENA = SPEC_PROBLEMS['human-only-in-arena']();

describe('the human spec', () => {
  it('is refused everywhere but the Arena, with one line that says why', () => {
    const refused = parseAgentSpec(HUMAN_SPEC);
    expect(refused).toEqual({ ok: false, error: { code: 'human-only-in-arena', data: {}, message: HUMAN_ONLY_IN_ARENA } });
    expect(HUMAN_ONLY_IN_ARENA).not.toContain('\n');
    expect(parseAgentSpecs(['boulware', 'human'])).toMatchObject({ ok: false, error: { code: 'human-only-in-arena' } });
    expect(parseAgentSpec(' human ', { allowHuman: true })).toEqual({ ok: true, value: { name: 'human', params: {}, label: 'human', human: true } });
    expect(() => createAgentFactory()('human', 'buyer', { rng: createRng(1), jobId: 'x', seed: 1 })).toThrow(HUMAN_ONLY_IN_ARENA);
  });

  it('the command line refuses it in a game and in a tournament, with that line and status 2', async () => {
    for (const argv of [
      ['run', '--buyer', 'human', '--seller', 'boulware'],
      ['run', '--buyer', 'boulware', '--seller', 'human'],
      ['tournament', '--agents', 'boulware,human', '--scenarios', '1'],
    ]) {
      const r = await runCli(argv);
      expect(r.status).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain(HUMAN_ONLY_IN_ARENA);
      expect(r.err.trim()).not.toContain('\n');
    }
  });

  it('a tournament given a human seat anyway fails with that line instead of waiting for anyone', async () => {
    await expect(
      runTournament(bilateralGame, { agents: ['boulware', 'human'], scenariosPerPair: 1, preset: 'standard', seed: 1, selfPlay: false }, makeAgent),
    ).rejects.toThrow(HUMAN_ONLY_IN_ARENA);
  });
});
