/**
 * Market tournament standings: per configuration and seller, the mean of each metric over the
 * markets with a 95% interval (markets are the units; see docs/market-metrics.md, "Standings").
 * Gathered one market at a time in constant memory per row.
 */
import { z } from 'zod';
import { createRng, deriveSeed } from '../../engine/rng';
import { RatioMoments, ratioInterval, type Interval } from '../../engine/stats';
import type { MarketMetrics } from './metrics';
import type { Same } from '../../engine/types';

/** The metrics a standings row averages, and whether each lies in [0, 1] (for the interval's shape). */
export const STANDING_METRICS = [
  ['constraintAdherence', true],
  ['sellerSurplus', false],
  ['buyerSurplus', false],
  ['extraction', false],
  ['allocationQuality', false],
  ['optimalWelfare', false],
  ['realisedWelfare', false],
  ['sellThrough', true],
  ['budgetUsed', true],
] as const satisfies readonly (readonly [keyof MarketMetrics, boolean])[];
export type StandingMetric = (typeof STANDING_METRICS)[number][0];

export interface Estimate {
  value: number | null;
  ci: Interval | null;
}

/** `config`: one configuration; `presets` and `held-out`: every market of that group together. */
export type StandingScope = 'config' | 'presets' | 'held-out';

export interface MarketStandingRow {
  scope: StandingScope;
  /** The configuration's name (for a group row, the group's). */
  config: string;
  heldOut: boolean;
  seller: string;
  /** Markets scored (errors excluded). */
  n: number;
  /** Markets that ended in an error: they enter no mean. */
  errors: number;
  metrics: Record<StandingMetric, Estimate>;
}

class Cell {
  n = 0;
  errors = 0;
  readonly moments = STANDING_METRICS.map(() => new RatioMoments());
  constructor(
    readonly scope: StandingScope,
    readonly config: string,
    readonly heldOut: boolean,
    readonly seller: string,
  ) {}
}

export class MarketAggregator {
  private readonly cells = new Map<string, Cell>();
  count = 0;

  /** One market's result; an errored or cancelled market counts only in `errors`. */
  add(config: string, heldOut: boolean, seller: string, metrics: MarketMetrics): void {
    this.count++;
    const failed = metrics.outcome === 'error' || metrics.outcome === 'cancelled';
    const group = heldOut ? 'held-out' : 'presets';
    for (const [scope, name] of [
      ['config', config],
      [group, group],
    ] as const) {
      const key = `${scope}|${name}|${seller}`;
      let cell = this.cells.get(key);
      if (!cell) this.cells.set(key, (cell = new Cell(scope, name, heldOut, seller)));
      if (failed) {
        cell.errors++;
        continue;
      }
      cell.n++;
      STANDING_METRICS.forEach(([metric], k) => {
        const value = metrics[metric];
        (cell.moments[k] as RatioMoments).add(value ?? 0, value === null ? 0 : 1);
      });
    }
  }

  /** Rows in the order configurations and sellers were first seen; group rows after the configurations. */
  standings(opts: { samples: number; seed: number }): MarketStandingRow[] {
    const rows: MarketStandingRow[] = [];
    const cells = [...this.cells.values()];
    const ordered = [...cells.filter((c) => c.scope === 'config'), ...cells.filter((c) => c.scope !== 'config')];
    for (const cell of ordered) {
      const rng = createRng(deriveSeed(opts.seed, 'market-standings', cell.scope, cell.config, cell.seller));
      const metrics = {} as Record<StandingMetric, Estimate>;
      STANDING_METRICS.forEach(([metric, bounded], k) => {
        const { value, ci } = ratioInterval(cell.moments[k] as RatioMoments, bounded, rng, opts.samples);
        metrics[metric] = { value, ci: opts.samples > 0 ? ci : null };
      });
      rows.push({ scope: cell.scope, config: cell.config, heldOut: cell.heldOut, seller: cell.seller, n: cell.n, errors: cell.errors, metrics });
    }
    return rows;
  }
}

const EstimateSchema = z.object({
  value: z.number().finite().nullable(),
  ci: z.tuple([z.number().finite(), z.number().finite()]).nullable(),
});
const metricsShape = Object.fromEntries(STANDING_METRICS.map(([metric]) => [metric, EstimateSchema])) as Record<StandingMetric, typeof EstimateSchema>;

/** A standings row as it crosses from the worker to the page. */
export const MarketStandingRowSchema = z.object({
  scope: z.enum(['config', 'presets', 'held-out']),
  config: z.string().min(1).max(200),
  heldOut: z.boolean(),
  seller: z.string().min(1).max(500),
  n: z.int().nonnegative(),
  errors: z.int().nonnegative(),
  metrics: z.object(metricsShape),
});

const rowsSame: Same<z.infer<typeof MarketStandingRowSchema>, MarketStandingRow> = true;
void rowsSame;
