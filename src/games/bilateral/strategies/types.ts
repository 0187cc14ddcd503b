import type { BilateralAgent } from '../tournament';
import type { Rng } from '../../../engine/rng';
import type { Role } from '../scenario';
import type { ParamInfo } from '../../../agents/specs';

/** A scripted strategy: holds no prices, reads its reservation value from each observation. */
export interface StrategyDef {
  name: string;
  summary: string;
  params: Readonly<Record<string, ParamInfo>>;
  /** Same observations give the same moves (every strategy but `random`). */
  deterministic: boolean;
  /** Never accepts or offers beyond its reservation value (every strategy but `random`). */
  rational: boolean;
  /** `params` holds every parameter, defaults filled in and ranges checked. */
  create(params: Readonly<Record<string, number>>, ctx: { role: Role; rng: Rng }): BilateralAgent;
}
