import { TIERS, type Tier } from '../catalog';
import { createRng, deriveSeed } from '../rng';
import { ROLES, type Role } from '../scenario';
import { bootstrapRatios, type Interval } from '../stats';
import type { NegotiationMetrics } from './metrics';
import { UsageAccumulator, type RunUsage } from './usage';

/** The per-agent statistics of DESIGN.md, in the order they are stored. */
export const RATE_NAMES = [
  'dealRate',
  'walkAwayRateNoGft',
  'surplusShare',
  'expectedSurplusShare',
  'irViolationRate',
  'invalidMoveRate',
] as const;
export type RateName = (typeof RATE_NAMES)[number];

export type LeaderboardRow = {
  agent: string;
  role: Role;
  n: number;
  ci: Record<RateName, Interval | null>;
} & Record<RateName, number | null>;

export type TierRow = LeaderboardRow & { tier: Tier };

export interface PairRow {
  buyer: string;
  seller: string;
  n: number;
  dealRate: number | null;
  buyerShare: number | null;
  sellerShare: number | null;
}

/**
 * Where gft deals landed in the zone of agreement: (p − c)/(v − c), which is the seller's share.
 * `bins` splits [0, 1] evenly; `below` and `above` count deals outside the zone (IR violations).
 */
export interface DealPositions {
  bins: number[];
  below: number;
  above: number;
}

export const DEAL_POSITION_BINS = 10;

export interface Standings {
  leaderboard: LeaderboardRow[];
  byTier: TierRow[];
  pairs: PairRow[];
  dealPositions: DealPositions;
  /** Model calls, tokens and latency per agent that made calls, and for the whole run. */
  usage: RunUsage;
}

/** Numerator and denominator of each rate for one side of one negotiation. */
function unitRates(m: NegotiationMetrics, role: Role, out: Float64Array): void {
  const side = m[role];
  const share = side.share ?? 0;
  const attempts = side.moves + side.invalidMoves;
  // [num, den] pairs in RATE_NAMES order
  out[0] = m.gft && m.deal ? 1 : 0;
  out[1] = m.gft ? 1 : 0;
  out[2] = !m.gft && !m.deal ? 1 : 0;
  out[3] = m.gft ? 0 : 1;
  out[4] = m.gft && m.deal ? share : 0;
  out[5] = m.gft && m.deal ? 1 : 0;
  out[6] = m.gft ? share : 0;
  out[7] = m.gft ? 1 : 0;
  out[8] = m.deal && side.irViolation ? 1 : 0;
  out[9] = m.deal ? 1 : 0;
  out[10] = side.invalidMoves;
  out[11] = attempts;
}

const K = RATE_NAMES.length;

/** Growable columns of numerators and denominators for one group (agent, role, tier). */
class Group {
  n = 0;
  num: Float64Array[] = RATE_NAMES.map(() => new Float64Array(64));
  den: Float64Array[] = RATE_NAMES.map(() => new Float64Array(64));

  push(unit: Float64Array): void {
    if (this.n === (this.num[0] as Float64Array).length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.num = this.num.map(grow);
      this.den = this.den.map(grow);
    }
    for (let s = 0; s < K; s++) {
      (this.num[s] as Float64Array)[this.n] = unit[2 * s] as number;
      (this.den[s] as Float64Array)[this.n] = unit[2 * s + 1] as number;
    }
    this.n++;
  }
}

interface PairAcc {
  n: number;
  gft: number;
  deals: number;
  buyerShare: number;
  sellerShare: number;
}

export interface StandingsOptions {
  /** Bootstrap resamples for the 95% intervals (default 1000; 0 leaves intervals out). */
  samples?: number;
  seed?: number;
}

/**
 * Accumulates finished negotiations (metrics only, never events) and computes the
 * leaderboard, the per-tier rows, the pair table and the model usage on demand.
 */
export class Aggregator {
  /** agent → role → groups indexed by tier (0 = all tiers). */
  private groups = new Map<string, Record<Role, Group[]>>();
  private pairMap = new Map<string, Map<string, PairAcc>>();
  private unit = new Float64Array(2 * K);
  private positions: DealPositions = { bins: new Array<number>(DEAL_POSITION_BINS).fill(0), below: 0, above: 0 };
  private usage = new UsageAccumulator();
  count = 0;

