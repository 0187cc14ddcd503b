/**
 * The oracle search (games/bilateral/oracle.ts) against hand-made counterparts: hand-solved cases,
 * and an exhaustive search over every plan of the seat on a price grid, which the exact search for
 * scheduled counterparts must match and the reactive search must never fall below.
 */
import { describe, expect, it } from 'vitest';
import type { Move } from '../../../src/games/bilateral/moves';
import { oracleOutcome, oracleShare, type ScheduledMove } from '../../../src/games/bilateral/oracle';
import { bilateral, type BilateralObservation, type BilateralState } from '../../../src/games/bilateral/protocol';
import type { BilateralAgent } from '../../../src/games/bilateral/tournament';
import { opponentOf, type Role, type Scenario } from '../../../src/games/bilateral/scenario';
import { scenario } from './helpers';

type Schedule = (obs: BilateralObservation) => ScheduledMove;

/** A scheduled counterpart played as an agent: take the pending offer if it is at least as good as `accepts`, else offer (or walk away). */
function follow(schedule: Schedule): BilateralAgent {
  return {
    act(obs) {
      const { offer, accepts } = schedule(obs);
      const p = obs.pending;
      if (p !== null && accepts !== null && (obs.role === 'seller' ? p >= accepts : p <= accepts))
        return { kind: 'move', move: { action: { type: 'accept' } } };
      return { kind: 'move', move: offer === null ? { action: { type: 'walk_away' } } : { action: { type: 'offer', price: offer } } };
    },
  };
}

/**
 * The seat's best utility over every plan: at each own turn talk, accept the standing offer, or
 * offer any price of `grid` (every plan the grid allows, played out with the counterpart itself).
 */
function exhaustive(s: Scenario, seat: Role, agent: BilateralAgent, grid: readonly number[]): number {
  const other = opponentOf(seat);
  const utility = (price: number) => (seat === 'buyer' ? s.buyerValue - price : price - s.sellerCost);
  const signal = new AbortController().signal;
  const go = (state: BilateralState): number => {
    if (bilateral.isTerminal(state)) {
      const end = bilateral.outcome(state);
      return end.kind === 'deal' ? Math.max(0, utility(end.price)) : 0;
    }
    const actor = bilateral.currentActor(state);
    if (actor === other) {
      const reply = agent.act(bilateral.observe(state, other), signal);
      if (reply instanceof Promise || reply.kind !== 'move') throw new Error('synchronous moves only');
      const next = bilateral.apply(state, other, reply.move);
      if (!next.ok) throw new Error(next.error.reason);
      return go(next.value);
    }
    const moves: Move[] = [{ message: 'hm' }, ...grid.map((price): Move => ({ action: { type: 'offer', price } }))];
    if (state.standing !== null && state.standing.actor === other) moves.push({ action: { type: 'accept' } });
    let best = 0;
    for (const m of moves) {
      const next = bilateral.apply(state, seat, m);
      if (next.ok) best = Math.max(best, go(next.value));
    }
    return best;
  };
  return go(bilateral.initialState(s));
}

const dollars = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

