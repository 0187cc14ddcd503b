import { TIERS, type Tier } from './catalog';
import { createRng, deriveSeed } from '../../engine/rng';
import { ROLES, ZONE_BINS, zoneBinOf, type Role, type Scenario, type ZoneBin } from './scenario';
import { ANALYTIC_MIN_UNITS, RatioMomentsBlock, ratioInterval, type Interval, type RatioMoments } from '../../engine/stats';
import { zonePosition, type NegotiationMetrics } from './metrics';
import { UsageAccumulator, type RunUsage, type UsagePair } from './usage';

/** The per-agent statistics of DESIGN.md, in the order they are stored. */
export const RATE_NAMES = [
  'dealRate',
  'noDealRateNoGft',
  'walkAwayShare',
  'surplusShare',
  'expectedSurplusShare',
  'irViolationRate',
  'invalidMoveRate',
  'errorRate',
  'opening',
  'concession',
  'patience',
  'irLoss',
  'windfallShare',
  'oracleShare',
  'oracleGap',
] as const;
export type RateName = (typeof RATE_NAMES)[number];

/** Statistics whose values lie in [0, 1] per negotiation (shares always do: see `surplusShare`). */
const BOUNDED: Record<RateName, boolean> = {
  dealRate: true,
  noDealRateNoGft: true,
  walkAwayShare: true,
  surplusShare: true,
  expectedSurplusShare: true,
  irViolationRate: true,
  irLoss: false,
  windfallShare: true,
  invalidMoveRate: true,
  errorRate: true,
  opening: false,
  concession: false,
  patience: true,
  oracleShare: true,
  oracleGap: true,
};
const BOUNDED_LIST = RATE_NAMES.map((name) => BOUNDED[name]);

/** The behaviour measures among the rates: means over the seat's negotiations, not rates. */
export const BEHAVIOUR_NAMES = ['opening', 'concession', 'patience'] as const satisfies readonly RateName[];

export type LeaderboardRow = {
  agent: string;
  role: Role;
  /** The seat's negotiations, errors included (cancelled ones are not counted anywhere). */
  n: number;
  /** Of those, the ones that ended in an error (whichever side caused it): they enter no other rate. */
  errors: number;
  ci: Record<RateName, Interval | null>;
} & Record<RateName, number | null>;

export type TierRow = LeaderboardRow & { tier: Tier };
export type ZoneRow = LeaderboardRow & { zone: ZoneBin };

