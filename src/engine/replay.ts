/**
 * Replays a recorded event log through a protocol, checking that its rules could have produced
 * it: an imported log is data from anywhere, and only the protocol knows which moves were legal
 * and where a game ended. Each game (bilateral, market) names its endings and calls this.
 */
import { assertNever, err, ok, type Result } from './result';
import type { Protocol } from './protocol';
import type { SessionEvent, SessionFailure } from './session';

/** `event` is the position in the log; `turn` the turn the event claims. */
export interface EventReplayError {
  at: 'event';
  event: number;
  turn: number;
  reason: string;
}

/** How a game's messages read. */
export interface ReplayWording<Actor extends string, Out> {
  /** The game as the messages name it: 'negotiation', 'market'. */
  game: string;
  /** A protocol's ending in words; the runner's own endings (an error, a cancel) read the same in every game. */
  describe(outcome: Out): string;
  /** Whether the claimed ending is the one the protocol reached. */
  sameOutcome(claimed: Out | SessionFailure<Actor>, reached: Out): boolean;
  /** Where a log that never ends stops, e.g. `turn 3 of 10`. */
  stopsAt(turn: number): string;
}

export interface EventsReplayed<Actor extends string, Out> {
  /** What the log ends in, checked against where the protocol got to. */
  result: Out | SessionFailure<Actor>;
  /** Turns taken (moves and forfeits). */
  turns: number;
}

function failureOf<Actor extends string>(r: { kind: string }): SessionFailure<Actor> | null {
  return r.kind === 'error' || r.kind === 'cancelled' ? (r as SessionFailure<Actor>) : null;
}

/**
 * Checks a log event by event: each move must be legal for the seat whose turn it is, invalid
 * answers must be that seat's numbered attempts at that turn, a forfeit must come after exactly
 * the attempts the runner allows, and the `end` must be what the protocol reached, or an error or
 * a cancel where the protocol had not ended. The first problem found is returned.
 */
export function replayEvents<Scn, State, Actor extends string, Mv, Out extends { kind: string; turn: number }>(
  protocol: Protocol<Scn, State, Actor, unknown, Mv, Out>,
  scenario: Scn,
  events: readonly SessionEvent<Actor, Mv, Out>[],
  wording: ReplayWording<Actor, Out>,
  maxRetries: number,
): Result<EventsReplayed<Actor, Out>, EventReplayError> {
  const { game } = wording;
  const describe = (r: Out | SessionFailure<Actor>): string => {
    const f = failureOf<Actor>(r);
    if (f === null) return wording.describe(r as Out);
    return f.kind === 'error' ? `an error of the ${f.actor} at turn ${f.turn}` : `a cancel at turn ${f.turn}`;
  };
  let state = protocol.initialState(scenario);
  // Invalid answers so far at the turn in progress.
  let attempts = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as SessionEvent<Actor, Mv, Out>;
    const fail = (reason: string) => err<EventReplayError>({ at: 'event', event: i, turn: e.turn, reason });
    const turn = protocol.turn(state);
    if (e.type === 'end') {
      if (i !== events.length - 1) return fail('an "end" event before the last event');
      const claimed = e.outcome;
      const failure = failureOf<Actor>(claimed);
      if (protocol.isTerminal(state)) {
        const reached = protocol.outcome(state);
        if (!wording.sameOutcome(claimed, reached)) return fail(`the log ends in ${describe(claimed)}, but its moves end the ${game} in ${describe(reached)}`);
      } else if (failure !== null) {
        if (failure.turn !== turn) return fail(`the log ends in ${describe(claimed)}, but it stops at turn ${turn}`);
        const actor = protocol.currentActor(state);
        if (failure.kind === 'error' && failure.actor !== actor) return fail(`the log ends in ${describe(claimed)}, but turn ${turn} is the ${actor}'s`);
      } else {
        return fail(`the log ends in ${describe(claimed)}, but its moves never end the ${game} (it stops at ${wording.stopsAt(turn)})`);
      }
      if (e.turn !== claimed.turn) return fail(`the "end" event is at turn ${e.turn} but its outcome at turn ${claimed.turn}`);
      return ok({ result: claimed, turns: turn });
    }
    if (protocol.isTerminal(state)) return fail(`a "${e.type}" event after the ${game} ended in ${describe(protocol.outcome(state))}`);
    const actor = protocol.currentActor(state);
    if (e.turn !== turn) return fail(`a "${e.type}" event at turn ${e.turn}, but the ${game} is at turn ${turn}`);
    if (e.actor !== actor) return fail(`a "${e.type}" event of the ${e.actor}, but turn ${turn} is the ${actor}'s`);
    switch (e.type) {
      case 'move': {
        if (attempts > maxRetries) return fail(`a move after ${attempts} invalid answers; the runner forfeits the turn after ${maxRetries + 1}`);
        const applied = protocol.apply(state, actor, e.move);
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
        state = protocol.forfeit(state, actor);
        attempts = 0;
        break;
      default:
        return assertNever(e);
    }
  }
  return err({ at: 'event', event: events.length, turn: protocol.turn(state), reason: 'the log has no "end" event' });
}
