import type { BilateralObservation } from '../protocol';
import type { StrategyDef } from './types';
import { acceptNext, composeAgent, rangeStart } from './policy';

/**
 * A naive haggler's target: from the best end of the price range it gives up `step` dollars for
 * every two turns of the negotiation (half a step a turn, on the clock both sides share, so the
 * side that opens has no head start), never past its reservation. The step is in dollars whatever
 * the item costs: on a cheap item it gives its margin away in a turn or two, on an expensive one it
 * hardly moves — the pattern proportional strategies cannot show.
 */
export function hagglerTarget(obs: BilateralObservation, step: number): number {
  const start = rangeStart(obs);
  const r = obs.reservation;
  const given = (step * (obs.turn + 1)) / 2;
  if (obs.role === 'seller') return start - given > r ? start - given : r;
  return start + given < r ? start + given : r;
}

export const haggler: StrategyDef = {
  name: 'haggler',
  summary:
    'Haggles in fixed dollar steps, as a naive person does: from the best end of the price range it gives up `step` dollars a round (two turns), whatever the price; accepts by AC_next.',
  params: {
    step: { default: 5, min: 0.01, max: 100_000, doc: 'dollars given up per round of two turns (half of it per turn), whatever the item costs' },
  },
  deterministic: true,
  rational: true,
  create(p) {
    const step = p.step as number;
    return composeAgent({ offer: (obs) => hagglerTarget(obs, step), accept: acceptNext });
  },
};