export interface PairRow {
  buyer: string;
  seller: string;
  n: number;
  errors: number;
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

/**
 * How the intervals were made. The unit is the scenario (every pair meets the same ones, so a
 * scenario's negotiations move together): from per-scenario sums, the delta method for a ratio of
 * sums, with the Wilson score interval at the effective sample size for rates and other measures
 * in [0, 1]; where a statistic has fewer than `bootstrapBelow` scenarios in its cell, a percentile
 * bootstrap of `samples` resamples of scenarios instead. See `ratioInterval` in engine/stats.ts.
 */
export interface IntervalMethod {
  method: 'paired-analytic';
  unit: 'scenario';
  level: number;
  bootstrapBelow: number;
  samples: number;
  /**
   * `opener`: the run's scenarios were opened by both roles (the plan alternates the opener, so
   * each role opens a fixed number of them), and the intervals are stratified by it: the variance
   * is within each opener's scenarios, and the bootstrap resamples each opener's scenarios apart.
   * Absent where every scenario had the same opener (and in standings stored before strata).
   */
  strata?: 'opener';
  /**
   * Negotiations that arrived after their scenario's others (a run whose stored negotiations were
   * not a prefix of its plan): each was resampled as a scenario of its own. 0 in plan order.
   */
  apart: number;
}

/** The interval method in one sentence, for the CLI and the app. */
export function describeIntervals(m: IntervalMethod): string {
  return (
    `${Math.round(m.level * 100)}% intervals over whole scenarios (every pair met the same ones)` +
    (m.strata === 'opener' ? ', stratified by opener (each role opened a fixed share of them)' : '') +
    ': ' +
    `delta method, Wilson score for rates; a bootstrap of ${m.samples.toLocaleString('en-US')} resamples ` +
    `where a cell has fewer than ${m.bootstrapBelow} scenarios` +
    (m.apart > 0
      ? ` (${m.apart.toLocaleString('en-US')} negotiation${m.apart === 1 ? '' : 's'} came apart from ${m.apart === 1 ? 'its' : 'their'} scenario and count${m.apart === 1 ? 's' : ''} as a scenario of ${m.apart === 1 ? 'its' : 'their'} own)`
      : '')
  );
}

export interface Standings {
  leaderboard: LeaderboardRow[];
  byTier: TierRow[];
  byZone: ZoneRow[];
  pairs: PairRow[];
  dealPositions: DealPositions;
  /** Model calls, tokens and latency per agent that made calls, and for the whole run. */
  usage: RunUsage;
  /** `null` when no intervals were computed (progress updates). */
  intervals: IntervalMethod | null;
}

const K = RATE_NAMES.length;
const WIDTH = 2 * K;

/** `sums[i] += x` (the sums are typed arrays, whose slots are always numbers). */
const bump = (sums: Float64Array, i: number, x: number): void => {
  sums[i] = (sums[i] as number) + x;
};

/** Where each rate's numerator sits in the interleaved [num, den] sums (its denominator follows). */
const AT = Object.fromEntries(RATE_NAMES.map((name, k) => [name, 2 * k])) as Record<RateName, number>;
const DEAL = AT.dealRate;
const NO_DEAL_NO_GFT = AT.noDealRateNoGft;
const WALK_AWAY = AT.walkAwayShare;
const SHARE = AT.surplusShare;
const EXPECTED = AT.expectedSurplusShare;
const IR = AT.irViolationRate;
const IR_LOSS = AT.irLoss;
const WINDFALL = AT.windfallShare;
const INVALID = AT.invalidMoveRate;
const ERROR = AT.errorRate;
const OPENING = AT.opening;
const CONCESSION = AT.concession;
const PATIENCE = AT.patience;
const ORACLE = AT.oracleShare;
const ORACLE_GAP = AT.oracleGap;

/**
 * Adds one side of one negotiation to `sums`: numerator and denominator of each rate, interleaved
 * [num, den] in RATE_NAMES order; terms that are zero are left out. A negotiation that ended in an
 * error counts only in `errorRate`. `irLoss` is the mean loss of the seat's IR-violating deals (over
 * list price); `windfallShare` the part of its gains (utility over list price, summed over its
 * deals) that came from the other side's violations; `oracleShare` and `oracleGap` are means over
 * its negotiations with gains from trade where the oracle is known.
 */
function addUnit(m: NegotiationMetrics, role: Role, sums: Float64Array, listPrice: number): void {
  bump(sums, ERROR + 1, 1);
  if (m.outcome === 'error') {
    bump(sums, ERROR, 1);
    return;
  }
  const side = m[role];
  if (m.gft) {
    bump(sums, DEAL + 1, 1);
    bump(sums, EXPECTED + 1, 1);
    const share = m.deal ? (side.share ?? 0) : 0;
    if (m.deal) {
      bump(sums, DEAL, 1);
      bump(sums, SHARE, share);
      bump(sums, SHARE + 1, 1);
      bump(sums, EXPECTED, share);
    }
    if (side.oracleShare !== null) {
      bump(sums, ORACLE, side.oracleShare);
      bump(sums, ORACLE + 1, 1);
      bump(sums, ORACLE_GAP, side.oracleGap ?? side.oracleShare - share);
      bump(sums, ORACLE_GAP + 1, 1);
    }
  } else {
    bump(sums, NO_DEAL_NO_GFT + 1, 1);
    if (!m.deal) bump(sums, NO_DEAL_NO_GFT, 1);
  }
  if (m.deal) {
    bump(sums, IR + 1, 1);
    if (side.irViolation) {
      bump(sums, IR, 1);
      bump(sums, IR_LOSS, side.irLoss ?? 0);
      bump(sums, IR_LOSS + 1, 1);
    }
    if (side.utility > 0) {
      bump(sums, WINDFALL, side.windfall ?? 0);
      bump(sums, WINDFALL + 1, side.utility / listPrice);
    }
  } else {
    bump(sums, WALK_AWAY + 1, 1);
    if (m.outcome === 'walk_away') bump(sums, WALK_AWAY, 1);
  }
  bump(sums, INVALID, side.invalidMoves);
  bump(sums, INVALID + 1, side.moves + side.invalidMoves);
  if (side.opening !== null) {
    bump(sums, OPENING, side.opening);
    bump(sums, OPENING + 1, 1);
  }
  if (side.concession !== null) {
    bump(sums, CONCESSION, side.concession);
    bump(sums, CONCESSION + 1, 1);
  }
  if (side.patience !== null) {
    bump(sums, PATIENCE, side.patience);
    bump(sums, PATIENCE + 1, 1);
  }
}

/** Cell slots per agent and role: 0 = overall, then the tiers, then the zone bins. */
const TIER_SLOT = (t: Tier): number => t;
const ZONE_SLOT = (z: ZoneBin): number => TIERS.length + z;
const SLOTS = 1 + TIERS.length + ZONE_BINS.length;

/** Interval strata: the scenario's opener (the plan fixes how many scenarios each role opens). */
const STRATA = ROLES.length;
const STRATUM_OF: Record<Role, number> = { seller: 0, buyer: 1 };

/**
 * One agent in one role. Per cell (all, each tier, each zone bin), rate and opener: the moments of
 * its per-scenario sums, so the intervals resample whole scenarios (the tournament gives every pair
 * the same ones) within each opener's, in memory that does not grow with the run. Negotiations
 * arrive grouped by scenario (plan order); a scenario has one tier, one zone and one opener, so the
 * open scenario's sums are kept once and folded into its three cells when the next scenario starts.
 */
class Seat {
  readonly negotiations = new Int32Array(SLOTS);
  readonly errors = new Int32Array(SLOTS);
  private readonly moments: (RatioMomentsBlock | null)[] = new Array(SLOTS).fill(null);
  private key: string | null = null;
  private tier = 0;
  private zone = 0;
  private stratum = 0;
  private readonly open = new Float64Array(WIDTH);

