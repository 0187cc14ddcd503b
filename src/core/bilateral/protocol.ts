import type { Protocol, ProtocolError } from '../protocol';
import { err, ok, type Result } from '../result';
import { knownTurnRange, opponentOf, roundCents, type Role, type Scenario } from '../scenario';
import { MAX_MESSAGE_LENGTH, type Action, type Move } from './moves';

/** What both sides can see of one past turn. */
export type TranscriptEntry =
  | { turn: number; actor: Role; message?: string; action?: Action }
  | { turn: number; actor: Role; forfeited: true };

export type BilateralOutcome =
  | { kind: 'deal'; price: number; turn: number; acceptedBy: Role }
  | { kind: 'walk_away'; by: Role; turn: number }
  | { kind: 'turn_limit'; turn: number };

export interface BilateralState {
  readonly scenario: Scenario;
  /** Turns taken so far (valid moves and forfeits). */
  readonly turn: number;
  /** The one standing offer on the table, if any: the other side may accept it. */
  readonly pending: { readonly by: Role; readonly price: number } | null;
  readonly buyerOffers: readonly number[];
  readonly sellerOffers: readonly number[];
  readonly transcript: readonly TranscriptEntry[];
  readonly outcome: BilateralOutcome | null;
}

export interface BilateralObservation {
  readonly role: Role;
  readonly item: Scenario['item'];
  /** Own private value: the buyer's value v or the seller's cost c. Never the opponent's. */
  readonly reservation: number;
  readonly turn: number;
  /** The exact turn limit when the deadline is fixed; `null` when only its range is known. */
  readonly turnLimit: number | null;
  /** The range the turn limit lies in, as both sides know it (one value when it is fixed). */
  readonly turnRange: { readonly min: number; readonly max: number };
  readonly firstMover: Role;
  /** Own turns already taken, and own turns this side is sure to get (by the earliest possible limit). */
  readonly ownTurn: number;
  readonly ownTurns: number;
  /** The opponent's standing offer, which this side may accept. */
  readonly pending: number | null;
  /** This side's own standing offer, if it is still on the table. */
  readonly ownStanding: number | null;
  readonly ownOffers: readonly number[];
  readonly opponentOffers: readonly number[];
  readonly transcript: readonly TranscriptEntry[];
}

/** How many turns `role` gets in a negotiation of `turnLimit` turns that `firstMover` opens. */
export const turnsFor = (role: Role, firstMover: Role, turnLimit: number): number =>
  role === firstMover ? Math.ceil(turnLimit / 2) : Math.floor(turnLimit / 2);

const invalid = (reason: string): Result<BilateralState, ProtocolError> => err({ kind: 'invalid-move', reason });

/** The next state after one turn. Every field is written out so states keep one shape (it is the hot path). */
function advance(
  state: BilateralState,
  entry: TranscriptEntry,
  pending: BilateralState['pending'],
  buyerOffers: readonly number[],
  sellerOffers: readonly number[],
  outcome: BilateralOutcome | null,
): BilateralState {
  const turn = state.turn + 1;
  return {
    scenario: state.scenario,
    turn,
    pending,
    buyerOffers,
    sellerOffers,
    transcript: [...state.transcript, entry],
    outcome: outcome === null && turn >= state.scenario.turnLimit ? { kind: 'turn_limit', turn } : outcome,
  };
}

function entryOf(turn: number, actor: Role, message: string | undefined, action: Action): TranscriptEntry {
  return message === undefined ? { turn, actor, action } : { turn, actor, message, action };
}

