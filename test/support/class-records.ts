/**
 * Three Arena games written out by hand, event by event, as the class export reads them: a student
 * against a bot who strike a deal (messages with a comma and quotes), two students in pass and play
 * (one with a name that looks like a spreadsheet formula) where the seller walks away, and two bots
 * without gains from trade who run out of turns over an item whose name needs quoting. `CLASS_GAMES_CSV` and `CLASS_RANKING_CSV` are what
 * the page built from them before the worker built the class files: the golden text the files keep.
 */
import type { BilateralEvent } from '../../src/games/bilateral/events';
import type { Scenario } from '../../src/games/bilateral/scenario';
import type { ParleyDb } from '../../src/storage/db';
import { addBatches } from '../../src/storage/batches';
import { bilateralStore } from '../../src/storage/games/bilateral';
import { createRun, updateRun } from '../../src/storage/runs';
import { negotiationId, type NegotiationRow } from '../../src/storage/schema';
import type { StoredGame } from '../../src/ui/class-export';

/** 14 March 2031, 09:00 UTC, and the games a minute apart. */
export const CLASS_DAY = Date.UTC(2031, 2, 14, 9);

const blender: Scenario = {
  id: 'hand-blender',
  item: { id: 'blender', name: 'a blender', category: 'kitchen', listPrice: 120 },
  buyerValue: 100,
  sellerCost: 60,
  tier: 3,
  turnLimit: 6,
  firstMover: 'seller',
};
const lamp: Scenario = {
  id: 'hand-lamp',
  item: { id: 'desk-lamp', name: 'a desk lamp', category: 'home', listPrice: 40 },
  buyerValue: 36,
  sellerCost: 20,
  tier: 1,
  turnLimit: 4,
  firstMover: 'buyer',
};
const kettle: Scenario = {
  id: 'hand-kettle',
  item: { id: 'kettle', name: 'a kettle, "steel"', category: 'kitchen', listPrice: 50 },
  buyerValue: 25,
  sellerCost: 30,
  tier: 2,
  turnLimit: 2,
  firstMover: 'seller',
};

const deal: BilateralEvent[] = [
  { type: 'move', turn: 0, actor: 'seller', move: { message: 'Fair, at 110', action: { type: 'offer', price: 110 } } },
  { type: 'move', turn: 1, actor: 'buyer', move: { message: 'Too much, "really"', action: { type: 'offer', price: 70 } } },
  { type: 'move', turn: 2, actor: 'seller', move: { action: { type: 'offer', price: 90 } } },
  { type: 'move', turn: 3, actor: 'buyer', move: { message: 'Done.', action: { type: 'accept' } } },
  { type: 'end', turn: 3, outcome: { kind: 'deal', price: 90, turn: 3, acceptedBy: 'buyer' } },
];
const walkAway: BilateralEvent[] = [
  { type: 'move', turn: 0, actor: 'buyer', move: { action: { type: 'offer', price: 15 } } },
  { type: 'move', turn: 1, actor: 'seller', move: { message: 'No.', action: { type: 'walk_away' } } },
  { type: 'end', turn: 1, outcome: { kind: 'walk_away', by: 'seller', turn: 1 } },
];
const turnLimit: BilateralEvent[] = [
  { type: 'move', turn: 0, actor: 'seller', move: { action: { type: 'offer', price: 45 } } },
  { type: 'move', turn: 1, actor: 'buyer', move: { message: 'Hm' } },
  { type: 'end', turn: 2, outcome: { kind: 'turn_limit', turn: 2 } },
];

export const HAND_MADE_GAMES: readonly StoredGame[] = [
  {
    runId: 'hand-deal',
    runName: 'Ada: human buys a blender from linear',
    createdAt: CLASS_DAY,
    buyer: 'human',
    seller: 'linear',
    scenario: blender,
    events: deal,
  },
  {
    runId: 'hand-walk',
    runName: 'Ben (buyer), =SUM(1) (seller): human buys a desk lamp from human',
    createdAt: CLASS_DAY + 60_000,
    buyer: 'human',
    seller: 'human',
    scenario: lamp,
    events: walkAway,
  },
  {
    runId: 'hand-limit',
    runName: 'boulware buys a kettle, "steel" from conceder',
    createdAt: CLASS_DAY + 120_000,
    buyer: 'boulware',
    seller: 'conceder',
    scenario: kettle,
    events: turnLimit,
  },
];

/** What classGamesCsv wrote for HAND_MADE_GAMES on the page, before the worker built the file. */
export const CLASS_GAMES_CSV = `played_at,buyer,seller,buyer_is_student,seller_is_student,item,list_price,buyer_value,seller_cost,turn_limit,first_mover,outcome,price,turns_used,buyer_share,seller_share,buyer_ir_violation,seller_ir_violation,moves,run_id
2031-03-14T09:00:00.000Z,Ada,linear,1,0,a blender,120,100,60,6,seller,deal,90,3,0.25,0.75,0,0,1 seller offer 110; 2 buyer offer 70; 3 seller offer 90; 4 buyer accept,hand-deal
2031-03-14T09:01:00.000Z,Ben,'=SUM(1),1,1,a desk lamp,40,36,20,4,buyer,walk_away,,1,,,0,0,1 buyer offer 15; 2 seller walk_away,hand-walk
2031-03-14T09:02:00.000Z,boulware,conceder,0,0,"a kettle, ""steel""",50,25,30,2,seller,turn_limit,,2,,,0,0,1 seller offer 45; 2 buyer message,hand-limit
`;

/** What classRankingCsv wrote for HAND_MADE_GAMES on the page. */
export const CLASS_RANKING_CSV = `rank,name,kind,games,gft_games,deals,mean_share,expected_share,ir_violations
1,linear,bot,1,1,1,0.75,0.75,0
2,Ada,student,1,1,1,0.25,0.25,0
3,'=SUM(1),student,1,1,0,,0,0
4,Ben,student,1,1,0,,0,0
5,boulware,bot,1,0,0,,,0
6,conceder,bot,1,0,0,,,0
`;

/** Stores the hand-made games in `db` as finished Arena runs, each with its one negotiation. */
export async function storeHandMadeGames(db: ParleyDb): Promise<void> {
  for (const game of HAND_MADE_GAMES) {
    await createRun(db, {
      id: game.runId,
      name: game.runName,
      config: { kind: 'arena', buyer: game.buyer, seller: game.seller, scenario: game.scenario },
      planned: 1,
      createdAt: game.createdAt,
    });
    const end = game.events.at(-1);
    if (end?.type !== 'end') throw new Error('a hand-made game ends with its end event');
    const row: NegotiationRow = {
      id: negotiationId(game.runId, '0'),
      runId: game.runId,
      jobId: '0',
      index: 0,
      buyer: game.buyer,
      seller: game.seller,
      tier: game.scenario.tier,
      outcome: end.outcome.kind,
      scenario: game.scenario,
      events: [...game.events],
    };
    await addBatches(db, bilateralStore, game.runId, [row]);
    await updateRun(db, game.runId, { status: 'done', done: 1 });
  }
}
