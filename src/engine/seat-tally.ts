import type { SessionEvent } from './session';

/** What one seat did in a log: valid moves, refused answers, forfeited turns, and its model calls. */
export interface SeatTally {
  moves: number;
  invalidMoves: number;
  forfeits: number;
  /** Events with a model call (moves and invalid answers); 0 for a scripted agent. */
  calls: number;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
}

export const emptySeatTally = (): SeatTally => ({ moves: 0, invalidMoves: 0, forfeits: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 });

/** Counts one of a seat's events (any but the `end`) into its tally; every game's metrics fold the log with it. */
export function countSeatEvent(tally: SeatTally, e: Exclude<SessionEvent<string, unknown, unknown>, { type: 'end' }>): void {
  if (e.type === 'forfeit') {
    tally.forfeits++;
    return;
  }
  if (e.call) {
    tally.calls++;
    tally.tokensIn += e.call.tokensIn;
    tally.tokensOut += e.call.tokensOut;
    tally.latencyMs += e.call.latencyMs;
  }
  if (e.type === 'invalid') tally.invalidMoves++;
  else tally.moves++;
}
