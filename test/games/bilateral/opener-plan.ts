/**
 * A synthetic round-robin for the opener-stratified intervals: three agents, every ordered pair on
 * the same 60 scenarios, hand-made metrics drawn from a seeded stream. Even-numbered scenarios
 * favour the buyer strongly (as a buyer who moves last does), odd ones the seller; the metrics
 * depend on the scenario's index only, so the same data can be labelled with either opener
 * pattern and only the labels change.
 */
import type { ScenarioKey } from '../../../src/games/bilateral/aggregate';
import type { NegotiationMetrics, SideMetrics } from '../../../src/games/bilateral/metrics';
import type { Tier } from '../../../src/games/bilateral/catalog';
import { createRng, deriveSeed } from '../../../src/engine/rng';
import type { FirstMoverChoice, Role } from '../../../src/games/bilateral/scenario';

export const OPENER_PLAN_AGENTS = ['A', 'B', 'C'] as const;
export const OPENER_PLAN_SCENARIOS = 60;

export interface PlannedNegotiation {
  buyer: string;
  seller: string;
  scenario: ScenarioKey;
  metrics: NegotiationMetrics;
}

const side = (s: Partial<SideMetrics>): SideMetrics => ({
  utility: 0,
  share: null,
  irViolation: false,
  irLoss: null,
  windfall: null,
  oracleShare: null,
  oracleGap: null,
  opening: null,
  totalConcession: null,
  concession: null,
  patience: null,
  moves: 1,
  invalidMoves: 0,
  forfeits: 0,
  calls: 0,
  tokensIn: 0,
  tokensOut: 0,
  latencyMs: 0,
  ...s,
});

/** The plan in plan order (a scenario's negotiations together), openers labelled as `firstMover` says. */
export function openerPlan(firstMover: FirstMoverChoice): PlannedNegotiation[] {
  const out: PlannedNegotiation[] = [];
  for (let i = 0; i < OPENER_PLAN_SCENARIOS; i++) {
    const opener: Role = firstMover === 'alternate' ? (i % 2 === 0 ? 'seller' : 'buyer') : firstMover;
    const rng = createRng(deriveSeed(31, 'opener-plan', i));
    const gft = rng.next() < 0.8;
    const listPrice = 100 + 50 * (i % 7);
    const gap = (0.02 + 0.5 * rng.next()) * listPrice;
    const scenario: ScenarioKey = {
      id: `plan-${i}`,
      tier: ((i % 5) + 1) as Tier,
      buyerValue: gft ? listPrice : listPrice - gap,
      sellerCost: gft ? listPrice - gap : listPrice,
      item: { id: `item-${i % 7}`, name: 'Widget', category: 'test', listPrice },
      firstMover: opener,
    };
    // The buyer's share centres on 0.8 in even scenarios and on 0.2 in odd ones.
    const centre = i % 2 === 0 ? 0.8 : 0.2;
    for (const buyer of OPENER_PLAN_AGENTS)
      for (const seller of OPENER_PLAN_AGENTS) {
        if (buyer === seller) continue;
        const r = createRng(deriveSeed(31, 'opener-plan', i, buyer, seller));
        const u = r.next();
        const outcome: NegotiationMetrics['outcome'] =
          u < 0.02 ? 'error' : u < (gft ? 0.15 + 0.2 * (i % 2) : 0.9) ? (r.next() < 0.6 ? 'walk_away' : 'turn_limit') : 'deal';
        const deal = outcome === 'deal';
        const buyerShare = centre + 0.3 * (r.next() - 0.5);
        const shares = deal && gft;
        const seat = (role: Role): SideMetrics => {
          const own = role === 'buyer' ? buyerShare : 1 - buyerShare;
          return side({
            share: shares ? own : null,
            // Shares stay inside the zone; a deal without gains from trade costs one side or the other.
            irViolation: deal && !gft && r.next() < 0.5 === (role === 'buyer'),
            opening: r.next() < 0.9 ? (role === 'buyer' ? 0.5 : 1.1) + 0.3 * (r.next() - 0.5) + (i % 2 === 0 ? 0.1 : -0.1) : null,
            concession: r.next() < 0.9 ? r.next() : null,
            patience: r.next() < 0.9 ? (i % 2 === (role === 'buyer' ? 0 : 1) ? 0.7 : 0.3) + 0.2 * r.next() : null,
            moves: 1 + r.int(8),
            invalidMoves: r.next() < 0.1 ? 1 : 0,
          });
        };
        const buyerSide = seat('buyer');
        const sellerSide = seat('seller');
        out.push({
          buyer,
          seller,
          scenario,
          metrics: { gft, deal, price: deal ? scenario.sellerCost : null, outcome, turnsUsed: 6, buyer: buyerSide, seller: sellerSide },
        });
      }
  }
  return out;
}