export const bilateral: Protocol<Scenario, BilateralState, Role, BilateralObservation, Move, BilateralOutcome> = {
  name: 'bilateral',

  initialState: (scenario) => ({
    scenario,
    turn: 0,
    pending: null,
    buyerOffers: [],
    sellerOffers: [],
    transcript: [],
    outcome: null,
  }),

  currentActor: (state) =>
    state.turn % 2 === 0 ? state.scenario.firstMover : opponentOf(state.scenario.firstMover),

  turn: (state) => state.turn,

  observe: (state, role) => {
    const s = state.scenario;
    const ownOffers = role === 'buyer' ? state.buyerOffers : state.sellerOffers;
    const opponentOffers = role === 'buyer' ? state.sellerOffers : state.buyerOffers;
    const ownTurn = role === s.firstMover ? Math.ceil(state.turn / 2) : Math.floor(state.turn / 2);
    const turnRange = knownTurnRange(s);
    return {
      role,
      item: s.item,
      reservation: role === 'buyer' ? s.buyerValue : s.sellerCost,
      turn: state.turn,
      turnLimit: s.turnRange ? null : s.turnLimit,
      turnRange,
      firstMover: s.firstMover,
      ownTurn,
      ownTurns: turnsFor(role, s.firstMover, turnRange.min),
      pending: state.pending !== null && state.pending.by !== role ? state.pending.price : null,
      ownStanding: state.pending !== null && state.pending.by === role ? state.pending.price : null,
      ownOffers,
      opponentOffers,
      transcript: state.transcript,
    };
  },

  apply: (state, actor, move) => {
    if (state.outcome !== null) return invalid('the negotiation is over');
    if (typeof move !== 'object' || move === null) return invalid('a move must be an object');
    const { message, action } = move;
    if (message !== undefined) {
      if (typeof message !== 'string') return invalid('message must be text');
      if (message.length > MAX_MESSAGE_LENGTH)
        return invalid(`message is ${message.length} characters; the limit is ${MAX_MESSAGE_LENGTH}`);
    }
    if (action === undefined) {
      if (message === undefined) return invalid('a move needs a message or an action');
      const said: TranscriptEntry = { turn: state.turn, actor, message };
      return ok(advance(state, said, state.pending, state.buyerOffers, state.sellerOffers, null));
    }
    const pendingFromOpponent = state.pending !== null && state.pending.by !== actor ? state.pending : null;
    switch (action?.type) {
      case 'offer': {
        const raw = action.price;
        if (typeof raw !== 'number' || !Number.isFinite(raw)) return invalid('offer price must be a finite number');
        const price = roundCents(raw);
        if (price <= 0) return invalid(`offer price must be positive (got ${raw})`);
        const entry = entryOf(state.turn, actor, message, { type: 'offer', price });
        const isBuyer = actor === 'buyer';
        return ok(
          advance(
            state,
            entry,
            { by: actor, price },
            isBuyer ? [...state.buyerOffers, price] : state.buyerOffers,
            isBuyer ? state.sellerOffers : [...state.sellerOffers, price],
            null,
          ),
        );
      }
      case 'accept':
        if (pendingFromOpponent === null) return invalid('there is no offer from the other side to accept');
        return ok(
          advance(state, entryOf(state.turn, actor, message, action), null, state.buyerOffers, state.sellerOffers, {
            kind: 'deal',
            price: pendingFromOpponent.price,
            turn: state.turn + 1,
            acceptedBy: actor,
          }),
        );
      case 'reject':
        if (pendingFromOpponent === null) return invalid('there is no offer from the other side to reject');
        return ok(advance(state, entryOf(state.turn, actor, message, action), null, state.buyerOffers, state.sellerOffers, null));
      case 'walk_away':
        return ok(
          advance(state, entryOf(state.turn, actor, message, action), state.pending, state.buyerOffers, state.sellerOffers, {
            kind: 'walk_away',
            by: actor,
            turn: state.turn + 1,
          }),
        );
      default:
        return invalid(`unknown action ${JSON.stringify((action as { type?: unknown })?.type ?? action)}`);
    }
  },

  forfeit: (state, actor) =>
    advance(state, { turn: state.turn, actor, forfeited: true }, state.pending, state.buyerOffers, state.sellerOffers, null),

  isTerminal: (state) => state.outcome !== null,

  outcome: (state) => {
    if (state.outcome === null) throw new Error('outcome of an unfinished negotiation');
    return state.outcome;
  },
};
