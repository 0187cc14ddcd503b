/**
 * A market between turns, and what each seat may see of it. States are values; the log and the
 * sales are shared between successive states and copied out on reading.
 * Rules: protocol.ts; measures: docs/market-metrics.md.
 */
import { prefix } from '../../engine/shared-list';
import type { MarketRole, Response } from './moves';
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
    return prefix(this.log, this.turn);
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

export class SellerView implements SellerObservation {
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

export class BuyerView implements BuyerObservation {
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
