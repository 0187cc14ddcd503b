/**
 * The Learn page's experiments: scripted strategy pairs played on one scenario or a seeded set,
 * each cell folded into the few figures a widget shows beside its closed form. Unsaved; progress
 * is reported and the loop yields to the worker's message queue often, so a stop arrives at once.
 */
import { Aggregator } from '../games/bilateral/aggregate';
import { playNegotiation } from '../games/bilateral/tournament';
import { createRng, deriveSeed } from '../engine/rng';
import { ratioOfSums } from '../engine/stats';
import { scenarioAt, type Role, type Scenario } from '../games/bilateral/scenario';
import { addGains, emptyGains } from '../games/bilateral/theory';
import { createAgentFactory } from '../games/bilateral/registry';
import { isModelSpec } from '../agents/specs';
import { parseAgentSpecs } from '../games/bilateral/specs';
import { OracleScorer } from '../games/bilateral/oracle-agents';
import { learnPlanned, type LearnCell, type LearnCellResult, type LearnExperiment } from './messages';
import type { Standings } from '../games/bilateral/aggregate';

export interface LearnOptions {
  signal?: AbortSignal;
  /** Called now and then while playing, and once at the end. */
  onProgress?: (done: number, planned: number) => void;
  /** Milliseconds, for pacing the progress reports and the yields. */
  now?: () => number;
}

export interface LearnOutcome {
  cancelled: boolean;
  done: number;
  planned: number;
  cells: LearnCellResult[];
  standings: Standings | null;
}

/** Play at most this long between yields to the message queue. */
const SLICE_MS = 30;

const yieldToQueue = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The scenario of cell negotiation `i`. */
const scenarioOf = (cell: LearnCell, i: number): Scenario => (cell.scenarios.kind === 'one' ? cell.scenarios.scenario : scenarioAt(cell.scenarios, i));

const countOf = (cell: LearnCell): number => (cell.scenarios.kind === 'one' ? 1 : cell.scenarios.count);

/** Sums for one cell while it plays. */
class CellTally {
  n = 0;
  errors = 0;
  gft = 0;
  gftDeals = 0;
  lossDeals = 0;
  buyerShare = 0;
  sellerShare = 0;
  gains = emptyGains();
  first: LearnCellResult['first'] = null;

  result(): LearnCellResult {
    return {
      n: this.n,
      errors: this.errors,
      gft: this.gft,
      gftDeals: this.gftDeals,
      lossDeals: this.lossDeals,
      dealRate: ratioOfSums(this.gftDeals, this.gft),
      buyerShare: ratioOfSums(this.buyerShare, this.gftDeals),
      sellerShare: ratioOfSums(this.sellerShare, this.gftDeals),
      buyerExpectedShare: ratioOfSums(this.buyerShare, this.gft),
      sellerExpectedShare: ratioOfSums(this.sellerShare, this.gft),
      gains: { ...this.gains },
      first: this.first,
    };
  }
}

/** Checks that every spec is a scripted strategy; the error is a sentence for the page. */
function checkSpecs(experiment: LearnExperiment): void {
  const texts = [...new Set(experiment.cells.flatMap((c) => [c.buyer, c.seller]))];
  const parsed = parseAgentSpecs(texts);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const model = parsed.value.find(isModelSpec);
  if (model) throw new Error(`the Learn page plays scripted strategies only, not ${model.label}`);
}

/** Plays every cell of `experiment` in order; stopped by `signal`, it returns what it finished. */
export async function runLearnExperiment(experiment: LearnExperiment, opts: LearnOptions = {}): Promise<LearnOutcome> {
  checkSpecs(experiment);
  const now = opts.now ?? (() => 0);
  const planned = learnPlanned(experiment);
  const makeAgent = createAgentFactory();
  const aggregator = experiment.standings ? new Aggregator() : null;
  const scorer = aggregator ? new OracleScorer() : null;
  const cells: LearnCellResult[] = [];
  let done = 0;
  let sliceStart = now();
  let cancelled = false;
  opts.onProgress?.(0, planned);
  outer: for (const [c, cell] of experiment.cells.entries()) {
    const tally = new CellTally();
    for (let i = 0; i < countOf(cell); i++) {
      if (now() - sliceStart >= SLICE_MS) {
        opts.onProgress?.(done, planned);
        await yieldToQueue();
        sliceStart = now();
      }
      if (opts.signal?.aborted) {
        cells.push(tally.result());
        cancelled = true;
        break outer;
      }
      const scenario = scenarioOf(cell, i);
      const seat = (role: Role) => {
        const seed = deriveSeed(experiment.seed, 'learn', c, i, role);
        return { rng: createRng(seed), jobId: `learn-${c}-${i}`, seed };
      };
      const played = await playNegotiation(scenario, {
        buyer: makeAgent(cell.buyer, 'buyer', seat('buyer')),
        seller: makeAgent(cell.seller, 'seller', seat('seller')),
      });
      const m = played.metrics;
      tally.n++;
      tally.first ??= { price: m.price, outcome: m.outcome, turns: m.turnsUsed };
      if (aggregator && scorer) aggregator.add(cell.buyer, cell.seller, scenario, scorer.score(cell.buyer, cell.seller, scenario, m));
      done++;
      if (m.outcome === 'error') {
        tally.errors++;
        continue;
      }
      addGains(tally.gains, scenario.buyerValue, scenario.sellerCost, scenario.item.listPrice, m.deal);
      if (m.gft) {
        tally.gft++;
        if (m.deal) {
          tally.gftDeals++;
          tally.buyerShare += m.buyer.share ?? 0;
          tally.sellerShare += m.seller.share ?? 0;
        }
      } else if (m.deal) tally.lossDeals++;
    }
    cells.push(tally.result());
  }
  opts.onProgress?.(done, planned);
  return { cancelled, done, planned, cells, standings: aggregator ? aggregator.standings({ samples: 0 }) : null };
}
