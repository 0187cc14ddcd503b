/**
 * The oracle reference for agents named by spec: which specs have one (the deterministic scripted
 * strategies), and a scorer that fills each seat's `oracleShare` and `oracleGap` into a
 * negotiation's metrics. The search itself is games/bilateral/oracle.ts.
 */
import { oracleOutcome, oracleShare, type OracleCounterpart, type OracleOutcome } from './oracle';
import type { BilateralEvent } from './events';
import { computeMetrics, type NegotiationMetrics } from './metrics';
import type { Scenario, Role } from './scenario';
import { opponentOf, ROLES } from './scenario';
import { parseAgentSpec, strategyByName } from './specs';
import type { ScriptedAgent } from './strategies/policy';

const counterparts = new Map<string, OracleCounterpart | null>();

/** The oracle's view of the agent `spec` plays in `role`, or null where it has none (random, a model, a person). */
export function oracleCounterpart(spec: string, role: Role): OracleCounterpart | null {
  const key = `${role} ${spec}`;
  const known = counterparts.get(key);
  if (known !== undefined) return known;
  let made: OracleCounterpart | null = null;
  const parsed = parseAgentSpec(spec);
  const def = parsed.ok ? strategyByName.get(parsed.value.name) : undefined;
  if (parsed.ok && def?.deterministic && !parsed.value.remote && !parsed.value.webllm) {
    const agent = def.create(parsed.value.params, {
      role,
      get rng(): never {
        throw new Error(`${def.name} is deterministic and has no random stream`);
      },
    }) as ScriptedAgent;
    made = agent.schedule ? { kind: 'scheduled', at: agent.schedule } : { kind: 'reactive', agent };
  }
  if (counterparts.size > 1000) counterparts.clear();
  counterparts.set(key, made);
  return made;
}

/** One seat's oracle figures. */
export interface SeatOracle {
  oracleShare: number;
  oracleGap: number;
}

/**
 * Fills in the oracle figures of a tournament's negotiations. The oracle depends only on the
 * scenario, the counterpart's spec and its role, so one search serves every negotiation of a
 * scenario against that counterpart (a plan meets its scenarios one at a time: the cache holds the
 * scenario in hand).
 */
export class OracleScorer {
  private scenarioId: string | null = null;
  private readonly searched = new Map<string, number | null>();

  /** Sets both seats' `oracleShare` and `oracleGap` in `metrics` (in place) and returns it. */
  score(buyer: string, seller: string, scenario: Scenario, metrics: NegotiationMetrics): NegotiationMetrics {
    if (scenario.id !== this.scenarioId) {
      this.scenarioId = scenario.id;
      this.searched.clear();
    }
    for (const seat of ROLES) {
      const side = metrics[seat];
      side.oracleShare = null;
      side.oracleGap = null;
      if (!metrics.gft || metrics.outcome === 'error' || metrics.outcome === 'cancelled') continue;
      const other = opponentOf(seat);
      const spec = other === 'buyer' ? buyer : seller;
      const figures = seatOracle(scenario, seat, spec, side.share ?? 0, this.searched);
      if (figures === null) continue;
      side.oracleShare = figures.oracleShare;
      side.oracleGap = figures.oracleGap;
    }
    return metrics;
  }
}

/**
 * One seat's oracle figures against the counterpart `spec`, given the share it got (0 without a
 * deal): null where the counterpart has no oracle or there were no gains from trade. Against a
 * reactive counterpart the search is a lower bound, and so is what the seat got: the larger counts.
 */
export function seatOracle(scenario: Scenario, seat: Role, spec: string, achieved: number, cache?: Map<string, number | null>): SeatOracle | null {
  const counterpart = oracleCounterpart(spec, opponentOf(seat));
  if (counterpart === null || !(scenario.buyerValue > scenario.sellerCost)) return null;
  const key = `${seat} ${spec}`;
  let share = cache?.get(key);
  if (share === undefined) {
    share = oracleShare(scenario, oracleOutcome(scenario, seat, counterpart));
    cache?.set(key, share);
  }
  if (share === null) return null;
  const best = counterpart.kind === 'reactive' && achieved > share ? achieved : share;
  return { oracleShare: best, oracleGap: best - achieved };
}

/**
 * The deal the oracle finds for `seat` against the counterpart `spec` (price, turn of the seat's
 * move, accept or offer), or null where the counterpart has none; for the inspector and the debrief.
 */
export function oracleDeal(scenario: Scenario, seat: Role, spec: string): OracleOutcome | null {
  const counterpart = oracleCounterpart(spec, opponentOf(seat));
  return counterpart === null ? null : oracleOutcome(scenario, seat, counterpart);
}

/**
 * A negotiation's metrics with its oracle figures: `computeMetrics` and the scorer, for a stored or
 * finished negotiation (`scorer` shares the search between negotiations of one scenario).
 */
export function scoredMetrics(
  buyer: string,
  seller: string,
  scenario: Scenario,
  events: readonly BilateralEvent[],
  scorer: OracleScorer = new OracleScorer(),
): NegotiationMetrics {
  return scorer.score(buyer, seller, scenario, computeMetrics(scenario, events));
}
