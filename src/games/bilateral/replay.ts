import { replayEvents, type EventReplayError, type ReplayWording } from '../../engine/replay';
import { assertNever, err, type Result } from '../../engine/result';
import { DEFAULT_MAX_RETRIES } from '../../engine/session';
import type { Role, Scenario } from './scenario';
import type { BilateralEvent, BilateralResult } from './events';
import { bilateral, type BilateralOutcome } from './protocol';

/**
 * Replays a recorded event log through the bilateral protocol from its scenario, checking that the
 * rules could have produced it: an imported log is data from anywhere, and only the protocol knows
 * which moves were legal and where a negotiation ended.
 */

export type ReplayError =
  /** The scenario itself breaks the protocol; no event was read. */
  { at: 'scenario'; reason: string } | EventReplayError;

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

function describeOutcome(r: BilateralOutcome): string {
  switch (r.kind) {
    case 'deal':
      return `a deal at ${money(r.price)} accepted by the ${r.acceptedBy} at turn ${r.turn}`;
    case 'walk_away':
      return `a walk-away by the ${r.by} at turn ${r.turn}`;
    case 'turn_limit':
      return `the turn limit at turn ${r.turn}`;
    default:
      return assertNever(r);
  }
}

function sameOutcome(claimed: BilateralResult, reached: BilateralOutcome): boolean {
  switch (reached.kind) {
    case 'deal':
      return claimed.kind === 'deal' && claimed.price === reached.price && claimed.turn === reached.turn && claimed.acceptedBy === reached.acceptedBy;
    case 'walk_away':
      return claimed.kind === 'walk_away' && claimed.by === reached.by && claimed.turn === reached.turn;
    case 'turn_limit':
      return claimed.kind === 'turn_limit' && claimed.turn === reached.turn;
    default:
      return assertNever(reached);
  }
}

/**
 * Checks a log event by event (see replayEvents in engine/replay.ts), after the scenario itself. The
 * first problem found is returned.
 */
export function replayLog(scenario: Scenario, events: readonly BilateralEvent[], opts: ReplayOptions = {}): Result<Replayed, ReplayError> {
  const broken = scenarioProblem(scenario);
  if (broken !== null) return err({ at: 'scenario', reason: broken });
  const wording: ReplayWording<Role, BilateralOutcome> = {
    game: 'negotiation',
    describe: describeOutcome,
    sameOutcome,
    stopsAt: (turn) => `turn ${turn} of ${scenario.turnLimit}`,
  };
  return replayEvents(bilateral, scenario, events, wording, opts.maxRetries ?? DEFAULT_MAX_RETRIES);
}
