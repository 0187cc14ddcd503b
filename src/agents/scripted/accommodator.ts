import type { StrategyDef } from './types';
import { acceptAnyWithinReservation, anchorParam, composeAgent, timeDependentTarget } from './policy';
import { betaParam, kappaParam } from './time-dependent';

export const accommodator: StrategyDef = {
  name: 'accommodator',
  summary:
    'Concedes fast (time-dependent, β = 5, κ = 0.3, a modest anchor) and takes the first offer within its reservation.',
  params: { beta: betaParam(5), kappa: kappaParam(0.3), anchor: anchorParam(0.15) },
  deterministic: true,
  rational: true,
  create(p) {
    const anchor = p.anchor as number;
    const beta = p.beta as number;
    const kappa = p.kappa as number;
    return composeAgent({
      offer: (obs) => timeDependentTarget(obs, anchor, beta, kappa),
      accept: acceptAnyWithinReservation,
    });
  },
};
