import type { ParamInfo, StrategyDef } from './types';
import { acceptNext, anchorParam, composeAgent, timeDependentTarget } from './policy';

export const kappaParam = (value: number): ParamInfo => ({
  default: value,
  min: 0,
  max: 0.99,
  doc: 'fraction of the aspiration-to-reservation range already conceded in the opening offer',
});

export const betaParam = (value: number): ParamInfo => ({
  default: value,
  min: 0.01,
  max: 100,
  doc: 'concession exponent: below 1 holds out until late (Boulware), above 1 concedes early (Conceder)',
});

const ANCHOR = { anchor: anchorParam(0.4) };

/** A time-dependent strategy with AC_next; `beta` fixed when not given as a parameter. */
function timeDependent(name: string, summary: string, beta: ParamInfo | number): StrategyDef {
  const params: Record<string, ParamInfo> =
    typeof beta === 'number' ? { kappa: kappaParam(0), ...ANCHOR } : { beta, kappa: kappaParam(0), ...ANCHOR };
  return {
    name,
    summary,
    params,
    deterministic: true,
    rational: true,
    create(p) {
      const anchor = p.anchor as number;
      const b = typeof beta === 'number' ? beta : (p.beta as number);
      const kappa = p.kappa as number;
      return composeAgent({ offer: (obs) => timeDependentTarget(obs, anchor, b, kappa), accept: acceptNext });
    },
  };
}

export const boulware = timeDependent(
  'boulware',
  'Time-dependent, holds its price until late (β = 0.2), then concedes to its reservation; accepts by AC_next.',
  betaParam(0.2),
);

export const linear = timeDependent(
  'linear',
  'Time-dependent with β fixed at 1: concedes in even steps to its reservation; accepts by AC_next.',
  1,
);

export const conceder = timeDependent(
  'conceder',
  'Time-dependent, concedes early (β = 5) and then holds near its reservation; accepts by AC_next.',
  betaParam(5),
);
