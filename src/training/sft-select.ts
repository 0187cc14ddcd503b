/**
 * Which seats of which negotiations become fine-tuning examples (the filters), the split into
 * train and validation by scenario, and the summary of what was picked. Pure, for the command
 * line and the app's worker alike.
 */
import { z } from 'zod';
import { surplusShare } from '../games/bilateral/metrics';
import { hashString } from '../engine/rng';
import { TIERS } from '../games/bilateral/catalog';
import { hasGainsFromTrade, ROLES, ZoneBinSchema, zoneBinOf, type Role } from '../games/bilateral/scenario';
import type { BilateralEvent } from '../games/bilateral/events';
import type { Scenario } from '../games/bilateral/scenario';

/** A negotiation as a run file holds it (the fields the export reads). */
export interface SftSource {
  jobId: string;
  buyer: string;
  seller: string;
  scenario: Scenario;
  events: readonly BilateralEvent[];
}

/** One example per move (what the agent is sent at each move), or one per seat per negotiation. */
export const SFT_FORMATS = ['per-move', 'multi-turn'] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

export interface SftFilter {
  seat: Role | 'both';
  /** The seat's agent, as the run names it (its spec label). */
  agent?: string;
  tier?: number;
  /** Zone bin 1–5 (1: no gains from trade). */
  zone?: number;
  dealsOnly?: boolean;
  /** The seat's share of v − c at least this (only deals with gains from trade pass). */
  minShare?: number;
  /** Leave out a seat that made a deal at a loss. */
  irOnly?: boolean;
}

/** A filter's limits: the worker checks the page's filter with it, the command line reads its flags' ranges from it. */
export const SftFilterSchema = z.object({
  seat: z.enum([...ROLES, 'both']),
  agent: z.string().min(1).max(500).optional(),
  tier: z.int().min(1).max(TIERS.length).optional(),
  zone: ZoneBinSchema.optional(),
  dealsOnly: z.boolean().optional(),
  minShare: z.number().min(0).max(1).optional(),
  irOnly: z.boolean().optional(),
});
const sftFilterFits: z.infer<typeof SftFilterSchema> extends SftFilter ? true : false = true;
void sftFilterFits;

/** The fraction of scenarios held out for validation. */
export const SftValidationSchema = z.number().min(0).max(0.9);

/** The seat's share of v − c (in [0, 1], as `surplusShare` defines it) on a deal with gains from trade, and whether it lost money. */
export function seatOutcome(source: SftSource, seat: Role): { deal: boolean; share: number | null; loss: boolean; ended: string } {
  const end = source.events.at(-1);
  const outcome = end?.type === 'end' ? end.outcome : null;
  const { buyerValue: v, sellerCost: c } = source.scenario;
  if (outcome?.kind !== 'deal') return { deal: false, share: null, loss: false, ended: outcome?.kind ?? 'unfinished' };
  const utility = seat === 'buyer' ? v - outcome.price : outcome.price - c;
  return {
    deal: true,
    share: hasGainsFromTrade(source.scenario) ? surplusShare(source.scenario, outcome.price, seat) : null,
    loss: utility < -1e-9,
    ended: 'deal',
  };
}

/** The seats of a negotiation that pass the filter. Negotiations that ended in an error or were cancelled teach nothing: none pass. */
export function selectedSeats(source: SftSource, filter: SftFilter): Role[] {
  const seats: Role[] = filter.seat === 'both' ? ['buyer', 'seller'] : [filter.seat];
  return seats.filter((seat) => {
    const o = seatOutcome(source, seat);
    if (o.ended === 'error' || o.ended === 'cancelled' || o.ended === 'unfinished') return false;
    if (filter.agent !== undefined && source[seat] !== filter.agent) return false;
    if (filter.tier !== undefined && source.scenario.tier !== filter.tier) return false;
    if (filter.zone !== undefined && zoneBinOf(source.scenario) !== filter.zone) return false;
    if (filter.dealsOnly && !o.deal) return false;
    if (filter.minShare !== undefined && (o.share === null || o.share < filter.minShare)) return false;
    if (filter.irOnly && o.loss) return false;
    return true;
  });
}

