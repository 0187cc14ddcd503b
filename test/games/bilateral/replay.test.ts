import { describe, expect, it } from 'vitest';
import { makeAgent } from '../../../src/games/bilateral/registry';
import { STRATEGIES } from '../../../src/games/bilateral/strategies';
import type { BilateralEvent } from '../../../src/games/bilateral/events';
import { ACCEPT, offer, REJECT, say, WALK_AWAY, type Move } from '../../../src/games/bilateral/moves';
import { bilateral } from '../../../src/games/bilateral/protocol';
import { replayLog, type ReplayError } from '../../../src/games/bilateral/replay';
import type { NegotiationResult } from '../../../src/games/bilateral/tournament';
import type { Role } from '../../../src/games/bilateral/scenario';
import { runSession, type AgentReply } from '../../../src/engine/session';
import { replay as scripted, scenario } from './helpers';
import { runTournament } from '../../../src/engine/tournament';
import { bilateralGame } from '../../../src/games/bilateral/game';

// Hand-made logs on the helpers' scenario: v = 150, c = 90, a $200 item, the seller opens, 20 turns.
const S = scenario();
const move = (turn: number, actor: Role, m: Move): BilateralEvent => ({ type: 'move', turn, actor, move: m });
const invalid = (turn: number, actor: Role, attempt: number): BilateralEvent => ({
  type: 'invalid',
  turn,
  actor,
  attempt,
  reason: 'not JSON',
  raw: '{oops',
});
const forfeit = (turn: number, actor: Role): BilateralEvent => ({ type: 'forfeit', turn, actor });
const end = (outcome: Extract<BilateralEvent, { type: 'end' }>['outcome']): BilateralEvent => ({ type: 'end', turn: outcome.turn, outcome });

/** The refusal of a log, which must name an event. */
function refusal(events: BilateralEvent[], opts = {}): Extract<ReplayError, { at: 'event' }> {
  const result = replayLog(S, events, opts);
  if (result.ok) throw new Error(`the log replayed: ${JSON.stringify(result.value)}`);
  if (result.error.at !== 'event') throw new Error(`refused the scenario: ${result.error.reason}`);
  return result.error;
}

describe('logs the runner wrote replay to their own outcome', () => {
  it('every scripted strategy against every other, 20 scenarios a pair', async () => {
    const agents = STRATEGIES.map((s) => s.name);
    const results: NegotiationResult[] = [];
    const config = { agents, scenariosPerPair: 20, preset: 'standard' as const, seed: 5, selfPlay: true };
    await runTournament(bilateralGame, config, makeAgent, { onResult: (r) => void results.push(r) });
    expect(results.length).toBe(agents.length ** 2 * 20);
    for (const r of results) {
      const replayed = replayLog(r.scenario, r.events);
      expect(replayed, r.id).toEqual({ ok: true, value: { result: r.outcome, turns: expect.any(Number) } });
    }
  });

  it('invalid answers, a forfeit, a turn limit, an error and a cancel', async () => {
    const bad = (attempt: number): AgentReply<Move> => ({ kind: 'invalid', reason: 'not JSON', raw: `bad ${attempt}` });
    const plays: [Role, (Move | AgentReply<Move>)[], (Move | AgentReply<Move>)[], AbortSignal?][] = [
      // The seller forfeits turn 0 after three bad answers; the buyer's accept with nothing pending is refused and retried.
      ['seller', [bad(0), bad(1), bad(2), offer(180), offer(170)], [ACCEPT, offer(100), say('hm'), ACCEPT]],
      // Nobody ends it: the turn limit.
      ['buyer', [offer(190), REJECT], [offer(100), offer(110)]],
    ];
    for (const [firstMover, sellerMoves, buyerMoves] of plays) {
      const s = scenario({ firstMover, turnLimit: 6 });
      const record = await runSession(bilateral, s, { seller: scripted(sellerMoves), buyer: scripted(buyerMoves) });
      expect(replayLog(s, record.events)).toEqual({ ok: true, value: { result: record.outcome, turns: expect.any(Number) } });
    }
    const failing = {
      act: () => {
        throw new Error('model down');
      },
    };
    const errored = await runSession(bilateral, S, { seller: scripted([offer(180)]), buyer: failing });
    expect(errored.outcome).toMatchObject({ kind: 'error', actor: 'buyer', turn: 1 });
    expect(replayLog(S, errored.events)).toMatchObject({ ok: true });
    const stop = new AbortController();
    const cancelling = {
      act: () => {
        stop.abort();
        return new Promise<never>(() => {});
      },
    };
    const cancelled = await runSession(bilateral, S, { seller: scripted([offer(180)]), buyer: cancelling }, { signal: stop.signal });
    expect(cancelled.outcome).toMatchObject({ kind: 'cancelled', turn: 1 });
    expect(replayLog(S, cancelled.events)).toMatchObject({ ok: true });
  });
});

