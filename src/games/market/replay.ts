/**
 * Replays a recorded market log through the market protocol with engine/replay.ts, checking that the
 * rules could have produced it (an imported log is data from anywhere); here are the market's
 * endings in words.
 */
import { replayEvents, type EventReplayError, type ReplayWording } from '../../engine/replay';
import { assertNever, ok, type Result } from '../../engine/result';
import { DEFAULT_MAX_RETRIES } from '../../engine/session';
import type { MarketEvent, MarketResult } from './events';
import type { MarketRole } from './moves';
import { market } from './protocol';
import type { MarketScenario } from './scenario';
import type { MarketOutcome } from './state';

export type MarketReplayError = EventReplayError;

function describeOutcome(r: MarketOutcome): string {
  switch (r.kind) {
    case 'budget_spent':
      return `the budget spent at turn ${r.turn}`;
    case 'sold_out':
      return `every unit sold at turn ${r.turn}`;
    case 'no_buyers':
      return `every buyer served at turn ${r.turn}`;
    default:
      return assertNever(r.kind);
  }
}

const wording: ReplayWording<MarketRole, MarketOutcome> = {
  game: 'market',
  describe: describeOutcome,
  sameOutcome: (claimed, reached) => reached.kind === claimed.kind && reached.turn === claimed.turn,
  stopsAt: (turn) => `turn ${turn}`,
};

/** Checks a log event by event (see replayEvents in engine/replay.ts); the first problem found is returned. */
export function replayMarketLog(
  scenario: MarketScenario,
  events: readonly MarketEvent[],
  maxRetries = DEFAULT_MAX_RETRIES,
): Result<MarketResult, MarketReplayError> {
  const replayed = replayEvents(market, scenario, events, wording, maxRetries);
  return replayed.ok ? ok(replayed.value.result) : replayed;
}
