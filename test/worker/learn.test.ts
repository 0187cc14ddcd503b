import { describe, expect, test } from 'vitest';
import { runLearnExperiment } from '../../src/worker/learn';
import { LearnExperimentSchema, type LearnExperiment } from '../../src/worker/messages';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { makeAgent } from '../../src/games/bilateral/registry';
import { createRng } from '../../src/engine/rng';
import { generateScenarios, type Role } from '../../src/games/bilateral/scenario';

const seat = (spec: string, role: Role) => makeAgent(spec, role, { rng: createRng(1), jobId: 't', seed: 1 });
const set = { kind: 'set', preset: 'uniform', seed: 3, count: 12, deadline: { kind: 'fixed', turns: 10 }, firstMover: 'seller' } as const;

describe('a Learn experiment', () => {
  test("a cell on one scenario reports that negotiation's price, as the core plays it", async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 4, count: 1 })[0]!;
    const outcome = await runLearnExperiment({
      seed: 1,
      standings: false,
      cells: [{ buyer: 'boulware', seller: 'conceder', scenarios: { kind: 'one', scenario } }],
    });
    const expected = await playNegotiation(scenario, { buyer: seat('boulware', 'buyer'), seller: seat('conceder', 'seller') });
    expect(outcome.cells[0]?.first).toEqual({ price: expected.metrics.price, outcome: expected.metrics.outcome, turns: expected.metrics.turnsUsed });
    expect(outcome.cells[0]?.n).toBe(1);
    expect(outcome).toMatchObject({ cancelled: false, done: 1, planned: 1, standings: null });
  });

  test('a cell on a set counts deals and shares over exactly the scenarios the core generates, and the gains they carry', async () => {
    const outcome = await runLearnExperiment({ seed: 1, standings: true, cells: [{ buyer: 'linear', seller: 'tit-for-tat', scenarios: set }] });
    let gft = 0;
    let deals = 0;
    let sellerShare = 0;
    let realised = 0;
    let firstBest = 0;
    for (const s of generateScenarios({ ...set })) {
      const { metrics } = await playNegotiation(s, { buyer: seat('linear', 'buyer'), seller: seat('tit-for-tat', 'seller') });
      const gains = (s.buyerValue - s.sellerCost) / s.item.listPrice;
      if (metrics.deal) realised += gains;
      if (gains > 0) firstBest += gains;
      if (metrics.gft) gft++;
      if (metrics.gft && metrics.deal) {
        deals++;
        sellerShare += metrics.seller.share!;
      }
    }
    const cell = outcome.cells[0]!;
    expect(gft).toBeGreaterThan(0);
    expect(cell).toMatchObject({ n: 12, gft, gftDeals: deals, errors: 0 });
    expect(cell.dealRate).toBeCloseTo(deals / gft, 12);
    expect(cell.sellerShare).toBeCloseTo(sellerShare / deals, 12);
    expect(cell.gains.realised).toBeCloseTo(realised, 12);
    expect(cell.gains.firstBest).toBeCloseTo(firstBest, 12);
    expect(outcome.standings?.leaderboard.find((r) => r.agent === 'linear' && r.role === 'buyer')?.n).toBe(12);
  });

  test('stopped part way, it returns what it finished and says so', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    let clock = 0;
    const outcome = await runLearnExperiment(
      {
        seed: 1,
        standings: false,
        cells: [
          { buyer: 'boulware', seller: 'linear', scenarios: set },
          { buyer: 'linear', seller: 'boulware', scenarios: set },
        ],
      },
      {
        signal: controller.signal,
        // Each reading of the clock moves it on a slice, so every negotiation reports first; the stop comes after five.
        now: () => (clock += 100),
        onProgress: (done) => {
          seen.push(done);
          if (done === 5) controller.abort();
        },
      },
    );
    expect(outcome).toMatchObject({ cancelled: true, done: 5, planned: 24 });
    expect(outcome.cells).toHaveLength(1);
    expect(outcome.cells[0]?.n).toBe(5);
    expect(seen.slice(0, 3)).toEqual([0, 0, 1]);
  });

  test('refuses a model seat, and the schema refuses an experiment over its size', async () => {
    const scenario = generateScenarios({ preset: 'standard', seed: 4, count: 1 })[0]!;
    const withModel: LearnExperiment = {
      seed: 1,
      standings: false,
      cells: [{ buyer: 'openai:gpt-4o-mini', seller: 'linear', scenarios: { kind: 'one', scenario } }],
    };
    await expect(runLearnExperiment(withModel)).rejects.toThrow(/scripted strategies only/);
    const huge = {
      seed: 1,
      standings: false,
      cells: Array.from({ length: 11 }, () => ({ buyer: 'linear', seller: 'linear', scenarios: { ...set, count: 2000 } })),
    };
    expect(LearnExperimentSchema.safeParse(huge).success).toBe(false);
    expect(LearnExperimentSchema.safeParse({ ...huge, cells: huge.cells.slice(0, 10) }).success).toBe(true);
  });
});
