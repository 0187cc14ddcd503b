/**
 * The market protocol: one seller with a turn budget, a pool of buyers with unit demand. The seller
 * addresses one buyer with one product at one price (and a message); that buyer answers accept,
 * reject or counter. A counter is binding: an offer of that product to that buyer at or below its
 * standing counter must be accepted, and a later counter may not go below it.
 * Rules and measures in words: docs/market-metrics.md.
 */
import type { Protocol, ProtocolError } from '../../engine/protocol';
import { MOVE_REFUSALS, refusals, type PriceField } from '../../engine/refusals';
import { ok, type Result } from '../../engine/result';
import { MAX_MESSAGE_LENGTH } from '../../engine/message';
import { roundCents } from '../../engine/money';
import { append } from '../../engine/shared-list';
import type { BuyerMove, MarketMove, MarketRole, SellerMove } from './moves';
import type { MarketScenario } from './scenario';
import { BuyerView, MarketState, SellerView, type MarketEntry, type MarketObservation, type MarketOutcome, type Sale } from './state';

export * from './state';

/** The least price a move may name: one cent. */
export const MIN_PRICE = 0.01;
/** No price may exceed this many times the product's list price. */
export const MAX_LIST_MULTIPLE = 100;

type Step = Result<MarketState, ProtocolError>;

/** Why a market move is refused, by code; the English is the `invalid` event's reason. */
export const MARKET_REFUSALS = {
  ...MOVE_REFUSALS,
  'market-over': () => 'the market is over',
  'not-your-turn': (d: { expected: MarketRole }) => `it is the ${d.expected}'s turn`,
  'seller-move-not-object': () => 'a seller move must be an object with buyer, product, price and message',
  'buyer-not-id': () => 'buyer must be a buyer id',
  'product-not-id': () => 'product must be a product id',
  'pitch-not-text': () => 'message must be text (it may be empty)',
  'unknown-buyer': (d: { buyer: string; buyers: readonly string[] }) => `unknown buyer ${JSON.stringify(d.buyer)}; buyers are ${d.buyers.join(', ')}`,
  'unknown-product': (d: { product: string; products: readonly string[] }) =>
    `unknown product ${JSON.stringify(d.product)}; products are ${d.products.join(', ')}`,
  'buyer-served': (d: { buyer: string; bought: string }) => `buyer ${d.buyer} has already bought ${d.bought}`,
  'out-of-stock': (d: { product: string }) => `product ${d.product} is out of stock`,
  'below-cost': (d: { price: number; product: string; cost: number }) =>
    `price ${d.price} is below the cost of ${d.product} (${d.cost}); this market forbids selling at a loss`,
  'answer-not-object': () => 'an answer must be an object with a response',
  'response-not-object': () => 'response must be accept, reject or counter',
  'must-accept': (d: { product: string; counter: number; price: number }) =>
    `you countered ${d.product} at ${d.counter}; an offer at or below your counter (${d.price}) must be accepted`,
  'counter-not-below-offer': (d: { offer: number }) => `a counter must be below the offer (${d.offer}); to pay that, accept`,
  'counter-below-standing': (d: { product: string; counter: number }) =>
    `your standing counter for ${d.product} is ${d.counter}; a new counter may not go below it`,
  /** `type`: the response's type as given, or the response itself when it has none. */
  'unknown-response': (d: { type: unknown }) => `unknown response ${JSON.stringify(d.type)}; answer accept, reject or counter`,
} as const;

const refuse = refusals(MARKET_REFUSALS);

/** Checks a price in cents; the rounded price, or why it is refused. */
function checkPrice(raw: unknown, listPrice: number, field: PriceField): Result<number, ProtocolError> {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return refuse('price-not-finite', { field });
  if (raw < MIN_PRICE) return refuse('price-below-minimum', { field, price: raw, min: MIN_PRICE });
  const price = roundCents(raw);
  const ceiling = roundCents(MAX_LIST_MULTIPLE * listPrice);
  if (price > ceiling) return refuse('price-above-ceiling', { field, price: raw, multiple: MAX_LIST_MULTIPLE, ceiling });
  return ok(price);
}

function checkMessage(message: unknown, required: boolean): Step | null {
  if (message === undefined && !required) return null;
  if (typeof message !== 'string') return required ? refuse('pitch-not-text') : refuse('message-not-text');
  if (message.length > MAX_MESSAGE_LENGTH) return refuse('message-too-long', { length: message.length, max: MAX_MESSAGE_LENGTH });
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
  if (typeof move !== 'object' || move === null) return refuse('seller-move-not-object');
  const { buyer, product, price, message } = move;
  if (typeof buyer !== 'string') return refuse('buyer-not-id');
  if (typeof product !== 'string') return refuse('product-not-id');
  const badMessage = checkMessage(message, true);
  if (badMessage) return badMessage;
  const { scenario } = state;
  const b = indexOf(scenario.buyers, buyer);
  if (b < 0) return refuse('unknown-buyer', { buyer, buyers: scenario.buyers.map((x) => x.id) });
  const j = indexOf(scenario.products, product);
  if (j < 0) return refuse('unknown-product', { product, products: scenario.products.map((x) => x.id) });
  const had = state.bought[b] as number;
  if (had !== -1) return refuse('buyer-served', { buyer, bought: (scenario.products[had] as { id: string }).id });
  if ((state.stock[j] as number) <= 0) return refuse('out-of-stock', { product });
  const item = scenario.products[j] as MarketScenario['products'][number];
  const checked = checkPrice(price, item.listPrice, 'price');
  if (!checked.ok) return checked;
  if (!scenario.allowBelowCost && checked.value < item.cost) return refuse('below-cost', { price: checked.value, product, cost: item.cost });
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
  if (typeof move !== 'object' || move === null) return refuse('answer-not-object');
  const { response, message } = move;
  const badMessage = checkMessage(message, false);
  if (badMessage) return badMessage;
  if (typeof response !== 'object' || response === null) return refuse('response-not-object');
  const { scenario } = state;
  const buyer = (scenario.buyers[pending.buyer] as { id: string }).id;
  const product = scenario.products[pending.product] as MarketScenario['products'][number];
  const standing = state.counterFor(pending.buyer, pending.product);
  if (standing !== null && pending.price <= standing && response.type !== 'accept')
    return refuse('must-accept', { product: product.id, counter: standing, price: pending.price });
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
      if (!checked.ok) return checked;
      const price = checked.value;
      if (price >= pending.price) return refuse('counter-not-below-offer', { offer: pending.price });
      if (standing !== null && price < standing) return refuse('counter-below-standing', { product: product.id, counter: standing });
      const entryPrice: MarketEntry = price === response.price ? entry : { ...entry, response: { type: 'counter', price } };
      const counters = state.counters.filter((c) => c.buyer !== pending.buyer || c.product !== pending.product);
      counters.push({ buyer: pending.buyer, product: pending.product, price });
      return ok(answered(state, append(state.log, state.turn, entryPrice), counters));
    }
    default:
      return refuse('unknown-response', { type: (response as { type?: unknown }).type ?? response });
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
  return new MarketState(
    scenario,
    0,
    0,
    stock,
    scenario.buyers.map(() => -1),
    active,
    units,
    null,
    [],
    [],
    [],
    0,
    endOf(0, 0, scenario.budget, units, active, null),
  );
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
    if (state.outcome !== null) return refuse('market-over');
    const expected = state.pending === null ? 'seller' : 'buyer';
    if (actor !== expected) return refuse('not-your-turn', { expected });
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
