/**
 * The Learn widgets' experiments as data for the worker, and the scenarios they play: small by
 * default (a few hundred scripted negotiations), the same seed giving the same scenarios.
 */
import { makeScenario, type Deadline, type FirstMoverChoice, type Preset, type Role, type Scenario } from '../../../games/bilateral/scenario';
import type { LearnCell, LearnExperiment } from '../../../worker/messages';

/** The deterministic scripted strategies, in the order the app lists them. */
export const LEARN_STRATEGIES = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler'] as const;
/** The strategies that concede over time (a hardliner never does, so it never closes against itself). */
export const CONCEDING = ['boulware', 'linear', 'conceder', 'tit-for-tat'] as const;
/**
 * The private-information widget's strategies: two time-based ones (boulware holds out, linear
 * concedes evenly), tit-for-tat, and the hardliner, which trades only when the zone is wider than
 * its anchor.
 */
export const PRIVATE_INFO_STRATEGIES = ['boulware', 'linear', 'tit-for-tat', 'hardliner'] as const;

/** The zone widget's item: a list price of $100, so dollars read as percentages of it. */
export const ZONE_ITEM = { id: 'learn-bicycle', name: 'Used bicycle', category: 'sports', listPrice: 100 } as const;

/** The zone widget's one scenario: the seller opens; the limit is 20, the agents know only 16–24. */
export const zoneScenario = (buyerValue: number, sellerCost: number): Scenario =>
  makeScenario('learn-zone', ZONE_ITEM, buyerValue, sellerCost, { turnLimit: 20, turnRange: { min: 16, max: 24 }, firstMover: 'seller' });

/** The app's default deadline: neither side knows the last turn, so neither gets the last word by construction. */
const UNCERTAIN: Deadline = { kind: 'uncertain', min: 16, max: 24 };

/** Every ordered pair of `strategies` (self-play included) on one scenario. */
export function zoneExperiment(scenario: Scenario, strategies: readonly string[]): LearnExperiment {
  const cells: LearnCell[] = strategies.flatMap((buyer) => strategies.map((seller) => ({ buyer, seller, scenarios: { kind: 'one' as const, scenario } })));
  return { seed: 1, standings: false, cells };
}

const set = (preset: Preset, seed: number, count: number, deadline: Deadline, firstMover: FirstMoverChoice) =>
  ({ kind: 'set', preset, seed, count, deadline, firstMover }) as const;

/** Each strategy against itself under a turn limit, fixed (known) or uncertain around it. */
export function horizonExperiment(turns: number, known: boolean, firstMover: Role, count: number, strategies: readonly string[]): LearnExperiment {
  const spread = Math.max(1, Math.round(turns * 0.2));
  const deadline: Deadline = known ? { kind: 'fixed', turns } : { kind: 'uncertain', min: Math.max(1, turns - spread), max: turns + spread };
  return {
    seed: 1,
    standings: false,
    cells: strategies.map((s) => ({ buyer: s, seller: s, scenarios: set('standard', 1, count, deadline, firstMover) })),
  };
}

/** Every ordered pair of `strategies` on uniform-value scenarios (the Myerson–Satterthwaite setting). */
export function uniformExperiment(strategies: readonly string[], count: number, seed: number): LearnExperiment {
  const scenarios = set('uniform', seed, count, UNCERTAIN, 'alternate');
  return {
    seed,
    standings: false,
    cells: strategies.flatMap((buyer) => strategies.map((seller) => ({ buyer, seller, scenarios }))),
  };
}

export const SWEEPS = {
  kappa: { label: 'opening κ (the way already conceded)', values: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.95] },
  beta: { label: 'concession speed β', values: [0.1, 0.25, 0.5, 1, 2, 4, 10] },
} as const;
export type SweepKind = keyof typeof SWEEPS;

/** The swept agent: boulware with one parameter set (β = 0.25 and κ = 0, NegMAS's, otherwise). */
export const sweptSpec = (kind: SweepKind, value: number): string => `boulware:${kind}=${value}`;

/** The swept agent at each value, in `role`, against one opponent on the standard preset. */
export function sweepExperiment(kind: SweepKind, role: Role, opponent: string, count: number): LearnExperiment {
  const scenarios = set('standard', 1, count, UNCERTAIN, 'alternate');
  return {
    seed: 1,
    standings: false,
    cells: SWEEPS[kind].values.map((value) => {
      const swept = sweptSpec(kind, value);
      return {
        buyer: role === 'buyer' ? swept : opponent,
        seller: role === 'seller' ? swept : opponent,
        scenarios,
      };
    }),
  };
}

/** One strategy in one role against each other strategy, on standard, wide and narrow zones, aggregated into standings. */
export function tiersExperiment(strategy: string, role: Role, count: number, opponents: readonly string[]): LearnExperiment {
  const presets: Preset[] = ['standard', 'wide', 'narrow'];
  return {
    seed: 1,
    standings: true,
    cells: opponents
      .filter((o) => o !== strategy)
      .flatMap((opponent) =>
        presets.map((preset) => ({
          buyer: role === 'buyer' ? strategy : opponent,
          seller: role === 'seller' ? strategy : opponent,
          scenarios: set(preset, 1, count, UNCERTAIN, 'alternate'),
        })),
      ),
  };
}
