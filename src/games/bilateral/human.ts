// The seat the user plays in person: an agent like any other, whose answer is a promise that the
// page settles with the move the user made.
import { z } from 'zod';
import type { AgentReply, Retry } from '../../engine/session';
import type { BilateralObservation } from './protocol';
import type { BilateralAgent } from './tournament';
import { MoveSchema, type Move } from './moves';
import { ROLES } from './scenario';

export { HUMAN_SPEC } from '../../agents/specs';

const money = z.number().finite();
const MAX_REASON = 2000;
const count = z.int().nonnegative();

/** What the user is shown when it is their turn: their own side of the observation, and why a last try was refused. */
export const HumanPromptSchema = z.object({
  role: z.enum(ROLES),
  /** Own private value: the buyer's value or the seller's cost. */
  reservation: money,
  listPrice: money,
  /** Turns already played (0 on the first turn). */
  turn: count,
  /** The exact limit when both sides know it; null when only its range is known. */
  turnLimit: count.nullable(),
  turnRange: z.object({ min: count, max: count }),
  ownTurn: count,
  /** Own turns this side is sure to get (by the earliest possible limit). */
  ownTurns: count,
  /** The other side's standing offer, which the user may accept or reject. */
  pending: money.nullable(),
  ownStanding: money.nullable(),
  /** Set when the last answer of this turn was refused: which try this is and why. */
  retry: z.object({ attempt: count, reason: z.string().max(MAX_REASON) }).optional(),
});
export type HumanPrompt = z.infer<typeof HumanPromptSchema>;

/** The user's own side of an observation, as plain data for the page. */
export function humanPrompt(observation: BilateralObservation, retry?: Retry): HumanPrompt {
  const { role, reservation, turn, turnLimit, turnRange, ownTurn, ownTurns, pending, ownStanding } = observation;
  return {
    role,
    reservation,
    listPrice: observation.item.listPrice,
    turn,
    turnLimit,
    turnRange: { min: turnRange.min, max: turnRange.max },
    ownTurn,
    ownTurns,
    pending,
    ownStanding,
    // Clipped to what the message schema carries: a longer reason would be refused on the way and the user never asked.
    ...(retry && { retry: { attempt: retry.attempt, reason: retry.reason.slice(0, MAX_REASON) } }),
  };
}

/** What became of an answer: handed to the runner (a malformed one as an invalid move), or dropped. */
export type AnswerFate = 'answered' | 'not-waiting' | 'stale';

/**
 * The human seat. `act` tells the page (through `ask`) that it is the user's turn and waits for
 * `answer`; the signal (the game cancelled) rejects the wait and drops it. One turn waits at a
 * time; an answer names its turn and attempt, so a late or repeated one is refused, not applied.
 */
export class HumanSeat implements BilateralAgent {
  private waiting: { turn: number; attempt: number; settle: (reply: AgentReply<Move>) => void } | null = null;

  constructor(private readonly ask: (prompt: HumanPrompt) => void) {}

  /** Whether the seat waits for the user now. */
  get isWaiting(): boolean {
    return this.waiting !== null;
  }

  act(observation: BilateralObservation, signal: AbortSignal, retry?: Retry): Promise<AgentReply<Move>> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiting = null;
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = {
        turn: observation.turn,
        attempt: retry?.attempt ?? 0,
        settle: (reply) => {
          signal.removeEventListener('abort', onAbort);
          this.waiting = null;
          resolve(reply);
        },
      };
      this.ask(humanPrompt(observation, retry));
    });
  }

  /**
   * The user's move for `turn` (and `attempt`). A move the protocol refuses (accepting with nothing
   * on the table) is still handed over: the runner records it and asks again with the reason.
   */
  answer(turn: number, attempt: number, move: unknown): AnswerFate {
    const waiting = this.waiting;
    if (!waiting) return 'not-waiting';
    if (waiting.turn !== turn || waiting.attempt !== attempt) return 'stale';
    const parsed = MoveSchema.safeParse(move);
    waiting.settle(
      parsed.success
        ? { kind: 'move', move: parsed.data }
        : { kind: 'invalid', reason: `not a move: ${parsed.error.issues[0]?.message ?? 'unreadable'}`, raw: safeText(move) },
    );
    return 'answered';
  }
}

function safeText(x: unknown): string {
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}
