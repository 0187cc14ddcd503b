// The debrief after a game the user played in person: what they could not see, how their result
// compares with an even split and with each scripted strategy in their seat, and what to try next.
import type { BilateralEvent, OutcomeKind } from '../games/bilateral/events';
import { computeMetrics } from '../games/bilateral/metrics';
import { opponentOf, type Role, type Scenario } from '../games/bilateral/scenario';
import { roundCents } from '../engine/money';
import { STRATEGIES } from '../games/bilateral/strategies';
import { parseAgentSpec } from '../games/bilateral/specs';
import { oracleDeal } from '../games/bilateral/oracle-agents';
import { oracleShare } from '../games/bilateral/oracle';
import { money, pct } from './components/format';

/** The strategies a debrief plays in the user's seat: every deterministic one, with its defaults. */
export const DEBRIEF_STRATEGIES: readonly string[] = STRATEGIES.filter((s) => s.deterministic).map((s) => s.name);

/** One seat's result in one negotiation. */
export interface SeatResult {
  outcome: OutcomeKind;
  price: number | null;
  /** Own utility in dollars: v − p for the buyer, p − c for the seller, 0 without a deal. */
  utility: number;
  /** Own share of v − c, on a deal with gains from trade. */
  share: number | null;
  irViolation: boolean;
}

export interface StrategyResult extends SeatResult {
  strategy: string;
  /** The strategy's utility minus the user's, in dollars (positive: it did better). */
  vsYou: number;
}

export type Tone = 'good' | 'neutral' | 'bad';

export interface Debrief {
  role: Role;
  yourValue: number;
  /** The other side's private value (value or cost), hidden during the game. */
  opponentValue: number;
  /** The zone of agreement [c, v], or null when there are no gains from trade. */
  zone: { low: number; high: number; width: number } | null;
  you: SeatResult;
  opponent: SeatResult;
  /** The even split: the price halfway through the zone and half the surplus to each side. */
  evenSplit: { price: number; utility: number } | null;
  /** Your utility minus the even split's, in dollars. */
  vsEven: number | null;
  /** Each scripted strategy in your seat, in the order played; null until they have played. */
  strategies: StrategyResult[] | null;
  /**
   * The oracle reference: the best deal your seat could have made against this opponent's exact
   * policy (a deterministic scripted one; null against a model or random), and how far above yours.
   */
  oracle: { price: number | null; utility: number; turn: number | null; how: 'accept' | 'offer' | null; share: number | null; vsYou: number } | null;
  /** Strategies that got more than you (by at least a cent). */
  beatenBy: StrategyResult[];
  /** Sides whose deal left them below zero. */
  irBroken: Role[];
  headline: string;
  /** Never 'good' when anyone broke individual rationality. */
  tone: Tone;
  advice: string;
}

/** Outcomes a debrief speaks about: the game ran to an end of the protocol's own. */
export const debriefable = (kind: OutcomeKind): boolean => kind === 'deal' || kind === 'walk_away' || kind === 'turn_limit';

const EPSILON = 0.005;

function seatResult(scenario: Scenario, events: readonly BilateralEvent[], role: Role): SeatResult {
  const metrics = computeMetrics(scenario, events as BilateralEvent[]);
  const side = metrics[role];
  return { outcome: metrics.outcome, price: metrics.price, utility: side.utility, share: side.share, irViolation: side.irViolation };
}

/** How each strategy plays, in a few words, for the advice. */
const HOW: Record<string, string> = {
  boulware: 'open far from your value and hold out, conceding only near the deadline',
  linear: 'open far from your value and concede in even steps',
  conceder: 'concede early and settle while the other side is still willing',
  'tit-for-tat': 'concede only as much as the other side just conceded',
  hardliner: 'name one firm price and wait for the other side to come to it',
  accommodator: 'concede quickly and take the first acceptable offer',
  haggler: 'give up the same few dollars every round, whatever the price',
};

const nameOf = (spec: string): string => {
  const parsed = parseAgentSpec(spec);
  return parsed.ok ? parsed.value.name : spec;
};

