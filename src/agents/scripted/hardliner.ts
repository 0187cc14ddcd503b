import type { StrategyDef } from './types';
import { acceptNext, anchorParams, aspiration, composeAgent, readAnchors } from './policy';

export const hardliner: StrategyDef = {
  name: 'hardliner',
  summary:
    'Offers its aspiration every turn and never concedes; accepts only an offer at least that good; walks away at its last own turn.',
  params: anchorParams(1.05, 0.7),
  deterministic: true,
  rational: true,
  create(p) {
    const anchors = readAnchors(p);
    return composeAgent({ offer: (obs) => aspiration(obs, anchors), accept: acceptNext, walkAwayAtEnd: true });
  },
};
