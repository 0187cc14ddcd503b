/** Market figures in words, shared by the Market page and a stored market run's page. */
import type { MarketMetricName, MarketMetrics } from '../../../games/market/metrics';
import type { BuyerMove, SellerMove } from '../../../games/market/moves';
import type { MarketEvent, MarketResult } from '../../../games/market/events';
import { assertNever } from '../../../engine/result';
import { money, pct } from '../format';

export const METRIC_INFO: Record<MarketMetricName, { label: string; money: boolean; explain: string }> = {
  constraintAdherence: {
    label: 'Constraint adherence',
    money: false,
    explain:
      'The share of the seller’s moves the rules accepted (an unknown buyer or product, sold-out stock, a served buyer or a price below cost is refused).',
  },
  sellerSurplus: { label: 'Seller surplus', money: true, explain: 'What the seller earned over cost: the sum of price minus cost over every sale.' },
  buyerSurplus: {
    label: 'Buyer surplus',
    money: true,
    explain: 'What the buyers gained: the sum of each buyer’s value for what it bought minus the price it paid.',
  },
  extraction: {
    label: 'Extraction',
    money: false,
    explain: 'Seller surplus as a share of the best welfare this market allows: how much of the possible gains the seller took for itself.',
  },
  allocationQuality: {
    label: 'Allocation quality',
    money: false,
    explain: 'Welfare of the sales made as a share of the optimal allocation’s: 100% means the right buyers got the right products, whatever the prices.',
  },
  optimalWelfare: {
    label: 'Optimal welfare',
    money: true,
    explain: 'The most value minus cost any matching of buyers to units could create (a maximum-weight bipartite matching).',
  },
  realisedWelfare: { label: 'Realised welfare', money: true, explain: 'Value minus cost over the sales actually made: seller surplus plus buyer surplus.' },
  sellThrough: { label: 'Sell-through', money: false, explain: 'The share of the units in stock at the start that were sold.' },
  budgetUsed: { label: 'Budget used', money: false, explain: 'The share of the seller’s turn budget spent (moves and forfeited turns).' },
};

export const showMetric = (name: MarketMetricName, value: number | null): string =>
  value === null ? '– (no gains were possible)' : METRIC_INFO[name].money ? money(value) : pct(value, 1);

export const metricValue = (m: MarketMetrics, name: MarketMetricName): number | null => m[name];

export function describeEnd(outcome: MarketResult): string {
  switch (outcome.kind) {
    case 'budget_spent':
      return 'The seller’s turn budget was spent.';
    case 'sold_out':
      return 'Every unit was sold.';
    case 'no_buyers':
      return 'Every buyer has bought.';
    case 'error':
      return `Ended in an error of the ${outcome.actor}: ${outcome.message}`;
    case 'cancelled':
      return 'Stopped.';
    default:
      return assertNever(outcome);
  }
}

/** One line of the market's log, as text; `addressed` is the buyer the last offer went to. */
export function eventText(e: MarketEvent, addressed: string): string {
  switch (e.type) {
    case 'move': {
      if (e.actor === 'seller') {
        const m = e.move as SellerMove;
        return `Seller offers ${m.product} to ${m.buyer} at ${money(m.price)}${m.message ? `: “${m.message}”` : ''}`;
      }
      const m = e.move as BuyerMove;
      const said = m.message ? `: “${m.message}”` : '';
      const answer = m.response.type === 'counter' ? `counters at ${money(m.response.price)}` : m.response.type === 'accept' ? 'accepts' : 'rejects';
      return `${addressed} ${answer}${said}`;
    }
    case 'invalid':
      return `The ${e.actor}’s move was refused (attempt ${e.attempt + 1}): ${e.reason}`;
    case 'forfeit':
      return `The ${e.actor} forfeits the turn`;
    case 'end':
      return describeEnd(e.outcome);
    default:
      return assertNever(e);
  }
}
