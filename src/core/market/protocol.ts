/**
 * The market protocol: one seller with a turn budget, a pool of buyers with unit demand. The seller
 * addresses one buyer with one product at one price (and a message); that buyer answers accept,
 * reject or counter. A counter is binding: an offer of that product to that buyer at or below its
 * standing counter must be accepted, and a later counter may not go below it.
 * Rules and measures in words: docs/market-metrics.md.
 */
import type { Protocol, ProtocolError } from '../protocol';
import { err, ok, type Result } from '../result';
import { roundCents } from '../scenario';
import { MAX_MESSAGE_LENGTH, type BuyerMove, type MarketMove, type MarketRole, type Response, type SellerMove } from './moves';
import type { MarketScenario } from './scenario';

/** One past turn as the log shows it. */
export type MarketEntry =
  | { turn: number; kind: 'offer'; buyer: string; product: string; price: number; message: string }
  | { turn: number; kind: 'answer'; buyer: string; product: string; response: Response; message?: string }
  | { turn: number; kind: 'forfeit'; actor: MarketRole; buyer?: string };

export interface Sale {
  buyer: string;
  product: string;
  price: number;
  /** The turn of the buyer's acceptance. */
  turn: number;
}

export interface StandingCounter {
  buyer: string;
  product: string;
  price: number;
}

/** Why a market ended: the seller's budget spent, every unit sold, or every buyer served. */
export const MARKET_ENDS = ['budget_spent', 'sold_out', 'no_buyers'] as const;
export type MarketEnd = (typeof MARKET_ENDS)[number];
export interface MarketOutcome {
  kind: MarketEnd;
  turn: number;
}

/** A product as the seller sees it: its stock is what is left. */
export interface ProductView {
  readonly id: string;
  readonly name: string;
  readonly cost: number;
  readonly listPrice: number;
  readonly stock: number;
}

export interface SellerObservation {
  readonly role: 'seller';
  readonly turn: number;
  readonly budget: number;
  /** Seller turns spent so far, and those left (this one included). */
  readonly turnsUsed: number;
  readonly turnsLeft: number;
  readonly allowBelowCost: boolean;
  readonly products: readonly ProductView[];
  /** Every buyer by id; `active` until it has bought. No buyer's values. */
  readonly buyers: readonly { readonly id: string; readonly active: boolean }[];
  readonly history: readonly MarketEntry[];
  readonly counters: readonly StandingCounter[];
  readonly sales: readonly Sale[];
}

export interface BuyerObservation {
  readonly role: 'buyer';
  readonly turn: number;
  /** The buyer being addressed: the one this answer is for. */
  readonly buyer: string;
  /** Every product with this buyer's own private value for it. */
  readonly products: readonly { readonly id: string; readonly name: string; readonly listPrice: number; readonly value: number }[];
  readonly offer: { readonly product: string; readonly price: number; readonly message: string };
  /** This buyer's value for the product on offer. */
  readonly value: number;
  /** This buyer's standing counter for the product on offer, if any: an offer at or below it must be accepted. */
  readonly standingCounter: number | null;
  /** The turns between the seller and this buyer so far. */
  readonly history: readonly MarketEntry[];
  /** Counters this buyer has made so far. */
  readonly countersMade: number;
}

export type MarketObservation = SellerObservation | BuyerObservation;

/** A list that successive states share (see bilateral/protocol.ts `append`): copied only when a state is applied twice. */
function append<T>(items: T[], n: number, item: T): T[] {
  if (items.length === n) {
    items.push(item);
    return items;
  }
  const copy = items.slice(0, n);
  copy.push(item);
  return copy;
}

/** A market between turns. A value: `apply` returns a new state. */
export class MarketState {
  constructor(
    readonly scenario: MarketScenario,
    readonly turn: number,
    readonly sellerTurns: number,
    /** Units left, by product index. */
    readonly stock: readonly number[],
    /** Product index each buyer bought, or -1 while it is active. */
    readonly bought: readonly number[],
    readonly active: number,
    readonly unitsLeft: number,
    /** The offer awaiting the addressed buyer's answer. */
    readonly pending: { readonly buyer: number; readonly product: number; readonly price: number; readonly message: string } | null,
    readonly counters: readonly { readonly buyer: number; readonly product: number; readonly price: number }[],
    readonly log: MarketEntry[],
    readonly saleLog: Sale[],
    readonly nSales: number,
    readonly outcome: MarketOutcome | null,
  ) {}

  get history(): readonly MarketEntry[] {
    return this.log.length === this.turn ? this.log.slice() : this.log.slice(0, this.turn);
  }
  get sales(): readonly Sale[] {
    return this.saleLog.slice(0, this.nSales);
  }