  add(scenarioKey: string, tier: number, zone: number, stratum: number, m: NegotiationMetrics, role: Role, listPrice: number): void {
    if (scenarioKey !== this.key) {
      if (this.key !== null) this.foldOpen();
      this.key = scenarioKey;
      this.tier = tier;
      this.zone = zone;
      this.stratum = stratum;
      this.open.fill(0);
    }
    addUnit(m, role, this.open, listPrice);
    const { negotiations, errors } = this;
    negotiations[0] = (negotiations[0] as number) + 1;
    negotiations[tier] = (negotiations[tier] as number) + 1;
    negotiations[zone] = (negotiations[zone] as number) + 1;
    if (m.outcome === 'error') {
      errors[0] = (errors[0] as number) + 1;
      errors[tier] = (errors[tier] as number) + 1;
      errors[zone] = (errors[zone] as number) + 1;
    }
  }

  private foldOpen(): void {
    this.cell(0).add(this.open, this.stratum);
    this.cell(this.tier).add(this.open, this.stratum);
    this.cell(this.zone).add(this.open, this.stratum);
  }

  private cell(slot: number): RatioMomentsBlock {
    return (this.moments[slot] ??= new RatioMomentsBlock(K, STRATA));
  }

  /** A cell's moments with the open scenario included, leaving the seat as it was (more may come). */
  snapshot(slot: number): RatioMoments[] {
    const kept = this.moments[slot];
    const copy = new RatioMomentsBlock(K, STRATA, kept ?? undefined);
    if (this.key !== null && (slot === 0 || slot === this.tier || slot === this.zone)) copy.add(this.open, this.stratum);
    return RATE_NAMES.map((_, k) => copy.at(k));
  }
}

interface PairAcc {
  /** Where this pair's negotiations are added, found once per pair. */
  readonly buyerSeat: Seat;
  readonly sellerSeat: Seat;
  readonly usage: UsagePair;
  n: number;
  errors: number;
  gft: number;
  deals: number;
  buyerShare: number;
  sellerShare: number;
}

export interface StandingsOptions {
  /** Bootstrap resamples for the 95% intervals of small cells (default 1000); 0 leaves intervals out. */
  samples?: number;
  seed?: number;
}

/** What the aggregator needs of a scenario: its identity (for pairing), price tier, zone and opener (the intervals' stratum). */
export type ScenarioKey = Pick<Scenario, 'id' | 'tier' | 'buyerValue' | 'sellerCost' | 'item' | 'firstMover'>;

/**
 * Accumulates finished negotiations (metrics only, never events) and computes the
 * leaderboard, the per-tier and per-zone rows, the pair table and the model usage on demand.
 */
export class Aggregator {
  private seats = new Map<string, Record<Role, Seat>>();
  private pairMap = new Map<string, Map<string, PairAcc>>();
  private positions: DealPositions = { bins: new Array<number>(DEAL_POSITION_BINS).fill(0), below: 0, above: 0 };
  private usage = new UsageAccumulator();
  // Plan order groups a scenario's negotiations; a scenario seen again after another began is noted.
  private scenarioKey: string | null = null;
  private tier = 0;
  private zone = 0;
  private stratum = 0;
  /** Bit h set: a scenario of stratum h was added. */
  private strataSeen = 0;
  private closed = new Set<string>();
  private reopened = false;
  private apart = 0;
  count = 0;

