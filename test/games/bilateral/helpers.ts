/** Small fixtures shared by the core tests: hand-built scenarios and inline agents. */
import type { Move } from '../../../src/games/bilateral/moves';
import type { BilateralObservation } from '../../../src/games/bilateral/protocol';
import type { Agent, AgentReply, CallRecord, Retry } from '../../../src/engine/session';
import { makeScenario, type Role, type Scenario } from '../../../src/games/bilateral/scenario';

export const ITEM = { id: 'test-widget', name: 'Test widget', category: 'test', listPrice: 200 };

/** A bilateral scenario with v = 150, c = 90 on a $200 item unless overridden. */
export function scenario(opts: { buyerValue?: number; sellerCost?: number; listPrice?: number; turnLimit?: number; firstMover?: Role } = {}): Scenario {
  return makeScenario('test-scenario', { ...ITEM, listPrice: opts.listPrice ?? ITEM.listPrice }, opts.buyerValue ?? 150, opts.sellerCost ?? 90, {
    turnLimit: opts.turnLimit ?? 20,
    firstMover: opts.firstMover ?? 'seller',
  });
}

export type BilateralTestAgent = Agent<BilateralObservation, Move> & {
  observations: BilateralObservation[];
  retries: (Retry | undefined)[];
};

/**
 * Replays a fixed list of replies (a bare Move is a move reply), one per call to act, including
 * retries; once the list is used up it sends a message-only move.
 */
export function replay(items: readonly (Move | AgentReply<Move>)[]): BilateralTestAgent {
  let i = 0;
  const observations: BilateralObservation[] = [];
  const retries: (Retry | undefined)[] = [];
  return {
    observations,
    retries,
    act(obs, _signal, retry) {
      observations.push(obs);
      retries.push(retry);
      const next = items[i++];
      if (next === undefined) return { kind: 'move', move: { message: 'nothing more to say' } };
      return 'kind' in next ? (next as AgentReply<Move>) : { kind: 'move', move: next as Move };
    },
  };
}

/** A move that is not a valid Move at the type level (to exercise the protocol's own checks). */
export const malformed = (x: unknown): Move => x as Move;

/** A model call's record, as an agent would attach it to its reply. */
export const call = (tokensIn: number, tokensOut: number, latencyMs: number): CallRecord => ({
  backend: 'fake',
  model: 'm',
  tokensIn,
  tokensOut,
  latencyMs,
});
