import type { StrategyDef } from './types';
import { acceptNext, anchorParam, aspiration, composeAgent } from './policy';

export const hardliner: StrategyDef = {
  name: 'hardliner',
  summary:
    'Offers its aspiration every turn and never concedes; accepts only an offer at least that good; walks away at its last own turn when the deadline is fixed.',
  params: { anchor: anchorParam(0.1) },
  deterministic: true,
  rational: true,
  create(p) {
    const anchor = p.anchor as number;
    return composeAgent({ offer: (obs) => aspiration(obs, anchor), accept: acceptNext, walkAwayAtEnd: true });
  },
};