  add(buyer: string, seller: string, scenario: ScenarioKey, m: NegotiationMetrics): void {
    if (m.outcome === 'cancelled') return;
    this.count++;
    const key = scenario.id;
    if (key !== this.scenarioKey) {
      if (this.scenarioKey !== null) this.closed.add(this.scenarioKey);
      this.reopened = this.closed.has(key);
      this.scenarioKey = key;
      this.tier = TIER_SLOT(scenario.tier);
      this.zone = ZONE_SLOT(zoneBinOf(scenario));
      this.stratum = STRATUM_OF[scenario.firstMover];
      this.strataSeen |= 1 << this.stratum;
    }
    if (this.reopened) this.apart++;
    const p = this.pair(buyer, seller);
    this.usage.add(p.usage, m);
    const list = scenario.item.listPrice;
    p.buyerSeat.add(key, this.tier, this.zone, this.stratum, m, 'buyer', list);
    p.sellerSeat.add(key, this.tier, this.zone, this.stratum, m, 'seller', list);
    p.n++;
    if (m.outcome === 'error') {
      p.errors++;
      return;
    }
    if (m.gft && m.price !== null) this.addPosition(zonePosition(scenario, m.price));
    if (m.gft) {
      p.gft++;
      if (m.deal) {
        p.deals++;
        p.buyerShare += m.buyer.share ?? 0;
        p.sellerShare += m.seller.share ?? 0;
      }
    }
  }

  private pair(buyer: string, seller: string): PairAcc {
    let sellers = this.pairMap.get(buyer);
    if (!sellers) {
      sellers = new Map();
      this.pairMap.set(buyer, sellers);
    }
    let p = sellers.get(seller);
    if (!p) {
      p = {
        buyerSeat: this.agentSeats(buyer).buyer,
        sellerSeat: this.agentSeats(seller).seller,
        usage: this.usage.pair(buyer, seller),
        n: 0,
        errors: 0,
        gft: 0,
        deals: 0,
        buyerShare: 0,
        sellerShare: 0,
      };
      sellers.set(seller, p);
    }
    return p;
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

  private agentSeats(agent: string): Record<Role, Seat> {
    let g = this.seats.get(agent);
    if (!g) {
      g = { buyer: new Seat(), seller: new Seat() };
      this.seats.set(agent, g);
    }
    return g;
  }

  standings(opts: StandingsOptions = {}): Standings {
    const samples = opts.samples ?? 1000;
    const seed = opts.seed ?? 1;
    const leaderboard: LeaderboardRow[] = [];
    const byTier: TierRow[] = [];
    const byZone: ZoneRow[] = [];
    for (const agent of [...this.seats.keys()].sort(cmp)) {
      const byRole = this.seats.get(agent) as Record<Role, Seat>;
      for (const role of ROLES)
        for (let slot = 0; slot < SLOTS; slot++) {
          const seat = byRole[role];
          if (seat.negotiations[slot] === 0) continue;
          const rng = createRng(deriveSeed(seed, 'bootstrap', agent, role, slot));
          const moments = seat.snapshot(slot);
          const stats = moments.map((m, k) =>
            samples > 0 ? ratioInterval(m, BOUNDED_LIST[k] as boolean, rng, samples) : { value: m.b > 0 ? m.a / m.b : null, ci: null },
          );
          const row = { agent, role, n: seat.negotiations[slot] as number, errors: seat.errors[slot] as number } as LeaderboardRow;
          const ci = {} as Record<RateName, Interval | null>;
          RATE_NAMES.forEach((name, s) => {
            row[name] = (stats[s] as { value: number | null }).value;
            ci[name] = (stats[s] as { ci: Interval | null }).ci;
          });
          row.ci = ci;
          if (slot === 0) leaderboard.push(row);
          else if (slot <= TIERS.length) byTier.push({ ...row, tier: slot as Tier });
          else byZone.push({ ...row, zone: (slot - TIERS.length) as ZoneBin });
        }
    }
    const pairs: PairRow[] = [...this.pairMap.entries()]
      .flatMap(([buyer, sellers]) => [...sellers.entries()].map(([seller, p]) => ({ buyer, seller, ...p })))
      .sort((a, b) => cmp(a.buyer, b.buyer) || cmp(a.seller, b.seller))
      .map((p) => ({
        buyer: p.buyer,
        seller: p.seller,
        n: p.n,
        errors: p.errors,
        dealRate: p.gft ? p.deals / p.gft : null,
        buyerShare: p.deals ? p.buyerShare / p.deals : null,
        sellerShare: p.deals ? p.sellerShare / p.deals : null,
      }));
    const dealPositions = { ...this.positions, bins: [...this.positions.bins] };
    const intervals: IntervalMethod | null =
      samples > 0
        ? {
            method: 'paired-analytic',
            unit: 'scenario',
            level: 0.95,
            bootstrapBelow: ANALYTIC_MIN_UNITS,
            samples,
            ...(this.strataSeen === (1 << STRATA) - 1 ? { strata: 'opener' as const } : {}),
            apart: this.apart,
          }
        : null;
    return { leaderboard, byTier, byZone, pairs, dealPositions, usage: this.usage.usage(), intervals };
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
