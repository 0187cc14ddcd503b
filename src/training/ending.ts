/**
 * Gymnasium's split of an episode's end: `terminated` when the game reached one of its own ends (a
 * deal or a walk-away; a market sold out or left without buyers), `truncated` when something
 * outside the moves stopped it (the turn limit, the market's budget of seller turns, a cancel, an
 * agent's failure). Exactly one is true once `done`, neither before.
 */
import type { BilateralResult } from '../games/bilateral/events';
import type { MarketResult } from '../games/market/events';
import { assertNever } from '../engine/result';

export interface Ending {
  terminated: boolean;
  truncated: boolean;
}

export const NOT_ENDED: Ending = { terminated: false, truncated: false };

export function endingOf(outcome: BilateralResult | MarketResult): Ending {
  switch (outcome.kind) {
    case 'deal':
    case 'walk_away':
    case 'sold_out':
    case 'no_buyers':
      return { terminated: true, truncated: false };
    case 'turn_limit':
    case 'budget_spent':
    case 'cancelled':
    case 'error':
      return { terminated: false, truncated: true };
    default:
      return assertNever(outcome);
  }
}
