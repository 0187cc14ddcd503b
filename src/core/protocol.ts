import type { Result } from './result';

/** Why a move was refused. It becomes an `invalid` event; the agent is told and may retry. */
export interface ProtocolError {
  kind: 'invalid-move';
  reason: string;
}

/**
 * A game in the manner of OpenSpiel's Game/State. States are values: `apply` returns a new one.
 * `forfeit` passes the actor's turn after its retries are used up.
 */
export interface Protocol<Scn, State, Actor extends string, Obs, Mv, Out> {
  readonly name: string;
  initialState(scenario: Scn): State;
  currentActor(state: State): Actor;
  /** Only what `actor` may know: its own private values, never the opponent's. */
  observe(state: State, actor: Actor): Obs;
  apply(state: State, actor: Actor, move: Mv): Result<State, ProtocolError>;
  forfeit(state: State, actor: Actor): State;
  isTerminal(state: State): boolean;
  /** Defined once `isTerminal(state)`. */
  outcome(state: State): Out;
  /** The turn index the next move will take (for event records). */
  turn(state: State): number;
}