// v = 150, c = 90 on a $200 item: gains of 60.
describe('the oracle against a scheduled counterpart', () => {
  it('names the counterpart’s threshold at once when it is the best price, and takes nothing worse', () => {
    // The seller asks 140 and takes 120 or more, every turn.
    const steady: Schedule = () => ({ offer: 140, accepts: 120 });
    const s = scenario({ turnLimit: 6 });
    const best = oracleOutcome(s, 'buyer', { kind: 'scheduled', at: steady });
    expect(best).toEqual({ utility: 30, price: 120, turn: 1, how: 'offer' });
    expect(oracleShare(s, best)).toBeCloseTo(0.5, 12);
  });

  it('waits for a counterpart that concedes, and takes its offer when that beats naming its threshold', () => {
    // The seller's ask falls $10 a turn from 150; it takes only its own ask plus $5 (never less).
    const falling: Schedule = (obs) => ({ offer: 150 - 10 * obs.turn, accepts: 155 - 10 * obs.turn });
    const s = scenario({ turnLimit: 8 });
    // The buyer's last turn is 7: it takes the ask of turn 6, $90 (the seller's cost, so all 60).
    expect(oracleOutcome(s, 'buyer', { kind: 'scheduled', at: falling })).toEqual({ utility: 60, price: 90, turn: 7, how: 'accept' });
  });

  it('cannot make an offer on the last turn (no one is left to answer it), and nothing after a walk-away', () => {
    // Takes 150 − 10 × turn or more, asks 145; at turn 4 it still answers the offer it is made, then walks away.
    const leaving: Schedule = (obs) => ({ offer: obs.turn >= 4 ? null : 145, accepts: 150 - 10 * obs.turn });
    expect(oracleOutcome(scenario({ turnLimit: 10 }), 'buyer', { kind: 'scheduled', at: leaving })).toEqual({ utility: 40, price: 110, turn: 3, how: 'offer' });
    // With two turns only, the buyer's turn 1 is the last: it can take the ask of 145, nothing else.
    expect(oracleOutcome(scenario({ turnLimit: 2 }), 'buyer', { kind: 'scheduled', at: leaving })).toEqual({ utility: 5, price: 145, turn: 1, how: 'accept' });
  });

  it('is 0 with no deal when nothing the counterpart would take leaves the seat better off', () => {
    const dear: Schedule = () => ({ offer: 190, accepts: 170 });
    const s = scenario({ turnLimit: 6 });
    const best = oracleOutcome(s, 'buyer', { kind: 'scheduled', at: dear });
    expect(best).toEqual({ utility: 0, price: null, turn: null, how: null });
    expect(oracleShare(s, best)).toBe(0);
  });

  it('works for the seller too, and when the seller opens or answers', () => {
    // A buyer bidding 100 + 5 × turn, taking anything up to 130.
    const rising: Schedule = (obs) => ({ offer: 100 + 5 * obs.turn, accepts: 130 });
    for (const firstMover of ['seller', 'buyer'] as const) {
      const s = scenario({ turnLimit: 6, firstMover });
      expect(oracleOutcome(s, 'seller', { kind: 'scheduled', at: rising })).toMatchObject({ utility: 40, price: 130, how: 'offer' });
    }
  });

  it('matches an exhaustive search over every plan on a price grid', () => {
    const schedules: [string, Schedule][] = [
      ['falling ask, threshold above it', (obs) => ({ offer: 170 - 9 * obs.turn, accepts: 175 - 9 * obs.turn })],
      ['steady ask, falling threshold', (obs) => ({ offer: 160, accepts: 160 - 12 * obs.turn })],
      ['walks away at turn 3', (obs) => ({ offer: obs.turn >= 3 ? null : 150, accepts: 120 })],
    ];
    for (const [name, at] of schedules)
      for (const firstMover of ['seller', 'buyer'] as const) {
        const s = scenario({ turnLimit: 5, firstMover });
        const best = oracleOutcome(s, 'buyer', { kind: 'scheduled', at });
        // Every threshold and ask above lies on whole dollars, so the grid holds the best price.
        expect([name, firstMover, best.utility]).toEqual([name, firstMover, exhaustive(s, 'buyer', follow(at), dollars(90, 150))]);
      }
  });
});

describe('the oracle against a reactive counterpart', () => {
  /** A seller that opens at 180 and, each time the buyer raises its bid by X, lowers its ask by X; it takes a bid at or above its next ask. */
  const mirror: BilateralAgent = {
    act(obs) {
      const own = obs.ownOffers;
      const bids = obs.opponentOffers;
      const last = own.at(-1) ?? 180;
      const raise = bids.length >= 2 ? (bids.at(-1) as number) - (bids.at(-2) as number) : 0;
      const next = Math.max(obs.reservation, Math.min(180, last - raise));
      if (obs.pending !== null && obs.pending >= next) return { kind: 'move', move: { action: { type: 'accept' } } };
      return { kind: 'move', move: { action: { type: 'offer', price: next } } };
    },
  };

  it('finds the jump that makes a mirror give its margin away: it offers its cost and the seat takes it', () => {
    // Open at a cent, jump to half the cost: the mirror drops by as much, to its cost of 90.
    const s = scenario({ turnLimit: 8 });
    const best = oracleOutcome(s, 'buyer', { kind: 'reactive', agent: mirror });
    expect(best.utility).toBeCloseTo(60, 9);
    expect(best.price).toBe(90);
    expect(oracleShare(s, best)).toBeCloseTo(1, 12);
  });

  it('is never below an exhaustive search on a coarse grid, and equals the exact search on a scheduled counterpart', () => {
    const s = scenario({ turnLimit: 5 });
    const grid = dollars(10, 150, 20);
    expect(oracleOutcome(s, 'buyer', { kind: 'reactive', agent: mirror }).utility).toBeGreaterThanOrEqual(exhaustive(s, 'buyer', mirror, grid) - 1e-9);
    const at: Schedule = (obs) => ({ offer: 170 - 9 * obs.turn, accepts: 175 - 9 * obs.turn });
    for (const firstMover of ['seller', 'buyer'] as const) {
      const t = scenario({ turnLimit: 7, firstMover });
      expect(oracleOutcome(t, 'buyer', { kind: 'reactive', agent: follow(at) }).utility).toBeCloseTo(
        oracleOutcome(t, 'buyer', { kind: 'scheduled', at }).utility,
        9,
      );
    }
  });

  it('has no share without gains from trade', () => {
    const s = scenario({ buyerValue: 80, sellerCost: 100, turnLimit: 6 });
    expect(oracleShare(s, oracleOutcome(s, 'buyer', { kind: 'reactive', agent: mirror }))).toBeNull();
  });
});
