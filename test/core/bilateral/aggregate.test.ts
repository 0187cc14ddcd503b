import { describe, expect, it } from 'vitest';
import { Aggregator, RATE_NAMES, type LeaderboardRow } from '../../../src/core/bilateral/aggregate';
import type { NegotiationMetrics, SideMetrics } from '../../../src/core/bilateral/metrics';
import { computeMetrics } from '../../../src/core/bilateral/metrics';
import { ACCEPT, WALK_AWAY, offer } from '../../../src/core/bilateral/moves';
import { bilateral } from '../../../src/core/bilateral/protocol';
import type { Tier } from '../../../src/core/catalog';
import type { Role } from '../../../src/core/scenario';
import { runSession } from '../../../src/core/session';
import { replay, scenario } from '../helpers';

interface SideSpec {
  share?: number | null;
  ir?: boolean;
  moves?: number;
  invalid?: number;
}

function side(s: SideSpec = {}): SideMetrics {
  return {
    utility: 0,
    share: s.share ?? null,
    irViolation: s.ir ?? false,
    offers: [],
    firstOffer: null,
    totalConcession: null,
    patience: null,
    moves: s.moves ?? 1,
    invalidMoves: s.invalid ?? 0,
    forfeits: 0,
    calls: 0,
    tokensIn: 0,
    tokensOut: 0,
    latencyMs: 0,
  };
}

/** Hand-built metrics: a gft deal takes the buyer's share and gives the seller the rest. */
function nm(opts: {
  gft: boolean;
  outcome: NegotiationMetrics['outcome'];
  buyerShare?: number;
  buyer?: SideSpec;
  seller?: SideSpec;
}): NegotiationMetrics {
  const deal = opts.outcome === 'deal';
  const withShares = deal && opts.gft && opts.buyerShare !== undefined;
  return {
    gft: opts.gft,
    deal,
    price: deal ? 100 : null,
    outcome: opts.outcome,
    turnsUsed: 4,
    buyer: side({ ...opts.buyer, share: withShares ? opts.buyerShare! : null }),
    seller: side({ ...opts.seller, share: withShares ? 1 - opts.buyerShare! : null }),
  };
}

const row = (rows: LeaderboardRow[], agent: string, role: Role): LeaderboardRow => {
  const r = rows.find((x) => x.agent === agent && x.role === role);
  if (!r) throw new Error(`no row for ${agent} as ${role}`);
  return r;
};

/** Six negotiations of buyer A against seller B, in tier 2. */
function sixNegotiations(): Aggregator {
  const agg = new Aggregator();
  const add = (m: NegotiationMetrics) => agg.add('A', 'B', 2, m);
  add(nm({ gft: true, outcome: 'deal', buyerShare: 0.25, buyer: { moves: 3, invalid: 1 }, seller: { moves: 3, invalid: 0 } }));
  add(nm({ gft: true, outcome: 'deal', buyerShare: 0.5, buyer: { moves: 2 }, seller: { moves: 2, invalid: 2 } }));
  add(nm({ gft: true, outcome: 'walk_away', buyer: { moves: 4 }, seller: { moves: 4 } }));
  add(nm({ gft: false, outcome: 'walk_away', buyer: { moves: 1 }, seller: { moves: 2 } }));
  add(nm({ gft: false, outcome: 'deal', buyer: { moves: 1, invalid: 1, ir: true }, seller: { moves: 1 } }));
  add(nm({ gft: false, outcome: 'turn_limit', buyer: { moves: 1 }, seller: { moves: 1 } }));
  return agg;
}