  add(buyer: string, seller: string, tier: Tier, m: NegotiationMetrics): void {
    if (m.outcome === 'cancelled') return;
    this.count++;
    this.usage.add(buyer, seller, m);
    const asBuyer = this.agentGroups(buyer).buyer;
    unitRates(m, 'buyer', this.unit);
    (asBuyer[0] as Group).push(this.unit);
    (asBuyer[tier] as Group).push(this.unit);
    const asSeller = this.agentGroups(seller).seller;
    unitRates(m, 'seller', this.unit);
    (asSeller[0] as Group).push(this.unit);
    (asSeller[tier] as Group).push(this.unit);
    let sellers = this.pairMap.get(buyer);
    if (!sellers) {
      sellers = new Map();
      this.pairMap.set(buyer, sellers);
    }
    let p = sellers.get(seller);
    if (!p) {
      p = { n: 0, gft: 0, deals: 0, buyerShare: 0, sellerShare: 0 };
      sellers.set(seller, p);
    }
    p.n++;
    if (m.gft && m.deal) this.addPosition(m.seller.share ?? 0);
    if (m.gft) {
      p.gft++;
      if (m.deal) {
        p.deals++;
        p.buyerShare += m.buyer.share ?? 0;
        p.sellerShare += m.seller.share ?? 0;
      }
    }
  }

  private addPosition(position: number): void {
    const eps = 1e-9;
    if (position < -eps) this.positions.below++;
    else if (position > 1 + eps) this.positions.above++;
    else {
      const bin = Math.min(DEAL_POSITION_BINS - 1, Math.max(0, Math.floor(position * DEAL_POSITION_BINS)));
      this.positions.bins[bin] = (this.positions.bins[bin] as number) + 1;
    }
  }

  private agentGroups(agent: string): Record<Role, Group[]> {
    let g = this.groups.get(agent);
    if (!g) {
      const tiers = () => Array.from({ length: TIERS.length + 1 }, () => new Group());
      g = { buyer: tiers(), seller: tiers() };
      this.groups.set(agent, g);
    }
    return g;
  }

  standings(opts: StandingsOptions = {}): Standings {
    const samples = opts.samples ?? 1000;
    const seed = opts.seed ?? 1;
    const leaderboard: LeaderboardRow[] = [];
    const byTier: TierRow[] = [];
    const entries: { agent: string; role: Role; tier: Tier | null; group: Group }[] = [];
    for (const agent of [...this.groups.keys()].sort(cmp)) {
      const byRole = this.groups.get(agent) as Record<Role, Group[]>;
      for (const role of ROLES)
        byRole[role].forEach((group, t) => {
          if (group.n > 0) entries.push({ agent, role, tier: t === 0 ? null : (t as Tier), group });
        });
    }
    for (const { agent, role, tier, group } of entries) {
      const rng = createRng(deriveSeed(seed, 'bootstrap', agent, role, tier ?? 0));
      const stats = bootstrapRatios(group.num, group.den, group.n, rng, samples);
      const row = { agent, role, n: group.n } as LeaderboardRow;
      const ci = {} as Record<RateName, Interval | null>;
      RATE_NAMES.forEach((name, s) => {
        row[name] = (stats[s] as { value: number | null }).value;
        ci[name] = (stats[s] as { ci: Interval | null }).ci;
      });
      row.ci = ci;
      if (tier === null) leaderboard.push(row);
      else byTier.push({ ...row, tier });
    }
    const pairs: PairRow[] = [...this.pairMap.entries()]
      .flatMap(([buyer, sellers]) => [...sellers.entries()].map(([seller, p]) => ({ buyer, seller, ...p })))
      .sort((a, b) => cmp(a.buyer, b.buyer) || cmp(a.seller, b.seller))
      .map((p) => ({
        buyer: p.buyer,
        seller: p.seller,
        n: p.n,
        dealRate: p.gft ? p.deals / p.gft : null,
        buyerShare: p.deals ? p.buyerShare / p.deals : null,
        sellerShare: p.deals ? p.sellerShare / p.deals : null,
      }));
    const dealPositions = { ...this.positions, bins: [...this.positions.bins] };
    return { leaderboard, byTier, pairs, dealPositions, usage: this.usage.usage() };
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