/** The seat's moves before the end, each an example in the per-move format. */
export function seatMoves(source: SftSource, seat: Role): number {
  let moves = 0;
  for (const e of source.events) {
    if (e.type === 'end') break;
    if (e.type === 'move' && e.actor === seat) moves++;
  }
  return moves;
}

/** How many examples the seat gives in the format: one per move, or one for the whole negotiation. */
export const seatExamples = (source: SftSource, seat: Role, format: SftFormat): number =>
  format === 'per-move' ? seatMoves(source, seat) : Math.min(1, seatMoves(source, seat));

/**
 * The scenarios held out for validation: `fraction` of the distinct ids (rounded, at least one
 * when the fraction is above 0 and there are two or more, never all), chosen by a hash of the id,
 * so the same scenarios always go the same way and no scenario is on both sides.
 */
export function validationScenarios(scenarioIds: Iterable<string>, fraction: number): Set<string> {
  const ids = [...new Set(scenarioIds)];
  if (fraction <= 0 || ids.length < 2) return new Set();
  const n = Math.min(ids.length - 1, Math.max(1, Math.round(fraction * ids.length)));
  const ranked = ids.map((id) => ({ id, rank: hashString(`sft-validation|${id}`) })).sort((a, b) => a.rank - b.rank || (a.id < b.id ? -1 : 1));
  return new Set(ranked.slice(0, n).map((r) => r.id));
}

export interface SftSummary {
  examples: number;
  train: number;
  validation: number;
  scenarios: { train: number; validation: number };
  byTier: Record<string, number>;
  /** `agent (seat)` → examples. */
  byAgent: Record<string, number>;
  /** Shares over the seats whose negotiation was a deal with gains from trade (a seat once, however many examples it gave). */
  share: {
    n: number;
    mean: number | null;
    min: number | null;
    p25: number | null;
    median: number | null;
    p75: number | null;
    max: number | null;
    histogram: number[];
  };
}

/**
 * Tallies what was exported, a seat of a negotiation at a time: its examples (one per move, or one
 * multi-turn) count towards the totals, tiers and agents; its share of v − c (null without a deal with
 * gains) is counted once per seat, whatever the format.
 */
export class SftTally {
  private readonly shares: number[] = [];
  private readonly byTier = new Map<number, number>();
  private readonly byAgent = new Map<string, number>();
  private readonly trainScenarios = new Set<string>();
  private readonly validationScenarios = new Set<string>();
  private train = 0;
  private validation = 0;

  add(source: SftSource, seat: Role, heldOut: boolean, examples = 1): void {
    if (examples <= 0) return;
    if (heldOut) {
      this.validation += examples;
      this.validationScenarios.add(source.scenario.id);
    } else {
      this.train += examples;
      this.trainScenarios.add(source.scenario.id);
    }
    this.byTier.set(source.scenario.tier, (this.byTier.get(source.scenario.tier) ?? 0) + examples);
    const agent = `${source[seat]} (${seat})`;
    this.byAgent.set(agent, (this.byAgent.get(agent) ?? 0) + examples);
    const share = seatOutcome(source, seat).share;
    if (share !== null) this.shares.push(share);
  }

  summary(): SftSummary {
    const sorted = [...this.shares].sort((a, b) => a - b);
    const q = (p: number): number | null => (sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number));
    // Ten bins over [0, 1]; a share outside (a deal at a loss for one side) goes to the end bin.
    const histogram = new Array<number>(10).fill(0);
    for (const s of sorted) histogram[Math.min(9, Math.max(0, Math.floor(s * 10)))]! += 1;
    return {
      examples: this.train + this.validation,
      train: this.train,
      validation: this.validation,
      scenarios: { train: this.trainScenarios.size, validation: this.validationScenarios.size },
      byTier: Object.fromEntries([...this.byTier].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      byAgent: Object.fromEntries([...this.byAgent].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
      share: {
        n: sorted.length,
        mean: sorted.length === 0 ? null : sorted.reduce((a, b) => a + b, 0) / sorted.length,
        min: sorted[0] ?? null,
        p25: q(0.25),
        median: q(0.5),
        p75: q(0.75),
        max: sorted.at(-1) ?? null,
        histogram,
      },
    };
  }
}
