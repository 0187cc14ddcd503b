import { accommodator } from './accommodator';
import { haggler } from './haggler';
import { hardliner } from './hardliner';
import { random } from './random';
import { boulware, conceder, linear } from './time-dependent';
import { titForTat } from './tit-for-tat';
import type { StrategyDef } from './types';

/** Every scripted strategy, in the order the UI and the CLI list them. */
export const STRATEGIES: readonly StrategyDef[] = [boulware, linear, conceder, titForTat, hardliner, accommodator, haggler, random];
