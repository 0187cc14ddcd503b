/**
 * The closed forms the Learn page draws beside real runs (DESIGN.md, "Theory figures"): how a zone
 * of agreement is split (Nash, with bargaining power), alternating offers (Rubinstein, infinite and
 * finite horizon) and the Myerson–Satterthwaite bound on the uniform unit square. Pure arithmetic.
 */
import { z } from 'zod';
import type { Role } from './scenario';

/** A share of the surplus or a discount factor: a number in [0, 1]. */
export const UnitSchema = z.number().min(0).max(1);

/** The Nash bargaining price of the zone [c, v]: the midpoint, each side gaining (v − c)/2. */
export const nashPrice = (buyerValue: number, sellerCost: number): number => (buyerValue + sellerCost) / 2;

/**
 * The generalized Nash price with seller bargaining power α ∈ [0, 1]: c + α(v − c), the seller's
 * utility raised to α times the buyer's to 1 − α maximised over the zone. α = ½ is `nashPrice`.
 */
export function powerPrice(buyerValue: number, sellerCost: number, sellerPower: number): number {
  UnitSchema.parse(sellerPower);
  return sellerCost + sellerPower * (buyerValue - sellerCost);
}

/**
 * Rubinstein's alternating offers, infinite horizon: the first proposer's share of the surplus,
 * (1 − δ₂)/(1 − δ₁δ₂), with δ₁ its own discount factor and δ₂ the responder's. Both must be below
 * 1 together (with no discounting at all the infinite game has no unique split): null then.
 */
export function rubinsteinShare(firstDiscount: number, secondDiscount: number): number | null {
  UnitSchema.parse(firstDiscount);
  UnitSchema.parse(secondDiscount);
  const denominator = 1 - firstDiscount * secondDiscount;
  return denominator === 0 ? null : (1 - secondDiscount) / denominator;
}

/**
 * The finite game of `offers` alternating offers (the first proposer makes offers 1, 3, 5, …; a
 * rejected last offer ends it with nothing), solved backward: whoever proposes with k offers left
 * takes 1 − δ × (what the responder would take proposing with k − 1 left), δ the responder's
 * discount; the last proposer takes everything. Returns the first proposer's share.
 */
export function finiteHorizonShare(offers: number, firstDiscount: number, secondDiscount: number): number {
  z.int().min(1).parse(offers);
  UnitSchema.parse(firstDiscount);
  UnitSchema.parse(secondDiscount);
  let proposerShare = 1; // one offer left: an ultimatum
  for (let left = 2; left <= offers; left++) {
    // With `left` offers left the first proposer proposes when left and `offers` have the same parity.
    const responderDiscount = (offers - left) % 2 === 0 ? secondDiscount : firstDiscount;
    proposerShare = 1 - responderDiscount * proposerShare;
  }
  return proposerShare;
}

/** The common-discount closed form of `finiteHorizonShare`: (1 − (−δ)^T)/(1 + δ). */
export const finiteHorizonShareCommon = (offers: number, discount: number): number => (1 - (-discount) ** offers) / (1 + discount);

/** Who makes the last offer of `offers` alternating ones: the first proposer when the count is odd. */
export const lastWord = (offers: number, firstMover: Role): Role => (offers % 2 === 1 ? firstMover : firstMover === 'buyer' ? 'seller' : 'buyer');

/** A split of the surplus as the seller's share, from the first proposer's share. */
export const sellerShareOf = (firstProposerShare: number, firstMover: Role): number => (firstMover === 'seller' ? firstProposerShare : 1 - firstProposerShare);

// ---- Myerson–Satterthwaite on the unit square: v and c independent and uniform on [0, 1] --------

/**
 * Expected gains E[(v − c)·1{v − c ≥ gap}] when trade happens exactly when the value exceeds the
 * cost by at least `gap` ∈ [0, 1]: ∫_gap^1 d(1 − d) dd = 1/6 − gap²/2 + gap³/3 (v − c has density
 * 1 − d on [0, 1]).
 */
export function uniformGainsAbove(gap: number): number {
  UnitSchema.parse(gap);
  return 1 / 6 - gap ** 2 / 2 + gap ** 3 / 3;
}

/** Probability that v − c ≥ gap on the unit square: (1 − gap)²/2. */
export function uniformTradeProbability(gap: number): number {
  UnitSchema.parse(gap);
  return (1 - gap) ** 2 / 2;
}

/** The gap below which the best mechanism never trades: a quarter of the range. */
export const MS_TRADE_GAP = 1 / 4;

/** First-best expected gains on the unit square, E[(v − c)⁺] = 1/6: trade whenever v > c. */
export const firstBestGains = (): number => uniformGainsAbove(0);

/**
 * The gains of the best incentive-compatible, individually rational, budget-balanced mechanism
 * (Myerson and Satterthwaite 1983): it trades only when v − c ≥ 1/4, realising 9/64.
 */
export const secondBestGains = (): number => uniformGainsAbove(MS_TRADE_GAP);

/** The share of first-best gains the best mechanism realises: (9/64)/(1/6) = 27/32. */
export const secondBestEfficiency = (): number => secondBestGains() / firstBestGains();

/**
 * The linear equilibrium of the split-the-difference double auction, which attains the bound:
 * the buyer bids 2v/3 + 1/12, the seller asks 2c/3 + 1/4, and they trade at the midpoint when the
 * bid is at least the ask, that is when v − c ≥ 1/4. Values and costs as fractions of the range.
 */
export function doubleAuction(value: number, cost: number): { bid: number; ask: number; price: number | null } {
  const bid = (2 * value) / 3 + 1 / 12;
  const ask = (2 * cost) / 3 + 1 / 4;
  return { bid, ask, price: bid >= ask ? (bid + ask) / 2 : null };
}

/**
 * Gains from trade realised over a set of scenarios, each in units of its own range (list price),
 * against the first best (trade exactly when v > c) and the best mechanism (trade when
 * v − c ≥ range/4): the sample counterparts of 1/6 and 9/64. A deal without gains from trade
 * counts its negative gains.
 */
export interface GainsTally {
  scenarios: number;
  /** Σ (v − c)/range over the deals made. */
  realised: number;
  /** Σ (v − c)⁺/range: what trading whenever v > c would realise. */
  firstBest: number;
  /** Σ (v − c)/range over the scenarios with v − c ≥ range/4. */
  secondBest: number;
}

export const emptyGains = (): GainsTally => ({ scenarios: 0, realised: 0, firstBest: 0, secondBest: 0 });

/** Adds one negotiation: its value and cost, its range (the list price), and whether it closed. */
export function addGains(tally: GainsTally, buyerValue: number, sellerCost: number, range: number, deal: boolean): void {
  const gains = (buyerValue - sellerCost) / range;
  tally.scenarios++;
  if (deal) tally.realised += gains;
  if (gains > 0) tally.firstBest += gains;
  if (gains >= MS_TRADE_GAP) tally.secondBest += gains;
}

/** The share of first-best gains realised, or null with none available. */
export const realisedShare = (t: GainsTally): number | null => (t.firstBest > 0 ? t.realised / t.firstBest : null);