describe('forged logs are refused at the event that breaks the rules', () => {
  const opening = [move(0, 'seller', offer(180)), move(1, 'buyer', offer(120))];

  it('a deal at a price nobody offered', () => {
    const events = [...opening, move(2, 'seller', ACCEPT), end({ kind: 'deal', price: 60, turn: 3, acceptedBy: 'seller' })];
    expect(refusal(events)).toEqual({
      at: 'event',
      event: 3,
      turn: 3,
      reason: expect.stringMatching(/ends in a deal at \$60\.00 .* but its moves end the negotiation in a deal at \$120\.00 accepted by the seller at turn 3/),
    });
    // The right price, claimed accepted by the wrong side or at the wrong turn.
    expect(refusal([...opening, move(2, 'seller', ACCEPT), end({ kind: 'deal', price: 120, turn: 3, acceptedBy: 'buyer' })]).event).toBe(3);
    expect(
      refusal([...opening, move(2, 'seller', ACCEPT), { type: 'end', turn: 5, outcome: { kind: 'deal', price: 120, turn: 5, acceptedBy: 'seller' } }]).event,
    ).toBe(3);
    // A price offered, but by the side that accepts it.
    expect(refusal([...opening, move(2, 'seller', ACCEPT), end({ kind: 'deal', price: 180, turn: 3, acceptedBy: 'seller' })]).reason).toMatch(
      /\$180\.00.*\$120\.00/,
    );
  });

  it('an accept with nothing pending', () => {
    expect(refusal([move(0, 'seller', ACCEPT), end({ kind: 'deal', price: 150, turn: 1, acceptedBy: 'seller' })])).toEqual({
      at: 'event',
      event: 0,
      turn: 0,
      reason: 'an illegal move: there is no offer from the other side to accept',
    });
    // The pending offer is the accepter's own, or was rejected.
    expect(refusal([move(0, 'seller', offer(180)), move(1, 'buyer', say('no')), move(2, 'seller', ACCEPT)]).event).toBe(2);
    expect(refusal([move(0, 'seller', offer(180)), move(1, 'buyer', REJECT), move(2, 'seller', say('?')), move(3, 'buyer', ACCEPT)]).event).toBe(3);
  });

  it('offers of −5 and 0, and one over a hundred times the list price', () => {
    for (const price of [-5, 0, 0.001, 20_001, Number.MAX_VALUE]) {
      const e = refusal([move(0, 'seller', offer(price)), move(1, 'buyer', ACCEPT), end({ kind: 'deal', price, turn: 2, acceptedBy: 'buyer' })]);
      expect(e, String(price)).toMatchObject({ event: 0, turn: 0, reason: expect.stringMatching(/^an illegal move: offer price/) });
    }
  });

  it('turns out of order or taken by the wrong side', () => {
    // The seller opens this scenario.
    expect(refusal([move(0, 'buyer', offer(100))])).toEqual({
      at: 'event',
      event: 0,
      turn: 0,
      reason: `a "move" event of the buyer, but turn 0 is the seller's`,
    });
    // The seller moves twice in a row.
    expect(refusal([move(0, 'seller', offer(180)), move(1, 'seller', offer(170))]).reason).toMatch(/of the seller, but turn 1 is the buyer's/);
    // A turn skipped, or told twice.
    expect(refusal([move(0, 'seller', offer(180)), move(2, 'buyer', offer(100))]).reason).toMatch(/at turn 2, but the negotiation is at turn 1/);
    expect(refusal([move(0, 'seller', offer(180)), move(0, 'seller', offer(170))]).reason).toMatch(/at turn 0, but the negotiation is at turn 1/);
    // Anything after the negotiation ended.
    const after = refusal([...opening, move(2, 'seller', ACCEPT), move(3, 'buyer', offer(90)), end({ kind: 'turn_limit', turn: 20 })]);
    expect(after).toMatchObject({ event: 3, reason: expect.stringMatching(/after the negotiation ended in a deal at \$120\.00/) });
  });

  it('an end the protocol did not reach', () => {
    // The turn limit claimed at turn 2 of 20; a walk-away nobody made; a deal without an accept.
    expect(refusal([...opening, end({ kind: 'turn_limit', turn: 2 })]).reason).toMatch(/never end the negotiation \(it stops at turn 2 of 20\)/);
    expect(refusal([...opening, end({ kind: 'walk_away', by: 'buyer', turn: 2 })]).event).toBe(2);
    expect(refusal([...opening, end({ kind: 'deal', price: 120, turn: 2, acceptedBy: 'seller' })]).event).toBe(2);
    // A real walk-away, claimed as a deal; a real turn limit, claimed at another turn.
    expect(refusal([...opening, move(2, 'seller', WALK_AWAY), end({ kind: 'deal', price: 120, turn: 3, acceptedBy: 'seller' })]).reason).toMatch(
      /walk-away by the seller at turn 3/,
    );
    const short = scenario({ turnLimit: 2 });
    const limit = replayLog(short, [...opening, end({ kind: 'turn_limit', turn: 3 })]);
    expect(limit.ok).toBe(false);
    expect(replayLog(short, [...opening, end({ kind: 'turn_limit', turn: 2 })])).toEqual({
      ok: true,
      value: { result: { kind: 'turn_limit', turn: 2 }, turns: 2 },
    });
    // An error or a cancel after the negotiation was over, or at a turn the log never reached.
    expect(refusal([...opening, move(2, 'seller', ACCEPT), end({ kind: 'error', actor: 'buyer', message: 'x', turn: 3 })]).reason).toMatch(
      /ends in an error.*deal at \$120\.00/,
    );
    expect(refusal([...opening, end({ kind: 'cancelled', turn: 7 })]).reason).toMatch(/stops at turn 2/);
    expect(refusal([...opening, end({ kind: 'error', actor: 'buyer', message: 'x', turn: 2 })]).reason).toMatch(/turn 2 is the seller's/);
    // No end at all, or one in the middle.
    expect(refusal(opening)).toEqual({ at: 'event', event: 2, turn: 2, reason: 'the log has no "end" event' });
    expect(refusal([move(0, 'seller', offer(180)), end({ kind: 'cancelled', turn: 1 }), move(1, 'buyer', ACCEPT)]).event).toBe(1);
  });

  it('a forfeit without its invalid attempts, and attempts out of order', () => {
    expect(refusal([forfeit(0, 'seller'), end({ kind: 'cancelled', turn: 1 })])).toMatchObject({
      event: 0,
      reason: 'a forfeit after 0 invalid answers; a turn is forfeited only after 3',
    });
    expect(refusal([invalid(0, 'seller', 0), forfeit(0, 'seller')]).reason).toMatch(/after 1 invalid answer;/);
    const three = [invalid(0, 'seller', 0), invalid(0, 'seller', 1), invalid(0, 'seller', 2)];
    expect(replayLog(S, [...three, forfeit(0, 'seller'), move(1, 'buyer', offer(100)), end({ kind: 'cancelled', turn: 2 })])).toMatchObject({ ok: true });
    // A fourth attempt, a move where the forfeit must come, attempts skipped or of the wrong side.
    expect(refusal([...three, invalid(0, 'seller', 3)]).event).toBe(3);
    expect(refusal([...three, move(0, 'seller', offer(180))]).reason).toMatch(/a move after 3 invalid answers/);
    expect(refusal([invalid(0, 'seller', 1)]).reason).toMatch(/attempt 1, but it is attempt 0/);
    expect(refusal([invalid(0, 'buyer', 0)]).reason).toMatch(/turn 0 is the seller's/);
    // A move after fewer attempts is fine, and the count starts again at the next turn.
    expect(
      replayLog(S, [
        invalid(0, 'seller', 0),
        move(0, 'seller', offer(180)),
        invalid(1, 'buyer', 0),
        move(1, 'buyer', ACCEPT),
        end({ kind: 'deal', price: 180, turn: 2, acceptedBy: 'buyer' }),
      ]),
    ).toMatchObject({ ok: true });
    // Another runner's retries.
    expect(replayLog(S, [invalid(0, 'seller', 0), forfeit(0, 'seller'), end({ kind: 'cancelled', turn: 1 })], { maxRetries: 0 })).toMatchObject({ ok: true });
  });

  it('a scenario the protocol cannot run', () => {
    const s = { ...S, turnLimit: 30, turnRange: { min: 16, max: 24 } };
    expect(replayLog(s, [end({ kind: 'cancelled', turn: 0 })])).toEqual({
      ok: false,
      error: { at: 'scenario', reason: expect.stringMatching(/turnLimit 30 is outside turnRange 16–24/) },
    });
    expect(replayLog({ ...s, turnRange: { min: 24, max: 16 } }, []).ok).toBe(false);
    expect(replayLog({ ...S, item: { ...S.item, listPrice: 0 } }, []).ok).toBe(false);
    // Hand-made values the generator would not draw are fine: no gains from trade, a cost of 0, a one-turn limit.
    const odd = { ...S, buyerValue: 10, sellerCost: 0, turnLimit: 1 };
    expect(replayLog(odd, [move(0, 'seller', offer(5)), end({ kind: 'turn_limit', turn: 1 })])).toMatchObject({ ok: true });
  });
});
