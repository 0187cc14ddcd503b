import type { Protocol } from '../../engine/protocol';
import { MOVE_REFUSALS, refusals } from '../../engine/refusals';
import { knownTurnRange, opponentOf, priceRangeOf, type PriceRange, type Role, type Scenario } from './scenario';
import { MAX_MESSAGE_LENGTH } from '../../engine/message';
import { roundCents } from '../../engine/money';
import { append, prefix } from '../../engine/shared-list';
import type { Action, Move } from './moves';

/** What both sides can see of one past turn. */
export type TranscriptEntry = { turn: number; actor: Role; message?: string; action?: Action } | { turn: number; actor: Role; forfeited: true };

/** A turn that made an offer: while it stands, the offer is its action. */
type OfferEntry = { turn: number; actor: Role; message?: string; action: { type: 'offer'; price: number } };

export type BilateralOutcome =
  { kind: 'deal'; price: number; turn: number; acceptedBy: Role } | { kind: 'walk_away'; by: Role; turn: number } | { kind: 'turn_limit'; turn: number };

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
  /** The price range both sides know (the scenario's, or its preset's): where scripted strategies open. */
  readonly priceRange: PriceRange;
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
  /** One past turn's entry (as `transcript[turn]`, without copying the transcript); undefined for a turn not yet taken. */
  pastTurn(turn: number): TranscriptEntry | undefined;
}

/** How many turns `role` gets in a negotiation of `turnLimit` turns that `firstMover` opens. */
export const turnsFor = (role: Role, firstMover: Role, turnLimit: number): number =>
  role === firstMover ? Math.ceil(turnLimit / 2) : Math.floor(turnLimit / 2);

/** What both sides know of the deadline from the start, worked out once per negotiation. */
interface KnownDeadline {
  /** The range the turn limit lies in. */
  readonly range: { readonly min: number; readonly max: number };
  /** The exact limit when it is fixed, else `null`. */
  readonly turnLimit: number | null;
  /** Own turns each side is sure to get (by the earliest possible limit). */
  readonly buyerTurns: number;
  readonly sellerTurns: number;
  /** The public price range. */
  readonly priceRange: PriceRange;
  /** The highest price an offer may name: MAX_OFFER_LIST_MULTIPLE list prices, in cents. */
  readonly ceiling: number;
}

function knownDeadline(s: Scenario): KnownDeadline {
  const range = knownTurnRange(s);
  return {
    range,
    turnLimit: s.turnRange ? null : s.turnLimit,
    buyerTurns: turnsFor('buyer', s.firstMover, range.min),
    sellerTurns: turnsFor('seller', s.firstMover, range.min),
    priceRange: priceRangeOf(s),
    ceiling: roundCents(MAX_OFFER_LIST_MULTIPLE * s.item.listPrice),
  };
}

/**
 * A negotiation between turns. Values: `apply` returns a new state and never changes this one.
 * The log is shared with the states before and after (see `append`) and copied out on reading;
 * each side's offers are read out of it (only tit-for-tat and the SFT export ask for them).
 */
export class BilateralState {
  /**
   * A state is also the successful `Result` that `apply` returns for it (`{ ok: true, value }`):
   * one object less on the engine's hottest path, every turn of every negotiation.
   */
  readonly ok = true as const;
  get value(): this {
    return this;
  }

  constructor(
    readonly scenario: Scenario,
    /** Turns taken so far (valid moves and forfeits). */
    readonly turn: number,
    /** The turn that made the one standing offer on the table, if any: the other side may accept it. */
    readonly standing: OfferEntry | null,
    readonly log: TranscriptEntry[],
    readonly outcome: BilateralOutcome | null,
    /** What both sides know of the deadline (worked out once per negotiation). */
    readonly known: KnownDeadline,
  ) {}

  get transcript(): readonly TranscriptEntry[] {
    return prefix(this.log, this.turn);
  }
  get buyerOffers(): readonly number[] {
    return this.offersBy('buyer');
  }
  get sellerOffers(): readonly number[] {
    return this.offersBy('seller');
  }

  /** The prices `role` has offered so far, in order. */
  offersBy(role: Role): number[] {
    const out: number[] = [];
    const log = this.log;
    for (let i = 0; i < this.turn; i++) {
      const e = log[i] as TranscriptEntry;
      if (e.actor === role && 'action' in e && e.action?.type === 'offer') out.push(e.action.price);
    }
    return out;
  }

