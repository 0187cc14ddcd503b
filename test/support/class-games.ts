/**
 * A class's Arena games as students' browsers store them: the anchoring lesson (a human buyer
 * against linear), the human seat played here by a scripted stand-in and recorded as `human`, the
 * game named after its student. Each comes as its run, its negotiation and its run file.
 */
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';
import { createAgentFactory } from '../../src/games/bilateral/registry';
import { HUMAN_SPEC } from '../../src/agents/specs';
import { arenaSeat, playNegotiation } from '../../src/games/bilateral/tournament';
import type { Scenario } from '../../src/games/bilateral/scenario';
import { jsonFile } from '../../src/storage/file-format';
import { EXPORT_FORMAT } from '../../src/storage/run-file';
import { exportedNegotiation, type ExportedNegotiation, type RunRecord } from '../../src/storage/schema';
import { playerRunName } from '../../src/ui/class-export';
import { lessonById } from '../../src/ui/lessons';
import { scenarioOf } from '../../src/ui/share-link';

export const LESSON_BOT = 'linear';

export function lessonScenario(): Scenario {
  const lesson = lessonById('anchoring');
  if (lesson?.page !== 'arena' || !lesson.setup.scenario) throw new Error('the anchoring lesson sets up an Arena scenario');
  const scenario = scenarioOf(lesson.setup.scenario);
  if (!scenario) throw new Error('the anchoring lesson has no scenario');
  return scenario;
}

/** How each stand-in plays the student's seat; several students play alike, as a class does. */
const STAND_INS = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler'];

export interface StudentGame {
  run: RunRecord;
  row: ExportedNegotiation;
  file: string;
}

export async function studentGame(player: string | null, n: number, createdAt: number, scenario = lessonScenario()): Promise<StudentGame> {
  const id = `game-${n}-${createdAt}`;
  const make = createAgentFactory();
  const standIn = STAND_INS[n % STAND_INS.length] as string;
  const played = await playNegotiation(scenario, {
    buyer: make(standIn, 'buyer', arenaSeat(id, 'buyer')),
    seller: make(LESSON_BOT, 'seller', arenaSeat(id, 'seller')),
  });
  const base = `${HUMAN_SPEC} buys ${scenario.item.name} from ${LESSON_BOT}`;
  const run: RunRecord = {
    id,
    name: player === null ? base : playerRunName(player, base),
    createdAt,
    updatedAt: createdAt,
    status: 'done',
    config: { kind: 'arena', buyer: HUMAN_SPEC, seller: LESSON_BOT, scenario, llm: { ...DEFAULT_LLM_SETTINGS } },
    planned: 1,
    done: 1,
    message: null,
  };
  const row = exportedNegotiation({ id: '0', index: 0, scenarioIndex: 0, buyer: HUMAN_SPEC, seller: LESSON_BOT, scenario, ...played });
  return { run, row, file: jsonFile({ format: EXPORT_FORMAT, version: 2, run }, 'negotiations', [JSON.stringify(row)]) };
}

/** `count` students, `Student 01`…, each game started a second after the one before. */
export const classGames = (count: number, from = 1_760_000_000_000): Promise<StudentGame[]> =>
  Promise.all(Array.from({ length: count }, (_, i) => studentGame(`Student ${String(i + 1).padStart(2, '0')}`, i, from + i * 1000)));

/** The same game with the bot's first offer changed by a dollar: what a forged file or link holds. */
export function forgedBotMove(game: StudentGame): StudentGame {
  const events = structuredClone(game.row.events);
  const at = events.findIndex((e) => e.type === 'move' && e.actor === 'seller' && e.move.action?.type === 'offer');
  const e = events[at];
  if (e?.type !== 'move' || e.move.action?.type !== 'offer') throw new Error('the bot never offered');
  e.move.action.price = Math.round((e.move.action.price + 1) * 100) / 100;
  const row = { ...game.row, events };
  return { run: game.run, row, file: jsonFile({ format: EXPORT_FORMAT, version: 2, run: game.run }, 'negotiations', [JSON.stringify(row)]) };
}
