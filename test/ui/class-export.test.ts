import { describe, expect, test } from 'vitest';
import { makeAgent } from '../../src/games/bilateral/registry';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { createRng } from '../../src/engine/rng';
import { generateScenarios, makeScenario, type Role, type Scenario } from '../../src/games/bilateral/scenario';
import { CATALOG } from '../../src/games/bilateral/catalog';
import { UNNAMED, classExport, playerOf, playerRunName, type StoredGame } from '../../src/ui/class-export';
import { CLASS_GAMES_CSV_HEADER, CLASS_RANKING_CSV_HEADER, classFileName, classGamesCsv, classRankingCsv } from '../../src/worker/class-files';
import { passAndPlayName } from '../../src/ui/pass-and-play';
import { PLAYER_NAME, PlayerNameSchema } from '../../src/ui/state/limits';

const agent = (spec: string, role: Role) => makeAgent(spec, role, { rng: createRng(1), jobId: 'class', seed: 1 });

/** A stored Arena game: `buyer`/`seller` as stored (`human` for the player's seat), played by scripted stand-ins. */
async function game(runName: string, buyer: string, seller: string, scenario: Scenario, createdAt: number): Promise<StoredGame> {
  const played = await playNegotiation(scenario, {
    buyer: agent(buyer === 'human' ? 'boulware' : buyer, 'buyer'),
    seller: agent(seller === 'human' ? 'linear' : seller, 'seller'),
  });
  return { runId: `run-${createdAt}`, runName, createdAt, buyer, seller, scenario, events: played.events };
}

const scenarios = generateScenarios({ preset: 'wide', seed: 9, count: 4, deadline: { kind: 'fixed', turns: 12 } });
const lamp = CATALOG.find((i) => i.id === 'desk-lamp')!;
const noGains = makeScenario('custom-desk-lamp-25-30', lamp, 25, 30, { turnLimit: 8, firstMover: 'seller' });

describe('class export', () => {
  test('a player name is cut at the one limit, alone or in pass and play, and the limit is the schema’s', () => {
    expect(PLAYER_NAME).toEqual({ min: 0, max: 60 });
    const long = 'A'.repeat(PLAYER_NAME.max + 5);
    expect(PlayerNameSchema.safeParse(long).success).toBe(false);
    expect(playerOf(playerRunName(long, 'human buys a blender from conceder'))).toBe('A'.repeat(PLAYER_NAME.max));
    const both = passAndPlayName({ buyer: long, seller: 'Ben' }, 'human buys a blender from human');
    expect(both.startsWith(`${'A'.repeat(PLAYER_NAME.max)} (buyer), Ben (seller): `)).toBe(true);
  });

  test("player names ride on the run's name, once", () => {
    expect(playerRunName('  Ada  ', 'human buys X from conceder')).toBe('Ada: human buys X from conceder');
    expect(playerOf('Ada: human buys X from conceder')).toBe('Ada');
    expect(playerOf('human buys X from conceder')).toBeNull();
  });

  test('each game with its scenario, moves, outcome and split; students and bots ranked by expected share', async () => {
    const games = [
      await game(playerRunName('Ada', 'human buys A from conceder'), 'human', 'conceder', scenarios[0]!, 1),
      await game(playerRunName('Ada', 'hardliner buys B from human'), 'hardliner', 'human', scenarios[1]!, 2),
      await game(playerRunName('Bo', 'human buys C from conceder'), 'human', 'conceder', scenarios[2]!, 3),
      await game('boulware buys D from linear', 'boulware', 'linear', scenarios[3]!, 4),
      await game('human buys a lamp from conceder', 'human', 'conceder', noGains, 5),
    ];
    const out = classExport(games);
    expect(out.format).toBe('parley-class');
    expect(out.games.map((g) => [g.buyer, g.seller, g.buyerIsHuman, g.sellerIsHuman])).toEqual([
      ['Ada', 'conceder', true, false],
      ['hardliner', 'Ada', false, true],
      ['Bo', 'conceder', true, false],
      ['boulware', 'linear', false, false],
      [UNNAMED, 'conceder', true, false],
    ]);
    // The split and moves are the event log's own.
    for (const [i, g] of out.games.entries()) {
      const source = games[i]!;
      const metrics = computeMetrics(source.scenario, source.events);
      expect([g.outcome, g.price, g.buyerShare, g.sellerShare]).toEqual([metrics.outcome, metrics.price, metrics.buyer.share, metrics.seller.share]);
      expect(g.moves).toHaveLength(source.events.filter((e) => e.type === 'move').length);
      expect(g.moves[0]?.turn).toBe(1);
      expect([g.item, g.buyerValue, g.sellerCost]).toEqual([source.scenario.item.name, source.scenario.buyerValue, source.scenario.sellerCost]);
    }

    // Ada: her buyer share in game 1 and seller share in game 2, averaged over her two games with gains from trade.
    const ada = out.ranking.find((r) => r.name === 'Ada' && r.kind === 'student')!;
    const shares = [out.games[0]!.buyerShare ?? 0, out.games[1]!.sellerShare ?? 0];
    expect(ada).toMatchObject({ games: 2, gftGames: 2 });
    expect(ada.expectedShare).toBeCloseTo((shares[0]! + shares[1]!) / 2, 12);
    // conceder sat in three games, one without gains from trade: it counts as played, not in the share.
    const conceder = out.ranking.find((r) => r.name === 'conceder')!;
    expect(conceder).toMatchObject({ kind: 'bot', games: 3, gftGames: 2 });
    expect(out.ranking.find((r) => r.name === UNNAMED)).toMatchObject({ kind: 'student', games: 1, gftGames: 0, expectedShare: null, deals: 0 });
    // Best first, ranks 1..n, no one listed twice.
    const expected = out.ranking.map((r) => r.expectedShare ?? -Infinity);
    expect(expected).toEqual([...expected].sort((a, b) => b - a));
    expect(out.ranking.map((r) => r.rank)).toEqual(out.ranking.map((_, i) => i + 1));
    expect(new Set(out.ranking.map((r) => `${r.kind}:${r.name}`)).size).toBe(out.ranking.length);

    const gamesCsv = classGamesCsv(out).trimEnd().split('\n');
    expect(gamesCsv[0]).toBe(CLASS_GAMES_CSV_HEADER.join(','));
    expect(gamesCsv).toHaveLength(1 + games.length);
    expect(gamesCsv[1]).toMatch(/,"?1 (seller|buyer) offer \d/);
    const rankingCsv = classRankingCsv(out).trimEnd().split('\n');
    expect(rankingCsv[0]).toBe(CLASS_RANKING_CSV_HEADER.join(','));
    expect(rankingCsv).toHaveLength(1 + out.ranking.length);
  });

  test('a name that looks like a formula stays text in the CSV', async () => {
    const out = classExport([await game(playerRunName('=HYPERLINK("x")', 'human buys A from conceder'), 'human', 'conceder', scenarios[0]!, 1)]);
    expect(classRankingCsv(out)).toContain(`"'=HYPERLINK(""x"")"`);
    expect(classGamesCsv(out)).toContain(`"'=HYPERLINK(""x"")"`);
  });

  test("a class's files are named after the day (UTC) they are made", () => {
    const lateOn14March = Date.UTC(2031, 2, 14, 23, 59);
    expect([classFileName('json', lateOn14March), classFileName('games', lateOn14March), classFileName('ranking', lateOn14March)]).toEqual([
      'parley-class-2031-03-14.json',
      'parley-class-games-2031-03-14.csv',
      'parley-class-ranking-2031-03-14.csv',
    ]);
  });
});