  counterFor(buyer: number, product: number): number | null {
    for (const c of this.counters) if (c.buyer === buyer && c.product === product) return c.price;
    return null;
  }

  toJSON() {
    const { scenario, turn, sellerTurns, stock, bought, pending, counters, history, sales, outcome } = this;
    return { scenario, turn, sellerTurns, stock, bought, pending, counters, history, sales, outcome };
  }
}

class SellerView implements SellerObservation {
  readonly role = 'seller' as const;
  readonly #state: MarketState;
  constructor(state: MarketState) {
    this.#state = state;
  }
  get turn() {
    return this.#state.turn;
  }
  get budget() {
    return this.#state.scenario.budget;
  }
  get turnsUsed() {
    return this.#state.sellerTurns;
  }
  get turnsLeft() {
    return this.#state.scenario.budget - this.#state.sellerTurns;
  }
  get allowBelowCost() {
    return this.#state.scenario.allowBelowCost;
  }
  get products(): readonly ProductView[] {
    const { scenario, stock } = this.#state;
    return scenario.products.map((p, j) => ({ id: p.id, name: p.name, cost: p.cost, listPrice: p.listPrice, stock: stock[j] as number }));
  }
  get buyers() {
    const { scenario, bought } = this.#state;
    return scenario.buyers.map((b, i) => ({ id: b.id, active: bought[i] === -1 }));
  }
  get history() {
    return this.#state.history;
  }
  get counters(): readonly StandingCounter[] {
    const { scenario, counters } = this.#state;
    return counters.map((c) => ({
      buyer: (scenario.buyers[c.buyer] as { id: string }).id,
      product: (scenario.products[c.product] as { id: string }).id,
      price: c.price,
    }));
  }
  get sales() {
    return this.#state.sales;
  }
  toJSON(): SellerObservation {
    const { role, turn, budget, turnsUsed, turnsLeft, allowBelowCost, products, buyers, history, counters, sales } = this;
    return { role, turn, budget, turnsUsed, turnsLeft, allowBelowCost, products, buyers, history, counters, sales };
  }
}