  /** The standing offer: who made it and its price. */
  get pending(): { readonly by: Role; readonly price: number } | null {
    const e = this.standing;
    return e === null ? null : { by: e.actor, price: e.action.price };
  }

  /** The state as a plain value: what it holds, not how its lists are shared. */
  toJSON() {
    const { scenario, turn, pending, buyerOffers, sellerOffers, transcript, outcome } = this;
    return { scenario, turn, pending, buyerOffers, sellerOffers, transcript, outcome };
  }
}

/**
 * One side's view of a state, read through to the state when asked: making one costs two fields,
 * and the public lists are copied out when (and each time) the agent reads them. The state is held in a private
 * field (`#state`), which no code outside this class can reach, so nothing private to the other
 * side (its reservation) is reachable from the observation.
 */
class Observation implements BilateralObservation {
  readonly #state: BilateralState;

  constructor(
    state: BilateralState,
    readonly role: Role,
  ) {
    this.#state = state;
  }

  get item(): Scenario['item'] {
    return this.#state.scenario.item;
  }
  get reservation(): number {
    const s = this.#state.scenario;
    return this.role === 'buyer' ? s.buyerValue : s.sellerCost;
  }
  get turn(): number {
    return this.#state.turn;
  }
  get turnLimit(): number | null {
    return this.#state.known.turnLimit;
  }
  get turnRange(): { readonly min: number; readonly max: number } {
    return this.#state.known.range;
  }
  get firstMover(): Role {
    return this.#state.scenario.firstMover;
  }
  get priceRange(): PriceRange {
    return this.#state.known.priceRange;
  }
  get ownTurn(): number {
    const turn = this.#state.turn;
    return this.role === this.#state.scenario.firstMover ? Math.ceil(turn / 2) : Math.floor(turn / 2);
  }
  get ownTurns(): number {
    const known = this.#state.known;
    return this.role === 'buyer' ? known.buyerTurns : known.sellerTurns;
  }
  get pending(): number | null {
    const e = this.#state.standing;
    return e !== null && e.actor !== this.role ? e.action.price : null;
  }
  get ownStanding(): number | null {
    const e = this.#state.standing;
    return e !== null && e.actor === this.role ? e.action.price : null;
  }
  get transcript(): readonly TranscriptEntry[] {
    return this.#state.transcript;
  }
  pastTurn(turn: number): TranscriptEntry | undefined {
    const state = this.#state;
    return turn >= 0 && turn < state.turn ? state.log[turn] : undefined;
  }
  get ownOffers(): readonly number[] {
    return this.role === 'buyer' ? this.#state.buyerOffers : this.#state.sellerOffers;
  }
  get opponentOffers(): readonly number[] {
    return this.role === 'buyer' ? this.#state.sellerOffers : this.#state.buyerOffers;
  }

  /** Plain data, for JSON and for comparing observations in tests. */
  toJSON(): Omit<BilateralObservation, 'pastTurn'> {
    const { role, item, reservation, turn, turnLimit, turnRange, firstMover, priceRange, ownTurn, ownTurns, pending, ownStanding } = this;
    const { ownOffers, opponentOffers, transcript } = this;
    return {
      role,
      item,
      reservation,
      turn,
      turnLimit,
      turnRange,
      firstMover,
      priceRange,
      ownTurn,
      ownTurns,
      pending,
      ownStanding,
      ownOffers,
      opponentOffers,
      transcript,
    };
  }
}

/** The least price an offer may name: one cent. */
export const MIN_OFFER_PRICE = 0.01;
/** No offer may exceed this many times the item's list price: past it a price is a typo or an attack, not a bid. */
export const MAX_OFFER_LIST_MULTIPLE = 100;

/** Why a bilateral move is refused, by code; the English is the `invalid` event's reason. */
export const BILATERAL_REFUSALS = {
  ...MOVE_REFUSALS,
  'negotiation-over': () => 'the negotiation is over',
  'move-not-object': () => 'a move must be an object',
  'empty-move': () => 'a move needs a message or an action',
  'nothing-to-accept': () => 'there is no offer from the other side to accept',
  'nothing-to-reject': () => 'there is no offer from the other side to reject',
  /** `type`: the action's type as given, or the action itself when it has none. */
  'unknown-action': (d: { type: unknown }) => `unknown action ${JSON.stringify(d.type)}`,
} as const;