describe('Aggregator leaderboard: the DESIGN.md definitions', () => {
  const { leaderboard } = sixNegotiations().standings({ samples: 0 });

  it('has one row per agent and role', () => {
    expect(leaderboard.map((r) => [r.agent, r.role, r.n])).toEqual([
      ['A', 'buyer', 6],
      ['B', 'seller', 6],
    ]);
  });

  it('deal rate counts gft scenarios only', () => {
    expect(row(leaderboard, 'A', 'buyer').dealRate).toBeCloseTo(2 / 3, 12);
    expect(row(leaderboard, 'B', 'seller').dealRate).toBeCloseTo(2 / 3, 12);
  });

  it('walk-away rate counts no-gft scenarios only, with the turn limit counting as walking away', () => {
    expect(row(leaderboard, 'A', 'buyer').walkAwayRateNoGft).toBeCloseTo(2 / 3, 12);
    expect(row(leaderboard, 'B', 'seller').walkAwayRateNoGft).toBeCloseTo(2 / 3, 12);
  });

  it('surplus share is the mean own share over gft deals', () => {
    expect(row(leaderboard, 'A', 'buyer').surplusShare).toBeCloseTo((0.25 + 0.5) / 2, 12);
    expect(row(leaderboard, 'B', 'seller').surplusShare).toBeCloseTo((0.75 + 0.5) / 2, 12);
  });

  it('expected surplus share counts a gft scenario without a deal as 0', () => {
    expect(row(leaderboard, 'A', 'buyer').expectedSurplusShare).toBeCloseTo((0.25 + 0.5 + 0) / 3, 12);
    expect(row(leaderboard, 'B', 'seller').expectedSurplusShare).toBeCloseTo((0.75 + 0.5 + 0) / 3, 12);
  });

  it('IR-violation rate is over all deals, gft or not, for the side in question', () => {
    expect(row(leaderboard, 'A', 'buyer').irViolationRate).toBeCloseTo(1 / 3, 12);
    expect(row(leaderboard, 'B', 'seller').irViolationRate).toBe(0);
  });

  it('invalid-move rate is invalid / (moves + invalid), pooled over negotiations', () => {
    // Buyer: 2 invalid, 12 valid. (The mean of per-negotiation rates would be 0.125.)
    expect(row(leaderboard, 'A', 'buyer').invalidMoveRate).toBeCloseTo(2 / 14, 12);
    expect(row(leaderboard, 'B', 'seller').invalidMoveRate).toBeCloseTo(2 / 15, 12);
  });

  it('leaves intervals out when asked for no samples', () => {
    for (const name of RATE_NAMES) expect(row(leaderboard, 'A', 'buyer').ci[name]).toBeNull();
  });
});

describe('Aggregator: empty denominators', () => {
  it('gives null walk-away rate without no-gft scenarios, and null deal/surplus rates without gft ones', () => {
    const onlyGft = new Aggregator();
    onlyGft.add('A', 'B', 1, nm({ gft: true, outcome: 'deal', buyerShare: 0.4 }));
    const r = row(onlyGft.standings({ samples: 0 }).leaderboard, 'A', 'buyer');
    expect(r.walkAwayRateNoGft).toBeNull();
    expect(r.dealRate).toBe(1);

    const onlyNoGft = new Aggregator();
    onlyNoGft.add('A', 'B', 1, nm({ gft: false, outcome: 'walk_away' }));
    const q = row(onlyNoGft.standings({ samples: 0 }).leaderboard, 'A', 'buyer');
    expect(q.dealRate).toBeNull();
    expect(q.surplusShare).toBeNull();
    expect(q.expectedSurplusShare).toBeNull();
    expect(q.irViolationRate).toBeNull();
    expect(q.walkAwayRateNoGft).toBe(1);
  });

  it('gives null surplus share when there were gft scenarios but no deals, and 0 expected share', () => {
    const agg = new Aggregator();
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'turn_limit' }));
    const r = row(agg.standings({ samples: 0 }).leaderboard, 'A', 'buyer');
    expect(r.dealRate).toBe(0);
    expect(r.surplusShare).toBeNull();
    expect(r.expectedSurplusShare).toBe(0);
  });

  it('gives null invalid-move rate for a side that never moved', () => {
    const agg = new Aggregator();
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'walk_away', buyer: { moves: 0 }, seller: { moves: 1 } }));
    const { leaderboard } = agg.standings({ samples: 0 });
    expect(row(leaderboard, 'A', 'buyer').invalidMoveRate).toBeNull();
    expect(row(leaderboard, 'B', 'seller').invalidMoveRate).toBe(0);
  });
});

