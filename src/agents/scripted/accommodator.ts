import type { StrategyDef } from './types';
import { acceptAnyWithinReservation, anchorParams, composeAgent, readAnchors, timeDependentTarget } from './policy';
import { betaParam, kappaParam } from './time-dependent';

export const accommodator: StrategyDef = {
  name: 'accommodator',
  summary:
    'Concedes fast (time-dependent, β = 5, κ = 0.3, modest anchors) and takes the first offer within its reservation.',
  params: { beta: betaParam(5), kappa: kappaParam(0.3), ...anchorParams(1.1, 0.75) },
  deterministic: true,
  rational: true,
  create(p) {
    const anchors = readAnchors(p);
    const beta = p.beta as number;
    const kappa = p.kappa as number;
    return composeAgent({
      offer: (obs) => timeDependentTarget(obs, anchors, beta, kappa),
      accept: acceptAnyWithinReservation,
    });
  },
};
