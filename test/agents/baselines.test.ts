/**
 * The scripted baselines as a field, on the default set-up (standard preset, the uncertain 16–24
 * deadline): no last word for either role, patience in the order the strategies' schedules imply,
 * a baseline whose results depend on the price tier, and shares that stay shares when a model
 * overpays. These are the claims of docs/scenarios-and-metrics.md about the baselines (docs/baselines.md
 * has the table).
 */
import { describe, expect, it } from 'vitest';
import { scriptedBackend } from '../../src/agents/backends/scripted';
import type { ChatRequest, ChatResponse } from '../../src/agents/backends/types';
import { llmAgent } from '../../src/games/bilateral/llm/agent';
import { makeAgent } from '../../src/games/bilateral/registry';
import { OracleScorer } from '../../src/games/bilateral/oracle-agents';
import { Aggregator, type LeaderboardRow, type Standings } from '../../src/games/bilateral/aggregate';
import type { BilateralAgentFactory, TournamentConfig } from '../../src/games/bilateral/tournament';
import type { Role } from '../../src/games/bilateral/scenario';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

async function standings(config: Partial<TournamentConfig> & Pick<TournamentConfig, 'agents'>, factory: BilateralAgentFactory = makeAgent): Promise<Standings> {
  const aggregator = new Aggregator();
  const scorer = new OracleScorer();
  await runTournament(bilateralGame, { scenariosPerPair: 300, preset: 'standard', seed: 11, selfPlay: false, ...config }, factory, {
    onResult: (r) => aggregator.add(r.buyer, r.seller, r.scenario, scorer.score(r.buyer, r.seller, r.scenario, r.metrics)),
  });
  return aggregator.standings({ samples: 0 });
}

const row = (rows: readonly LeaderboardRow[], agent: string, role: Role): LeaderboardRow => {
  const r = rows.find((x) => x.agent === agent && x.role === role);
  if (!r) throw new Error(`no row for ${agent} as ${role}`);
  return r;
};

/** The time-based and reactive strategies: each concedes over time or in answer to the other side. */
const CONCEDING = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'accommodator', 'haggler'];

describe('no last word by construction (default deadline, standard preset)', () => {
  it.each(CONCEDING)('%s against itself: the seller’s share is between 0.35 and 0.65 whoever opens', async (name) => {
    for (const firstMover of ['seller', 'buyer'] as const) {
      const { pairs } = await standings({ agents: [name], selfPlay: true, firstMover });
      const self = pairs.find((p) => p.buyer === name && p.seller === name);
      expect([firstMover, self?.sellerShare]).toEqual([firstMover, expect.any(Number)]);
      expect([name, firstMover, (self?.sellerShare as number) >= 0.35 && (self?.sellerShare as number) <= 0.65]).toEqual([name, firstMover, true]);
    }
  });
});