describe('Aggregator: roles, tiers, pairs, cancellations', () => {
  it('keeps an agent’s buyer and seller results apart, and sorts rows by agent then role', () => {
    const agg = new Aggregator();
    agg.add('B', 'A', 1, nm({ gft: true, outcome: 'deal', buyerShare: 0.9 }));
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'deal', buyerShare: 0.2 }));
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'walk_away' }));
    const { leaderboard } = agg.standings({ samples: 0 });
    expect(leaderboard.map((r) => `${r.agent}/${r.role}/${r.n}`)).toEqual(['A/buyer/2', 'A/seller/1', 'B/buyer/1', 'B/seller/2']);
    expect(row(leaderboard, 'A', 'buyer').surplusShare).toBeCloseTo(0.2, 12);
    expect(row(leaderboard, 'A', 'seller').surplusShare).toBeCloseTo(0.1, 12);
    expect(row(leaderboard, 'B', 'buyer').surplusShare).toBeCloseTo(0.9, 12);
    expect(row(leaderboard, 'B', 'seller').surplusShare).toBeCloseTo(0.8, 12);
    expect(row(leaderboard, 'A', 'buyer').dealRate).toBe(0.5);
  });

  it('breaks results down by tier, each row from its own tier only', () => {
    const agg = new Aggregator();
    const add = (tier: Tier, m: NegotiationMetrics) => agg.add('A', 'B', tier, m);
    add(1, nm({ gft: true, outcome: 'deal', buyerShare: 0.1 }));
    add(1, nm({ gft: true, outcome: 'walk_away' }));
    add(3, nm({ gft: true, outcome: 'deal', buyerShare: 0.7 }));
    add(5, nm({ gft: false, outcome: 'walk_away' }));
    const { leaderboard, byTier } = agg.standings({ samples: 0 });
    const buyerTiers = byTier.filter((r) => r.agent === 'A' && r.role === 'buyer');
    expect(buyerTiers.map((r) => [r.tier, r.n])).toEqual([
      [1, 2],
      [3, 1],
      [5, 1],
    ]);
    const [t1, t3, t5] = buyerTiers;
    expect(t1!.dealRate).toBe(0.5);
    expect(t1!.surplusShare).toBeCloseTo(0.1, 12);
    expect(t1!.expectedSurplusShare).toBeCloseTo(0.05, 12);
    expect(t1!.walkAwayRateNoGft).toBeNull();
    expect(t3!.surplusShare).toBeCloseTo(0.7, 12);
    expect(t5!.dealRate).toBeNull();
    expect(t5!.walkAwayRateNoGft).toBe(1);
    expect(byTier.filter((r) => r.agent === 'B' && r.role === 'seller').map((r) => r.tier)).toEqual([1, 3, 5]);
    // The overall row pools the tiers.
    const overall = row(leaderboard, 'A', 'buyer');
    expect(overall.n).toBe(4);
    expect(overall.dealRate).toBeCloseTo(2 / 3, 12);
    expect(overall.surplusShare).toBeCloseTo(0.4, 12);
  });

  it('pairs each ordered (buyer, seller) with deal rate over gft and shares that sum to 1', () => {
    const agg = new Aggregator();
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'deal', buyerShare: 0.3 }));
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'deal', buyerShare: 0.6 }));
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'walk_away' }));
    agg.add('A', 'B', 1, nm({ gft: false, outcome: 'deal', buyer: { ir: true } }));
    agg.add('B', 'A', 1, nm({ gft: true, outcome: 'walk_away' }));
    agg.add('B', 'A', 1, nm({ gft: false, outcome: 'walk_away' }));
    const { pairs } = agg.standings({ samples: 0 });
    expect(pairs).toHaveLength(2);
    const [ab, ba] = pairs;
    expect(ab).toMatchObject({ buyer: 'A', seller: 'B', n: 4 });
    expect(ab!.dealRate).toBeCloseTo(2 / 3, 12);
    expect(ab!.buyerShare).toBeCloseTo(0.45, 12);
    expect(ab!.sellerShare).toBeCloseTo(0.55, 12);
    expect(ab!.buyerShare! + ab!.sellerShare!).toBeCloseTo(1, 12);
    expect(ba).toEqual({ buyer: 'B', seller: 'A', n: 2, dealRate: 0, buyerShare: null, sellerShare: null });
  });

  it('ignores cancelled negotiations entirely', () => {
    const base = sixNegotiations();
    const withCancelled = sixNegotiations();
    withCancelled.add('A', 'B', 2, nm({ gft: true, outcome: 'cancelled', buyer: { invalid: 5 } }));
    withCancelled.add('C', 'D', 4, nm({ gft: false, outcome: 'cancelled' }));
    expect(withCancelled.count).toBe(base.count);
    expect(base.count).toBe(6);
    expect(withCancelled.standings({ samples: 0 })).toEqual(base.standings({ samples: 0 }));
  });

  it('counts negotiations that ended in an agent error', () => {
    const agg = new Aggregator();
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'error' }));
    expect(agg.count).toBe(1);
    expect(row(agg.standings({ samples: 0 }).leaderboard, 'A', 'buyer').dealRate).toBe(0);
  });
});

