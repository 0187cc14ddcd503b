import type { Result } from './result';

/**
 * Why a move was refused: a stable code and its data (the game's refusal table, engine/refusals.ts),
 * and the English for both as `reason`, which the `invalid` event records and the agent is told
 * before it may retry.
 */
export interface ProtocolError<C extends string = string, D = unknown> {
  kind: 'invalid-move';
  code: C;
  data: D;
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