describe('the field of deterministic baselines', () => {
  const field = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler'];

  it('patience: boulware above linear, linear at least conceder, in both roles (an acceptance is a concession)', async () => {
    const { leaderboard } = await standings({ agents: field });
    for (const role of ['buyer', 'seller'] as const) {
      const patience = (n: string) => row(leaderboard, n, role).patience as number;
      expect([role, patience('boulware') > patience('linear')]).toEqual([role, true]);
      expect([role, patience('linear') >= patience('conceder')]).toEqual([role, true]);
      // the hardliner never concedes: its patience is 1 wherever it is observed
      expect(row(leaderboard, 'hardliner', role).patience).toBe(1);
    }
  });

  it('the trade-off between share and deals: boulware takes the largest share of its deals and closes fewest of its conceding peers', async () => {
    const { leaderboard } = await standings({ agents: ['boulware', 'linear', 'conceder'] });
    for (const role of ['buyer', 'seller'] as const) {
      const [b, l, c] = ['boulware', 'linear', 'conceder'].map((n) => row(leaderboard, n, role));
      expect((b as LeaderboardRow).surplusShare as number).toBeGreaterThan((l as LeaderboardRow).surplusShare as number);
      expect((l as LeaderboardRow).surplusShare as number).toBeGreaterThan((c as LeaderboardRow).surplusShare as number);
      expect((b as LeaderboardRow).dealRate as number).toBeLessThan((l as LeaderboardRow).dealRate as number);
      expect((l as LeaderboardRow).dealRate as number).toBeLessThan((c as LeaderboardRow).dealRate as number);
    }
  });

  it('the haggler’s expected share spreads at least 0.10 across price tiers; the NegMAS strategies against proportional opponents stay flat', async () => {
    const spread = (s: Standings, agent: string, role: Role) => {
      const values = s.byTier.filter((r) => r.agent === agent && r.role === role).map((r) => r.expectedSurplusShare as number);
      expect(values).toHaveLength(5);
      return Math.max(...values) - Math.min(...values);
    };
    const all = await standings({ agents: field });
    // Flat up to sampling noise: at 1,000 scenarios a pair a tier holds about 200 of them, and
    // boulware's deals hinge on the last turns, so its five tiers still spread by up to 0.08.
    const proportional = await standings({ agents: field.filter((n) => n !== 'haggler'), scenariosPerPair: 1000 });
    for (const role of ['buyer', 'seller'] as const) {
      expect([role, spread(all, 'haggler', role) >= 0.1]).toEqual([role, true]);
      for (const name of ['boulware', 'linear', 'conceder']) expect([name, role, spread(proportional, name, role) <= 0.1]).toEqual([name, role, true]);
      expect(spread(all, 'haggler', role)).toBeGreaterThan(3 * spread(proportional, 'linear', role));
    }
  });

  it('no mean surplus share anywhere leaves [0, 1], and every oracle gap is at least 0', async () => {
    const s = await standings({ agents: [...field, 'random'], scenariosPerPair: 100 });
    for (const r of [...s.leaderboard, ...s.byTier, ...s.byZone]) {
      for (const x of [r.surplusShare, r.expectedSurplusShare, r.oracleShare, r.windfallShare]) if (x !== null) expect(x >= 0 && x <= 1).toBe(true);
      if (r.oracleGap !== null) expect(r.oracleGap).toBeGreaterThanOrEqual(0);
    }
    for (const p of s.pairs) for (const x of [p.buyerShare, p.sellerShare]) if (x !== null) expect(x >= 0 && x <= 1).toBe(true);
  });
});

describe('a model that overpays', () => {
  /** A buyer model that takes every offer on the table and otherwise bids twice the list price. */
  function overpayer() {
    const answer = (req: ChatRequest): ChatResponse => {
      const user = req.messages.find((m) => m.role === 'user')?.content ?? '';
      const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
      if (/you may accept it/.test(user)) return { text: '{"action":{"type":"accept"}}', tokensIn: 100, tokensOut: 5 };
      const list = Number(/list price \$(\d+(?:\.\d+)?)/.exec(system)?.[1] ?? '100');
      return { text: JSON.stringify({ action: { type: 'offer', price: 2 * list } }), tokensIn: 100, tokensOut: 9 };
    };
    return llmAgent(scriptedBackend(Array.from({ length: 64 }, () => answer)), { interface: 'json' });
  }
  const factory: BilateralAgentFactory = (spec, role, ctx) => (spec.includes(':') ? overpayer() : makeAgent(spec, role, ctx));

  it('is measured apart: its opponents keep shares in [0, 1], their gains from its violations show as such, and its losses as IR loss', async () => {
    const model = 'openai:overpayer';
    const s = await standings({ agents: [model, 'accommodator', 'boulware'], scenariosPerPair: 60 }, factory);
    const buyer = row(s.leaderboard, model, 'buyer');
    expect(buyer.irViolationRate).toBeGreaterThan(0.5);
    expect(buyer.irLoss).toBeGreaterThan(0);
    expect(buyer.surplusShare).toBeLessThanOrEqual(1);
    expect(buyer.surplusShare).toBeGreaterThanOrEqual(0);
    for (const seller of ['accommodator', 'boulware']) {
      const r = row(s.leaderboard, seller, 'seller');
      expect(r.surplusShare).toBeLessThanOrEqual(1);
      expect(r.surplusShare).toBeGreaterThanOrEqual(0);
    }
    // Against the model, nearly all of a seller's gains came from the model's overpaying; against each other, none.
    const pairOnly = await standings({ agents: [model, 'accommodator'], scenariosPerPair: 60 }, factory);
    expect(row(pairOnly.leaderboard, 'accommodator', 'seller').windfallShare).toBeGreaterThan(0.5);
    const clean = await standings({ agents: ['accommodator', 'boulware'], scenariosPerPair: 60 });
    expect(row(clean.leaderboard, 'accommodator', 'seller').windfallShare).toBe(0);
    // The model's oracle gap: it left most of what it could have got against these exact sellers.
    expect(buyer.oracleGap).toBeGreaterThan(0.5);
  });
});
