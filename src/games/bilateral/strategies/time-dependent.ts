import type { ParamInfo } from '../../../agents/specs';
import type { StrategyDef } from './types';
import { timeBasedAgent } from './policy';

export const kappaParam = (value: number): ParamInfo => ({
  default: value,
  min: 0,
  max: 0.99,
  doc: 'fraction of the way from the best end of the price range to its reservation already conceded in the opening offer',
});

export const betaParam = (value: number): ParamInfo => ({
  default: value,
  min: 0.01,
  max: 100,
  doc: 'concession speed: the target moves as t^(1/β), so below 1 holds out until late (Boulware; NegMAS: 0.25, t⁴), above 1 concedes early (Conceder; NegMAS: 4, t^0.25)',
});

/**
 * A time-based strategy as NegMAS's `BoulwareTBNegotiator`, `LinearTBNegotiator` and
 * `ConcederTBNegotiator` play single-issue price bargaining: it opens at the best end of the
 * public price range and concedes toward its reservation on the clock both sides share; it offers
 * the cent worst for it within NegMAS's tolerance of its target, and accepts an offer within that
 * tolerance of its current target. `beta` is fixed when not given as a parameter.
 */
function timeBased(name: string, summary: string, beta: ParamInfo | number): StrategyDef {
  const params: Record<string, ParamInfo> = typeof beta === 'number' ? { kappa: kappaParam(0) } : { beta, kappa: kappaParam(0) };
  return {
    name,
    summary,
    params,
    deterministic: true,
    rational: true,
    create(p) {
      return timeBasedAgent(typeof beta === 'number' ? beta : (p.beta as number), p.kappa as number, false);
    },
  };
}

export const boulware = timeBased(
  'boulware',
  "NegMAS's Boulware (time-based, target t⁴ of the way from the best end of the price range to its reservation): holds out until late; accepts an offer at least as good as its current target.",
  betaParam(0.25),
);

export const linear = timeBased(
  'linear',
  "NegMAS's Linear (time-based, concedes in even steps from the best end of the price range toward its reservation); accepts an offer at least as good as its current target.",
  1,
);

export const conceder = timeBased(
  'conceder',
  "NegMAS's Conceder (time-based, target t^0.25 of the way): concedes early, then holds near its reservation; accepts an offer at least as good as its current target.",
  betaParam(4),
);
