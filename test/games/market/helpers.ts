import type { MarketEvent } from '../../../src/games/market/events';
import type { MarketMove } from '../../../src/games/market/moves';
import { market } from '../../../src/games/market/protocol';
import type { MarketScenario } from '../../../src/games/market/scenario';
import type { MarketAgent } from '../../../src/games/market/tournament';
import { playSession, type AgentReply } from '../../../src/engine/session';

/**
 * Two buyers, three products. Values: b1 (30, 12, 9), b2 (25, 14, 2). Costs 10, 5, 8.
 * Optimal welfare: b1–p1 (20) + b2–p2 (9) = 29.
 */
export const handMarket = (over: Partial<MarketScenario> = {}): MarketScenario => ({
  id: 'hand',
  products: [
    { id: 'p1', name: 'Alpha', cost: 10, listPrice: 20, stock: 1 },
    { id: 'p2', name: 'Beta', cost: 5, listPrice: 10, stock: 1 },
    { id: 'p3', name: 'Gamma', cost: 8, listPrice: 12, stock: 1 },
  ],
  buyers: [
    { id: 'b1', values: [30, 12, 9] },
    { id: 'b2', values: [25, 14, 2] },
  ],
  budget: 4,
  valuation: 'independent',
  allowBelowCost: false,
  ...over,
});

/** An agent that answers from a list, in order, repeating the last answer once the list runs out. */
export const scripted = (...replies: (MarketMove | AgentReply<MarketMove>)[]): MarketAgent => {
  let i = 0;
  return {
    act: () => {
      const r = replies[i++] ?? replies.at(-1);
      return r !== undefined && 'kind' in r ? r : { kind: 'move', move: r as MarketMove };
    },
  };
};

/** The event log of one market between two agents that answer at once (scripted ones). */
export function playMarket(scenario: MarketScenario, seller: MarketAgent, buyer: MarketAgent, maxRetries = 2): MarketEvent[] {
  const record = playSession(market, scenario, { seller, buyer }, { maxRetries });
  if ('then' in record) throw new Error('scripted agents answer at once');
  return record.events;
}