class BuyerView implements BuyerObservation {
  readonly role = 'buyer' as const;
  readonly #state: MarketState;
  readonly #pending: NonNullable<MarketState['pending']>;
  constructor(state: MarketState, pending: NonNullable<MarketState['pending']>) {
    this.#state = state;
    this.#pending = pending;
  }
  get turn() {
    return this.#state.turn;
  }
  get buyer() {
    return (this.#state.scenario.buyers[this.#pending.buyer] as { id: string }).id;
  }
  get products() {
    const { scenario } = this.#state;
    const values = (scenario.buyers[this.#pending.buyer] as { values: number[] }).values;
    return scenario.products.map((p, j) => ({ id: p.id, name: p.name, listPrice: p.listPrice, value: values[j] as number }));
  }
  get offer() {
    const p = this.#pending;
    return { product: (this.#state.scenario.products[p.product] as { id: string }).id, price: p.price, message: p.message };
  }
  get value() {
    return (this.#state.scenario.buyers[this.#pending.buyer] as { values: number[] }).values[this.#pending.product] as number;
  }
  get standingCounter() {
    return this.#state.counterFor(this.#pending.buyer, this.#pending.product);
  }
  get history() {
    const id = this.buyer;
    return this.#state.history.filter((e) => e.buyer === id);
  }
  get countersMade() {
    const id = this.buyer;
    let n = 0;
    const log = this.#state.log;
    for (let i = 0; i < this.#state.turn; i++) {
      const e = log[i] as MarketEntry;
      if (e.kind === 'answer' && e.buyer === id && e.response.type === 'counter') n++;
    }
    return n;
  }
  toJSON(): BuyerObservation {
    const { role, turn, buyer, products, offer, value, standingCounter, history, countersMade } = this;
    return { role, turn, buyer, products, offer, value, standingCounter, history, countersMade };
  }
}

/** The least price a move may name: one cent. */
export const MIN_PRICE = 0.01;
/** No price may exceed this many times the product's list price. */
export const MAX_LIST_MULTIPLE = 100;

type Step = Result<MarketState, ProtocolError>;
const invalid = (reason: string): Step => err({ kind: 'invalid-move', reason });

/** Checks a price in cents; the rounded price, or why it is refused. */
function checkPrice(raw: unknown, listPrice: number, what: string): Result<number, string> {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return err(`${what} must be a finite number`);
  if (raw < MIN_PRICE) return err(`${what} must be at least $0.01 (got ${raw})`);
  const price = roundCents(raw);
  const ceiling = roundCents(MAX_LIST_MULTIPLE * listPrice);
  if (price > ceiling) return err(`${what} ${raw} is more than ${MAX_LIST_MULTIPLE} times the list price (at most ${ceiling})`);
  return ok(price);
}

function checkMessage(message: unknown, required: boolean): string | null {
  if (message === undefined && !required) return null;
  if (typeof message !== 'string') return required ? 'message must be text (it may be empty)' : 'message must be text';
  if (message.length > MAX_MESSAGE_LENGTH) return `message is ${message.length} characters; the limit is ${MAX_MESSAGE_LENGTH}`;
  return null;
}

/** The ending a state has reached, or null while the market goes on. */
function endOf(turn: number, sellerTurns: number, budget: number, unitsLeft: number, active: number, pending: unknown): MarketOutcome | null {
  if (unitsLeft === 0) return { kind: 'sold_out', turn };
  if (active === 0) return { kind: 'no_buyers', turn };
  if (pending === null && sellerTurns >= budget) return { kind: 'budget_spent', turn };
  return null;
}

function indexOf(items: readonly { id: string }[], id: string): number {
  for (let i = 0; i < items.length; i++) if ((items[i] as { id: string }).id === id) return i;
  return -1;
}

function applySeller(state: MarketState, move: SellerMove): Step {
  if (typeof move !== 'object' || move === null) return invalid('a seller move must be an object with buyer, product, price and message');
  const { buyer, product, price, message } = move;
  if (typeof buyer !== 'string') return invalid('buyer must be a buyer id');
  if (typeof product !== 'string') return invalid('product must be a product id');
  const badMessage = checkMessage(message, true);
  if (badMessage) return invalid(badMessage);
  const { scenario } = state;
  const b = indexOf(scenario.buyers, buyer);
  if (b < 0) return invalid(`unknown buyer ${JSON.stringify(buyer)}; buyers are ${scenario.buyers.map((x) => x.id).join(', ')}`);
  const j = indexOf(scenario.products, product);
  if (j < 0) return invalid(`unknown product ${JSON.stringify(product)}; products are ${scenario.products.map((x) => x.id).join(', ')}`);
  const had = state.bought[b] as number;
  if (had !== -1) return invalid(`buyer ${buyer} has already bought ${(scenario.products[had] as { id: string }).id}`);
  if ((state.stock[j] as number) <= 0) return invalid(`product ${product} is out of stock`);
  const item = scenario.products[j] as MarketScenario['products'][number];
  const checked = checkPrice(price, item.listPrice, 'price');
  if (!checked.ok) return invalid(checked.error);
  if (!scenario.allowBelowCost && checked.value < item.cost)
    return invalid(`price ${checked.value} is below the cost of ${product} (${item.cost}); this market forbids selling at a loss`);
  const text = message as string;
  const entry: MarketEntry = { turn: state.turn, kind: 'offer', buyer, product, price: checked.value, message: text };
  return ok(
    new MarketState(
      scenario,
      state.turn + 1,
      state.sellerTurns + 1,
      state.stock,
      state.bought,
      state.active,
      state.unitsLeft,
      { buyer: b, product: j, price: checked.value, message: text },
      state.counters,
      append(state.log, state.turn, entry),
      state.saleLog,
      state.nSales,
      null,
    ),
  );
}

function applyBuyer(state: MarketState, move: BuyerMove): Step {
  const pending = state.pending as NonNullable<MarketState['pending']>;
  if (typeof move !== 'object' || move === null) return invalid('an answer must be an object with a response');
  const { response, message } = move;
  const badMessage = checkMessage(message, false);
  if (badMessage) return invalid(badMessage);
  if (typeof response !== 'object' || response === null) return invalid('response must be accept, reject or counter');
  const { scenario } = state;
  const buyer = (scenario.buyers[pending.buyer] as { id: string }).id;
  const product = scenario.products[pending.product] as MarketScenario['products'][number];
  const standing = state.counterFor(pending.buyer, pending.product);
  if (standing !== null && pending.price <= standing && response.type !== 'accept')
    return invalid(`you countered ${product.id} at ${standing}; an offer at or below your counter (${pending.price}) must be accepted`);
  const entry: MarketEntry =
    message === undefined
      ? { turn: state.turn, kind: 'answer', buyer, product: product.id, response }
      : { turn: state.turn, kind: 'answer', buyer, product: product.id, response, message };
  const turn = state.turn + 1;
  const log = () => append(state.log, state.turn, entry);
  switch (response.type) {
    case 'accept': {
      const stock = state.stock.slice();
      stock[pending.product] = (stock[pending.product] as number) - 1;
      const bought = state.bought.slice();
      bought[pending.buyer] = pending.product;
      const active = state.active - 1;
      const unitsLeft = state.unitsLeft - 1;
      const sale: Sale = { buyer, product: product.id, price: pending.price, turn: state.turn };
      // A served buyer's counters stand no longer.
      const counters = state.counters.filter((c) => c.buyer !== pending.buyer);
      return ok(
        new MarketState(
          scenario,
          turn,
          state.sellerTurns,
          stock,
          bought,
          active,
          unitsLeft,
          null,
          counters,
          log(),
          append(state.saleLog, state.nSales, sale),
          state.nSales + 1,
          endOf(turn, state.sellerTurns, scenario.budget, unitsLeft, active, null),
        ),
      );
    }
    case 'reject':
      return ok(answered(state, log(), state.counters));
    case 'counter': {
      const checked = checkPrice(response.price, product.listPrice, 'counter price');
      if (!checked.ok) return invalid(checked.error);
      const price = checked.value;
      if (price >= pending.price) return invalid(`a counter must be below the offer (${pending.price}); to pay that, accept`);
      if (standing !== null && price < standing)
        return invalid(`your standing counter for ${product.id} is ${standing}; a new counter may not go below it`);
      const entryPrice: MarketEntry = price === response.price ? entry : { ...entry, response: { type: 'counter', price } };
      const counters = state.counters.filter((c) => c.buyer !== pending.buyer || c.product !== pending.product);
      counters.push({ buyer: pending.buyer, product: pending.product, price });
      return ok(answered(state, append(state.log, state.turn, entryPrice), counters));
    }
    default:
      return invalid(`unknown response ${JSON.stringify((response as { type?: unknown }).type ?? response)}; answer accept, reject or counter`);
  }
}

/** The state after an answer that sells nothing: the offer is off the table. */
function answered(state: MarketState, log: MarketEntry[], counters: MarketState['counters']): MarketState {
  const turn = state.turn + 1;
  return new MarketState(
    state.scenario,
    turn,
    state.sellerTurns,
    state.stock,
    state.bought,
    state.active,
    state.unitsLeft,
    null,
    counters,
    log,
    state.saleLog,
    state.nSales,
    endOf(turn, state.sellerTurns, state.scenario.budget, state.unitsLeft, state.active, null),
  );
}

export function initialMarketState(scenario: MarketScenario): MarketState {
  const stock = scenario.products.map((p) => p.stock);
  const units = stock.reduce((a, b) => a + b, 0);
  const active = scenario.buyers.length;
  return new MarketState(scenario, 0, 0, stock, scenario.buyers.map(() => -1), active, units, null, [], [], [], 0, endOf(0, 0, scenario.budget, units, active, null));
}

export const market: Protocol<MarketScenario, MarketState, MarketRole, MarketObservation, MarketMove, MarketOutcome> = {
  name: 'market',

  initialState: initialMarketState,

  currentActor: (state) => (state.pending === null ? 'seller' : 'buyer'),

  turn: (state) => state.turn,

  observe: (state, role) => {
    if (role === 'seller') return new SellerView(state);
    if (state.pending === null) throw new Error('no buyer is addressed');
    return new BuyerView(state, state.pending);
  },

  apply: (state, actor, move) => {
    if (state.outcome !== null) return invalid('the market is over');
    const expected = state.pending === null ? 'seller' : 'buyer';
    if (actor !== expected) return invalid(`it is the ${expected}'s turn`);
    return actor === 'seller' ? applySeller(state, move as SellerMove) : applyBuyer(state, move as BuyerMove);
  },

  forfeit: (state, actor) => {
    const turn = state.turn + 1;
    const { scenario } = state;
    if (actor === 'seller') {
      // A forfeited seller turn spends the budget like a move, so a seller that cannot move still ends the market.
      const sellerTurns = state.sellerTurns + 1;
      return new MarketState(
        scenario,
        turn,
        sellerTurns,
        state.stock,
        state.bought,
        state.active,
        state.unitsLeft,
        null,
        state.counters,
        append(state.log, state.turn, { turn: state.turn, kind: 'forfeit', actor }),
        state.saleLog,
        state.nSales,
        endOf(turn, sellerTurns, scenario.budget, state.unitsLeft, state.active, null),
      );
    }
    // A buyer that cannot answer has rejected the offer.
    const buyer = (scenario.buyers[(state.pending as NonNullable<MarketState['pending']>).buyer] as { id: string }).id;
    return answered(state, append(state.log, state.turn, { turn: state.turn, kind: 'forfeit', actor, buyer }), state.counters);
  },

  isTerminal: (state) => state.outcome !== null,

  outcome: (state) => {
    if (state.outcome === null) throw new Error('outcome of an unfinished market');
    return state.outcome;
  },
};
