/**
 * The market protocol: one seller with a turn budget, a pool of buyers with unit demand. The seller
 * addresses one buyer with one product at one price (and a message); that buyer answers accept,
 * reject or counter. A counter is binding: an offer of that product to that buyer at or below its
 * standing counter must be accepted, and a later counter may not go below it.
 * Rules and measures in words: docs/market-metrics.md.
 */
import type { Protocol, ProtocolError } from '../protocol';
import { err, ok, type Result } from '../result';
import { messageTooLong } from '../message';
import { roundCents } from '../money';
import { append } from '../shared-list';
import type { BuyerMove, MarketMove, MarketRole, SellerMove } from './moves';
import type { MarketScenario } from './scenario';
import { BuyerView, MarketState, SellerView, type MarketEntry, type MarketObservation, type MarketOutcome, type Sale } from './state';

export * from './state';

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
  return messageTooLong(message);
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
