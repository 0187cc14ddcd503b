import type { CatalogItem } from '../../src/games/bilateral/catalog';
import type { Move } from '../../src/games/bilateral/moves';
import { bilateral, type BilateralObservation, type BilateralState } from '../../src/games/bilateral/protocol';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { playNegotiation, type BilateralAgent } from '../../src/games/bilateral/tournament';
import { makeAgent } from '../../src/games/bilateral/registry';
import { createRng } from '../../src/engine/rng';
import { makeScenario, type Role, type Scenario } from '../../src/games/bilateral/scenario';

export const WIDGET: CatalogItem = { id: 'widget', name: 'Widget', category: 'test', listPrice: 100 };

export function scenario(buyerValue: number, sellerCost: number, opts: { listPrice?: number; turnLimit?: number; firstMover?: Role } = {}): Scenario {
  const item = { ...WIDGET, listPrice: opts.listPrice ?? WIDGET.listPrice };
  return makeScenario('test', item, buyerValue, sellerCost, opts);
}

export const agent = (spec: string, role: Role, seed = 1): BilateralAgent => makeAgent(spec, role, { rng: createRng(seed), jobId: 'test', seed });

/** The state after `moves`, one per turn, alternating from the first mover; throws on an illegal one. */
export function stateAfter(s: Scenario, moves: readonly Move[]): BilateralState {
  let state = bilateral.initialState(s);
  for (const move of moves) {
    const next = bilateral.apply(state, bilateral.currentActor(state), move);
    if (!next.ok) throw new Error(`fixture move refused: ${next.error.reason}`);
    state = next.value;
  }
  return state;
}

export function observeAfter(s: Scenario, moves: readonly Move[]): BilateralObservation {
  const state = stateAfter(s, moves);
  return bilateral.observe(state, bilateral.currentActor(state));
}

/** The move an agent makes, checked to be synchronous. */
export function moveOf(a: BilateralAgent, obs: BilateralObservation): Move {
  const reply = a.act(obs, new AbortController().signal);
  if (reply instanceof Promise) throw new Error('scripted agents answer synchronously');
  if (reply.kind !== 'move') throw new Error(`unexpected invalid reply: ${reply.reason}`);
  return reply.move;
}

/** A scripted fake that plays `moves` in order, one per own turn, then only talks. */
export function script(moves: readonly Move[]): BilateralAgent {
  return {
    act: (obs) => ({ kind: 'move', move: moves[obs.ownTurn] ?? { message: 'nothing more to say' } }),
  };
}

export const play = (s: Scenario, buyer: BilateralAgent, seller: BilateralAgent) => playNegotiation(s, { buyer, seller });

export const offersBy = (events: readonly BilateralEvent[], role: Role): number[] =>
  events.flatMap((e) => (e.type === 'move' && e.actor === role && e.move.action?.type === 'offer' ? [e.move.action.price] : []));

export const movesBy = (events: readonly BilateralEvent[], role: Role): Move[] =>
  events.flatMap((e) => (e.type === 'move' && e.actor === role ? [e.move] : []));
