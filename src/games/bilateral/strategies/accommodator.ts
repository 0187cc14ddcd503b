import type { StrategyDef } from './types';
import { timeBasedAgent } from './policy';
import { betaParam, kappaParam } from './time-dependent';

export const accommodator: StrategyDef = {
  name: 'accommodator',
  summary:
    'Concedes faster than the conceder (time-based, β = 10: t^0.1 of the way from the best end of the price range) and takes the first offer within its reservation.',
  params: { beta: betaParam(10), kappa: kappaParam(0) },
  deterministic: true,
  rational: true,
  create(p) {
    return timeBasedAgent(p.beta as number, p.kappa as number, true);
  },
};
