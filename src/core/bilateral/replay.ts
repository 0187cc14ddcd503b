import { assertNever, err, ok, type Result } from '../result';
import { DEFAULT_MAX_RETRIES } from '../session';
import type { Scenario } from '../scenario';
import type { BilateralEvent, BilateralResult } from './events';
import { bilateral, type BilateralOutcome, type BilateralState } from './protocol';

/**
 * Replays a recorded event log through the bilateral protocol from its scenario, checking that the
 * rules could have produced it: an imported log is data from anywhere, and only the protocol knows
 * which moves were legal and where a negotiation ended.
 */

export type ReplayError =
  /** The scenario itself breaks the protocol; no event was read. */
  | { at: 'scenario'; reason: string }
  /** `event` is the position in the log; `turn` the turn the event claims. */
  | { at: 'event'; event: number; turn: number; reason: string };

export interface Replayed {
  /** What the log ends in, checked against where the protocol got to. */
  result: BilateralResult;
  /** Turns taken (moves and forfeits). */
  turns: number;
}

export interface ReplayOptions {
  /** The runner's retries after an invalid answer before a forfeit (default 2, as the app plays). */
  maxRetries?: number;
}

/** What in a scenario the protocol cannot run with; the schema has already checked each field's type and range. */
export function scenarioProblem(s: Scenario): string | null {
  if (!(s.item.listPrice > 0) || !Number.isFinite(s.item.listPrice)) return `item.listPrice must be a positive number (got ${s.item.listPrice})`;
  const range = s.turnRange;
  if (range !== undefined) {
    if (range.min > range.max) return `turnRange runs from ${range.min} down to ${range.max}`;
    if (s.turnLimit < range.min || s.turnLimit > range.max)
      return `turnLimit ${s.turnLimit} is outside turnRange ${range.min}–${range.max}, which both sides are told it lies in`;
  }
  return null;
}

const money = (price: number): string => `$${price.toFixed(2)}`;

export function describeResult(r: BilateralResult): string {
  switch (r.kind) {
    case 'deal':
      return `a deal at ${money(r.price)} accepted by the ${r.acceptedBy} at turn ${r.turn}`;
    case 'walk_away':
      return `a walk-away by the ${r.by} at turn ${r.turn}`;
    case 'turn_limit':
      return `the turn limit at turn ${r.turn}`;
    case 'error':
      return `an error of the ${r.actor} at turn ${r.turn}`;
    case 'cancelled':
      return `a cancel at turn ${r.turn}`;
    default:
      return assertNever(r);
  }
}

function sameOutcome(claimed: BilateralResult, reached: BilateralOutcome): boolean {
  switch (reached.kind) {
    case 'deal':
      return (
        claimed.kind === 'deal' &&
        claimed.price === reached.price &&
        claimed.turn === reached.turn &&
        claimed.acceptedBy === reached.acceptedBy
      );
    case 'walk_away':
      return claimed.kind === 'walk_away' && claimed.by === reached.by && claimed.turn === reached.turn;
    case 'turn_limit':
      return claimed.kind === 'turn_limit' && claimed.turn === reached.turn;
    default:
      return assertNever(reached);
  }
}

/**
 * Checks a log event by event: each move must be legal for the side whose turn it is, invalid
 * answers must be that side's numbered attempts at that turn, a forfeit must come after exactly the
 * attempts the runner allows, and the `end` must be what the protocol reached, or an error or a
 * cancel where the protocol had not ended. The first problem found is returned.
 */
export function replayLog(
  scenario: Scenario,
  events: readonly BilateralEvent[],
  opts: ReplayOptions = {},
): Result<Replayed, ReplayError> {
  const broken = scenarioProblem(scenario);
  if (broken !== null) return err({ at: 'scenario', reason: broken });
  const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
  let state: BilateralState = bilateral.initialState(scenario);
  // Invalid answers so far at the turn in progress.
  let attempts = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as BilateralEvent;
    const fail = (reason: string) => err<ReplayError>({ at: 'event', event: i, turn: e.turn, reason });
    const turn = bilateral.turn(state);
    if (e.type === 'end') {
      if (i !== events.length - 1) return fail('an "end" event before the last event');
      const claimed = e.outcome;
      if (bilateral.isTerminal(state)) {
        const reached = bilateral.outcome(state);
        if (!sameOutcome(claimed, reached))
          return fail(`the log ends in ${describeResult(claimed)}, but its moves end the negotiation in ${describeResult(reached)}`);
      } else if (claimed.kind === 'error' || claimed.kind === 'cancelled') {
        if (claimed.turn !== turn) return fail(`the log ends in ${describeResult(claimed)}, but it stops at turn ${turn}`);
        const actor = bilateral.currentActor(state);
        if (claimed.kind === 'error' && claimed.actor !== actor)
          return fail(`the log ends in ${describeResult(claimed)}, but turn ${turn} is the ${actor}'s`);
      } else {
        const where = `turn ${turn} of ${scenario.turnLimit}`;
        return fail(`the log ends in ${describeResult(claimed)}, but its moves never end the negotiation (it stops at ${where})`);
      }
      if (e.turn !== claimed.turn) return fail(`the "end" event is at turn ${e.turn} but its outcome at turn ${claimed.turn}`);
      return ok({ result: claimed, turns: turn });
    }
    if (bilateral.isTerminal(state))
      return fail(`a "${e.type}" event after the negotiation ended in ${describeResult(bilateral.outcome(state))}`);
    const actor = bilateral.currentActor(state);
    if (e.turn !== turn) return fail(`a "${e.type}" event at turn ${e.turn}, but the negotiation is at turn ${turn}`);
    if (e.actor !== actor) return fail(`a "${e.type}" event of the ${e.actor}, but turn ${turn} is the ${actor}'s`);
    switch (e.type) {
      case 'move': {
        if (attempts > maxRetries)
          return fail(`a move after ${attempts} invalid answers; the runner forfeits the turn after ${maxRetries + 1}`);
        const applied = bilateral.apply(state, actor, e.move);
        if (!applied.ok) return fail(`an illegal move: ${applied.error.reason}`);
        state = applied.value;
        attempts = 0;
        break;
      }
      case 'invalid':
        if (attempts > maxRetries)
          return fail(`invalid answer ${attempts + 1} at one turn; the runner forfeits the turn after ${maxRetries + 1}`);
        if (e.attempt !== attempts) return fail(`invalid answer numbered attempt ${e.attempt}, but it is attempt ${attempts} of this turn`);
        attempts++;
        break;
      case 'forfeit':
        if (attempts !== maxRetries + 1)
          return fail(`a forfeit after ${attempts} invalid answer${attempts === 1 ? '' : 's'}; a turn is forfeited only after ${maxRetries + 1}`);
        state = bilateral.forfeit(state, actor);
        attempts = 0;
        break;
      default:
        return assertNever(e);
    }
  }
  return err({ at: 'event', event: events.length, turn: bilateral.turn(state), reason: 'the log has no "end" event' });
}