const refuse = refusals(BILATERAL_REFUSALS);

/** The next state after one turn (a move or a forfeit). */
function advance(state: BilateralState, entry: TranscriptEntry, standing: OfferEntry | null, outcome: BilateralOutcome | null): BilateralState {
  const turn = state.turn + 1;
  return new BilateralState(
    state.scenario,
    turn,
    standing,
    append(state.log, state.turn, entry),
    outcome === null && turn >= state.scenario.turnLimit ? { kind: 'turn_limit', turn } : outcome,
    state.known,
  );
}

function entryOf(turn: number, actor: Role, message: string | undefined, action: Action): TranscriptEntry {
  return message === undefined ? { turn, actor, action } : { turn, actor, message, action };
}

export const bilateral: Protocol<Scenario, BilateralState, Role, BilateralObservation, Move, BilateralOutcome> = {
  name: 'bilateral',

  initialState: (scenario) => new BilateralState(scenario, 0, null, [], null, knownDeadline(scenario)),

  currentActor: (state) => (state.turn % 2 === 0 ? state.scenario.firstMover : opponentOf(state.scenario.firstMover)),

  turn: (state) => state.turn,

  observe: (state, role) => new Observation(state, role),

  apply: (state, actor, move) => {
    if (state.outcome !== null) return refuse('negotiation-over');
    if (typeof move !== 'object' || move === null) return refuse('move-not-object');
    const { message, action } = move;
    if (message !== undefined) {
      if (typeof message !== 'string') return refuse('message-not-text');
      if (message.length > MAX_MESSAGE_LENGTH) return refuse('message-too-long', { length: message.length, max: MAX_MESSAGE_LENGTH });
    }
    if (action === undefined) {
      if (message === undefined) return refuse('empty-move');
      const said: TranscriptEntry = { turn: state.turn, actor, message };
      return advance(state, said, state.standing, null);
    }
    const standing = state.standing;
    const pendingFromOpponent = standing !== null && standing.actor !== actor ? standing.action.price : null;
    switch (action?.type) {
      case 'offer': {
        const raw = action.price;
        if (typeof raw !== 'number' || !Number.isFinite(raw)) return refuse('price-not-finite', { field: 'offer price' });
        if (raw > 0 && raw < MIN_OFFER_PRICE) return refuse('price-below-minimum', { field: 'offer price', price: raw, min: MIN_OFFER_PRICE });
        const price = roundCents(raw);
        if (price <= 0) return refuse('price-not-positive', { field: 'offer price', price: raw });
        const ceiling = state.known.ceiling;
        if (price > ceiling) return refuse('price-above-ceiling', { field: 'offer price', price: raw, multiple: MAX_OFFER_LIST_MULTIPLE, ceiling });
        // The move's own action serves the transcript when its price is already in cents.
        const offered = price === raw ? action : { type: 'offer' as const, price };
        const entry: OfferEntry = message === undefined ? { turn: state.turn, actor, action: offered } : { turn: state.turn, actor, message, action: offered };
        return advance(state, entry, entry, null);
      }
      case 'accept':
        if (pendingFromOpponent === null) return refuse('nothing-to-accept');
        return advance(state, entryOf(state.turn, actor, message, action), null, {
          kind: 'deal',
          price: pendingFromOpponent,
          turn: state.turn + 1,
          acceptedBy: actor,
        });
      case 'reject':
        if (pendingFromOpponent === null) return refuse('nothing-to-reject');
        return advance(state, entryOf(state.turn, actor, message, action), null, null);
      case 'walk_away':
        return advance(state, entryOf(state.turn, actor, message, action), standing, {
          kind: 'walk_away',
          by: actor,
          turn: state.turn + 1,
        });
      default:
        return refuse('unknown-action', { type: (action as { type?: unknown })?.type ?? action });
    }
  },

  forfeit: (state, actor) => advance(state, { turn: state.turn, actor, forfeited: true }, state.standing, null),

  isTerminal: (state) => state.outcome !== null,

  outcome: (state) => {
    if (state.outcome === null) throw new Error('outcome of an unfinished negotiation');
    return state.outcome;
  },
};
