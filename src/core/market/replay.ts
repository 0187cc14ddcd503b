/**
 * Replays a recorded market log through the protocol from its scenario, checking that the rules
 * could have produced it (an imported log is data from anywhere), as core/bilateral/replay.ts does
 * for negotiations.
 */
import { assertNever, err, ok, type Result } from '../result';
import { DEFAULT_MAX_RETRIES } from '../session';
import type { MarketEvent, MarketResult } from './events';
import { market, type MarketState } from './protocol';
import type { MarketScenario } from './scenario';

export type MarketReplayError = { at: 'event'; event: number; turn: number; reason: string };

export function describeMarketResult(r: MarketResult): string {
  switch (r.kind) {
    case 'budget_spent':
      return `the budget spent at turn ${r.turn}`;
    case 'sold_out':
      return `every unit sold at turn ${r.turn}`;
    case 'no_buyers':
      return `every buyer served at turn ${r.turn}`;
    case 'error':
      return `an error of the ${r.actor} at turn ${r.turn}`;
    case 'cancelled':
      return `a cancel at turn ${r.turn}`;
    default:
      return assertNever(r);
  }
}

/**
 * Checks a log event by event: each move legal for the seat whose turn it is, invalid answers
 * numbered attempts at that turn, forfeits after exactly the attempts the runner allows, and the
 * `end` what the protocol reached (or an error or cancel where it had not ended). The first
 * problem found is returned.
 */
export function replayMarketLog(scenario: MarketScenario, events: readonly MarketEvent[], maxRetries = DEFAULT_MAX_RETRIES): Result<MarketResult, MarketReplayError> {
  let state: MarketState = market.initialState(scenario);
  let attempts = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as MarketEvent;
    const fail = (reason: string) => err<MarketReplayError>({ at: 'event', event: i, turn: e.turn, reason });
    const turn = market.turn(state);
    if (e.type === 'end') {
      if (i !== events.length - 1) return fail('an "end" event before the last event');
      const claimed = e.outcome;
      if (market.isTerminal(state)) {
        const reached = market.outcome(state);
        if (reached.kind !== claimed.kind || reached.turn !== claimed.turn)
          return fail(`the log ends in ${describeMarketResult(claimed)}, but its moves end the market in ${describeMarketResult(reached)}`);
      } else if (claimed.kind === 'error' || claimed.kind === 'cancelled') {
        if (claimed.turn !== turn) return fail(`the log ends in ${describeMarketResult(claimed)}, but it stops at turn ${turn}`);
        const actor = market.currentActor(state);
        if (claimed.kind === 'error' && claimed.actor !== actor) return fail(`the log ends in ${describeMarketResult(claimed)}, but turn ${turn} is the ${actor}'s`);
      } else return fail(`the log ends in ${describeMarketResult(claimed)}, but its moves never end the market (it stops at turn ${turn})`);
      if (e.turn !== claimed.turn) return fail(`the "end" event is at turn ${e.turn} but its outcome at turn ${claimed.turn}`);
      return ok(claimed);
    }
    if (market.isTerminal(state)) return fail(`a "${e.type}" event after the market ended in ${describeMarketResult(market.outcome(state))}`);
    const actor = market.currentActor(state);
    if (e.turn !== turn) return fail(`a "${e.type}" event at turn ${e.turn}, but the market is at turn ${turn}`);
    if (e.actor !== actor) return fail(`a "${e.type}" event of the ${e.actor}, but turn ${turn} is the ${actor}'s`);
    switch (e.type) {
      case 'move': {
        if (attempts > maxRetries) return fail(`a move after ${attempts} invalid answers; the runner forfeits the turn after ${maxRetries + 1}`);
        const applied = market.apply(state, actor, e.move);
        if (!applied.ok) return fail(`an illegal move: ${applied.error.reason}`);
        state = applied.value;
        attempts = 0;
        break;
      }
      case 'invalid':
        if (attempts > maxRetries) return fail(`invalid answer ${attempts + 1} at one turn; the runner forfeits the turn after ${maxRetries + 1}`);
        if (e.attempt !== attempts) return fail(`invalid answer numbered attempt ${e.attempt}, but it is attempt ${attempts} of this turn`);
        attempts++;
        break;
      case 'forfeit':
        if (attempts !== maxRetries + 1)
          return fail(`a forfeit after ${attempts} invalid answer${attempts === 1 ? '' : 's'}; a turn is forfeited only after ${maxRetries + 1}`);
        state = market.forfeit(state, actor);
        attempts = 0;
        break;
      default:
        return assertNever(e);
    }
  }
  return err({ at: 'event', event: events.length, turn: market.turn(state), reason: 'the log has no "end" event' });
}
