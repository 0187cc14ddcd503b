import type { MarketRole } from '../moves';
import type { MarketAgent } from '../tournament';
import type { Rng } from '../../../engine/rng';
import type { ParamInfo } from '../../../agents/specs';

/** A scripted market strategy for one seat: holds no prices, reads everything from each observation. */
export interface MarketStrategyDef {
  name: string;
  role: MarketRole;
  summary: string;
  params: Readonly<Record<string, ParamInfo>>;
  /** Same observations give the same moves. */
  deterministic: boolean;
  /** A seller never prices below cost, a buyer never pays above its value. */
  rational: boolean;
  /** `params` holds every parameter, defaults filled in and ranges checked. */
  create(params: Readonly<Record<string, number>>, ctx: { rng: Rng }): MarketAgent;
}