function advise(d: Omit<Debrief, 'advice' | 'headline' | 'tone'>, scenario: Scenario): string {
  const { role, you, zone, beatenBy, strategies } = d;
  if (you.irViolation)
    return `Never agree to a price beyond your own ${role === 'buyer' ? 'value' : 'cost'} of ${money(d.yourValue)}: walking away leaves you at $0, which beats any loss.`;
  if (!zone)
    return you.outcome === 'deal'
      ? 'There were no gains from trade here, so any deal leaves someone below zero: when the offers never cross your own value, walk away.'
      : 'Not trading was right, as there were no gains from trade; try a scenario with a zone of agreement and see how much of it you can claim.';
  if (you.outcome !== 'deal') {
    const why = you.outcome === 'walk_away' ? 'before anyone walks away' : 'before the deadline';
    return `Any price from ${money(zone.low)} to ${money(zone.high)} beat no deal for both of you: next time move into that zone ${why}, since no deal leaves you both at $0.`;
  }
  const best = beatenBy.reduce<StrategyResult | null>((top, s) => (top === null || s.utility > top.utility ? s : top), null);
  if (best) {
    const how = HOW[nameOf(best.strategy)];
    return `${best.strategy} got ${money(best.vsYou)} more than you in your seat${how ? `: try its way, ${how}` : ''}.`;
  }
  if (strategies === null)
    return (you.share ?? 0) < 0.5
      ? `You took less than half of the ${money(zone.width)} to share: open further from your own value and concede in smaller steps.`
      : `You took at least half of the surplus: try the other seat, or a tougher opponent, on the same ${scenario.item.name}.`;
  return (you.share ?? 0) < 0.5
    ? 'No scripted strategy did better against this opponent, so it is a hard one: try the other seat, or another opponent, to see what moves it.'
    : 'You matched or beat every scripted strategy in your seat: try the other seat, or a tougher opponent such as hardliner.';
}

/**
 * Everything the debrief says, from the scenario, the user's seat, the game's events and (once
 * played) each strategy's negotiation in that seat against the same opponent.
 */
export function computeDebrief(
  scenario: Scenario,
  role: Role,
  events: readonly BilateralEvent[],
  played: readonly { strategy: string; events: readonly BilateralEvent[] }[] | null,
  /** The opponent's spec, for the oracle reference. */
  opponentSpec?: string,
): Debrief {
  const other = opponentOf(role);
  const { buyerValue: v, sellerCost: c } = scenario;
  const you = seatResult(scenario, events, role);
  const opponent = seatResult(scenario, events, other);
  const zone = v > c ? { low: c, high: v, width: roundCents(v - c) } : null;
  const evenSplit = zone ? { price: roundCents((v + c) / 2), utility: (v - c) / 2 } : null;
  const strategies =
    played?.map(({ strategy, events: log }) => {
      const result = seatResult(scenario, log, role);
      return { strategy, ...result, vsYou: result.utility - you.utility };
    }) ?? null;
  const irBroken = (['buyer', 'seller'] as const).filter((r) => (r === role ? you : opponent).irViolation);
  const best = opponentSpec === undefined ? null : oracleDeal(scenario, role, opponentSpec);
  const oracle = best && { ...best, share: oracleShare(scenario, best), vsYou: best.utility - Math.max(0, you.utility) };
  const base = {
    role,
    yourValue: role === 'buyer' ? v : c,
    opponentValue: role === 'buyer' ? c : v,
    zone,
    you,
    opponent,
    evenSplit,
    vsEven: evenSplit ? you.utility - evenSplit.utility : null,
    strategies,
    oracle,
    beatenBy: (strategies ?? []).filter((s) => s.vsYou >= EPSILON),
    irBroken,
  };
  return { ...base, ...verdict(base), advice: advise(base, scenario) };
}

function verdict(d: Omit<Debrief, 'advice' | 'headline' | 'tone'>): { headline: string; tone: Tone } {
  const { you, opponent, zone, role } = d;
  if (you.irViolation) return { headline: `You lost ${money(-you.utility)}: the deal broke individual rationality for you.`, tone: 'bad' };
  if (opponent.irViolation)
    return { headline: `The deal broke individual rationality: the ${opponentOf(role)} lost ${money(-opponent.utility)}.`, tone: 'bad' };
  if (you.outcome === 'deal' && zone) {
    const share = you.share ?? 0;
    return {
      headline: `Deal: you got ${money(you.utility)}, ${pct(share, 1)} of the ${money(zone.width)} to share.`,
      tone: share >= 0.5 - 1e-9 ? 'good' : 'neutral',
    };
  }
  if (you.outcome === 'deal') return { headline: `Deal at ${money(you.price ?? 0)}, with no gains from trade to share.`, tone: 'neutral' };
  if (zone) return { headline: `No deal, though there was ${money(zone.width)} to share.`, tone: 'bad' };
  return { headline: 'No deal, and rightly: there were no gains from trade.', tone: 'good' };
}
