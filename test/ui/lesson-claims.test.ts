/**
 * What the tournament lessons tell a class to look for is what their own set-ups give: each lesson's
 * tournament played in Node exactly as its share link configures it.
 */
import { describe, expect, it } from 'vitest';
import { makeAgent } from '../../src/games/bilateral/registry';
import { Aggregator, type Standings } from '../../src/games/bilateral/aggregate';
import { lessonById, type LessonId } from '../../src/ui/lessons';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

async function standingsOf(id: LessonId): Promise<Standings> {
  const lesson = lessonById(id);
  if (lesson?.page !== 'tournament') throw new Error(`${id} is not a tournament lesson`);
  const { agents, scenariosPerPair, preset, seed, selfPlay, deadline, firstMover } = lesson.setup as Required<typeof lesson.setup>;
  const aggregator = new Aggregator();
  await runTournament(bilateralGame, { agents: [...agents], scenariosPerPair, preset, seed, selfPlay, deadline, firstMover }, makeAgent, {
    onResult: (r) => aggregator.add(r.buyer, r.seller, r.scenario, r.metrics),
  });
  return aggregator.standings({ samples: 0 });
}

describe('the lessons’ claims, on their own set-ups', () => {
  it('private information: some scenarios with gains from trade end with no deal', async () => {
    const { leaderboard } = await standingsOf('private-information');
    for (const r of leaderboard) expect([r.agent, r.role, (r.dealRate as number) < 1]).toEqual([r.agent, r.role, true]);
  });

  it('price tiers: the haggler’s share swings across tiers far more than the proportional strategies’', async () => {
    const { byTier } = await standingsOf('price-tiers');
    const spread = (agent: string, role: 'buyer' | 'seller') => {
      const v = byTier.filter((r) => r.agent === agent && r.role === role).map((r) => r.expectedSurplusShare as number);
      return Math.max(...v) - Math.min(...v);
    };
    for (const role of ['buyer', 'seller'] as const) {
      expect(spread('haggler', role)).toBeGreaterThanOrEqual(0.1);
      expect(spread('haggler', role)).toBeGreaterThan(spread('conceder', role));
    }
  });

  it('patience: the more patient boulware takes a larger share of its deals than the conceder', async () => {
    const { leaderboard } = await standingsOf('patience');
    for (const role of ['buyer', 'seller'] as const) {
      const share = (agent: string) => leaderboard.find((r) => r.agent === agent && r.role === role)?.surplusShare as number;
      const patience = (agent: string) => leaderboard.find((r) => r.agent === agent && r.role === role)?.patience as number;
      expect(share('boulware')).toBeGreaterThan(share('conceder'));
      expect(patience('boulware')).toBeGreaterThan(patience('conceder'));
    }
  });
});