describe('Aggregator: intervals', () => {
  function many(): Aggregator {
    const agg = new Aggregator();
    for (let i = 0; i < 60; i++) {
      agg.add('A', 'B', ((i % 5) + 1) as Tier, nm({ gft: i % 4 !== 0, outcome: i % 3 === 0 ? 'walk_away' : 'deal', buyerShare: (i % 7) / 7 }));
    }
    return agg;
  }

  it('gives 95% intervals around every defined rate, and null where the rate is null', () => {
    const { leaderboard, byTier } = many().standings({ samples: 400, seed: 3 });
    for (const r of [...leaderboard, ...byTier]) {
      for (const name of RATE_NAMES) {
        const value = r[name];
        const ci = r.ci[name];
        if (value === null) {
          expect(ci).toBeNull();
          continue;
        }
        expect(ci).not.toBeNull();
        expect(ci![0]).toBeLessThanOrEqual(value + 1e-12);
        expect(ci![1]).toBeGreaterThanOrEqual(value - 1e-12);
      }
    }
    const a = row(leaderboard, 'A', 'buyer');
    expect(a.ci.dealRate![1] - a.ci.dealRate![0]).toBeGreaterThan(0);
  });

  it('is reproducible for a seed, and the intervals do not change the point values', () => {
    const agg = many();
    expect(agg.standings({ samples: 300, seed: 8 })).toEqual(agg.standings({ samples: 300, seed: 8 }));
    const a = agg.standings({ samples: 300, seed: 8 });
    const b = agg.standings({ samples: 300, seed: 9 });
    const none = agg.standings({ samples: 0 });
    expect(a.leaderboard.map((r) => r.dealRate)).toEqual(none.leaderboard.map((r) => r.dealRate));
    expect(a.leaderboard[0]!.ci).not.toEqual(b.leaderboard[0]!.ci);
  });
});

describe('Aggregator over real sessions', () => {
  it('aggregates metrics computed from played negotiations', async () => {
    const agg = new Aggregator();
    // gft (v 150, c 90): a deal at 120, i.e. half the surplus each.
    const gft = scenario();
    let rec = await runSession(bilateral, gft, { seller: replay([offer(120)]), buyer: replay([ACCEPT]) });
    agg.add('buyerBot', 'sellerBot', gft.tier, computeMetrics(gft, rec.events));
    // gft, the buyer walks away.
    rec = await runSession(bilateral, gft, { seller: replay([offer(199)]), buyer: replay([WALK_AWAY]) });
    agg.add('buyerBot', 'sellerBot', gft.tier, computeMetrics(gft, rec.events));
    // No gft (v 80, c 100): the seller walks away.
    const noGft = scenario({ buyerValue: 80, sellerCost: 100 });
    rec = await runSession(bilateral, noGft, { seller: replay([WALK_AWAY]), buyer: replay([]) });
    agg.add('buyerBot', 'sellerBot', noGft.tier, computeMetrics(noGft, rec.events));

    const { leaderboard, pairs } = agg.standings({ samples: 0 });
    const b = row(leaderboard, 'buyerBot', 'buyer');
    expect(b.n).toBe(3);
    expect(b.dealRate).toBe(0.5);
    expect(b.walkAwayRateNoGft).toBe(1);
    expect(b.surplusShare).toBeCloseTo(0.5, 12);
    expect(b.expectedSurplusShare).toBeCloseTo(0.25, 12);
    expect(b.irViolationRate).toBe(0);
    expect(b.invalidMoveRate).toBe(0);
    expect(pairs).toEqual([{ buyer: 'buyerBot', seller: 'sellerBot', n: 3, dealRate: 0.5, buyerShare: 0.5, sellerShare: 0.5 }]);
  });
});

describe('Aggregator: where deals land in the zone of agreement', () => {
  it('bins the seller share of gft deals and counts deals outside the zone apart', () => {
    const agg = new Aggregator();
    for (const buyerShare of [0.95, 0.75, 0.75, 0.05, 1.2, -0.3])
      agg.add('A', 'B', 1, nm({ gft: true, outcome: 'deal', buyerShare }));
    agg.add('A', 'B', 1, nm({ gft: false, outcome: 'deal' }));
    agg.add('A', 'B', 1, nm({ gft: true, outcome: 'walk_away' }));
    const { dealPositions } = agg.standings({ samples: 0 });
    // seller shares 0.05, 0.25, 0.25, 0.95, −0.2 (below), 1.3 (above); the no-gft deal has no zone
    expect(dealPositions.bins).toEqual([1, 0, 2, 0, 0, 0, 0, 0, 0, 1]);
    expect(dealPositions.below).toBe(1);
    expect(dealPositions.above).toBe(1);
  });
});
