/**
 * The ultimatum game's parts beyond the engine, for `registerGame` (src/runs/index.ts): its store
 * descriptor (a run row, a line), its run files' part (the checks against its own plan and log) and
 * its run descriptor (settings, seats, tally). docs/games.md walks through them.
 */
import { z } from 'zod';
import { failureSchemas, invalidFields } from '../../../src/engine/events';
import { replayEvents } from '../../../src/engine/replay';
import { err, ok } from '../../../src/engine/result';
import type { JsonlLines } from '../../../src/cli/jsonl';
import type { GameBundle } from '../../../src/runs/index';
import type { RunGameOver } from '../../../src/runs/game';
import { EXPORT_VERSION } from '../../../src/storage/run-file';
import { fail, firstDifference } from '../../../src/storage/file-format';
import type { FileRecordOf, GameFiles, GameStore, StoredRunBase } from '../../../src/storage/games/store';
import { RunStatusSchema } from '../../../src/storage/schema';
import { damaged, issueText } from '../../../src/storage/stored-records';
import { makeUltimatumAgent, ultimatum, ultimatumGame, type UltimatumConfig, type UltimatumOutcome, type UltimatumResult } from './ultimatum';

const int = z.int().nonnegative();
const role = z.enum(['proposer', 'responder']);
const Config = z.object({ proposers: z.array(z.string()).min(1), responders: z.array(z.string()).min(1), rounds: int, seed: int });
const Outcome = z.union([
  z.object({ kind: z.literal('split'), proposer: int, responder: int, turn: int }),
  z.object({ kind: z.literal('no_deal'), turn: int }),
  ...failureSchemas(role, int),
]);
const Event = z.discriminatedUnion('type', [
  z.object({ type: z.literal('move'), turn: int, actor: role, move: z.union([z.object({ offer: z.number() }), z.object({ accept: z.boolean() })]) }),
  z.object({ type: z.literal('invalid'), turn: int, actor: role, ...invalidFields }),
  z.object({ type: z.literal('forfeit'), turn: int, actor: role }),
  z.object({ type: z.literal('end'), turn: int, outcome: Outcome }),
]);
const Line = z.object({
  id: z.string(),
  index: int,
  round: int,
  proposer: z.string(),
  responder: z.string(),
  pie: int,
  events: z.array(Event),
  outcome: Outcome,
});
const Record = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  status: RunStatusSchema,
  config: Config,
  planned: int,
  done: int,
  message: z.string().nullable(),
});

type UltimatumRun = StoredRunBase<'ultimatum'> & { config: UltimatumConfig };
const StoredRow = Record.extend({ game: z.literal('ultimatum'), standings: z.unknown() });

export const ultimatumStore: GameStore<'ultimatum', UltimatumRun, UltimatumResult, object> = {
  game: 'ultimatum',
  item: 'game',
  items: 'games',
  checkRun: (raw) => {
    const parsed = StoredRow.safeParse(raw);
    return parsed.success ? ok({ run: parsed.data, note: null }) : err(damaged('ultimatum', raw, issueText(parsed.error)));
  },
  line: Line as z.ZodType<UltimatumResult>,
  jobId: (line) => line.id,
  index: (line) => line.index,
  json: (line) => JSON.stringify(line),
  columns: () => ({}),
};

/** The proposers' takings: what an import stores and a run ends with. */
type Standings = { proposer: string; games: number; earned: number }[];
const standingsOf = (lines: readonly UltimatumResult[]): Standings => {
  const by = new Map<string, { games: number; earned: number }>();
  for (const l of lines) {
    const row = by.get(l.proposer) ?? { games: 0, earned: 0 };
    by.set(l.proposer, { games: row.games + 1, earned: row.earned + (l.outcome.kind === 'split' ? l.outcome.proposer : 0) });
  }
  return [...by].map(([proposer, row]) => ({ proposer, ...row }));
};

const wording = {
  game: 'ultimatum game',
  describe: (o: UltimatumOutcome) => (o.kind === 'split' ? `a split of ${o.proposer} and ${o.responder}` : 'no deal'),
  sameOutcome: (claimed: unknown, reached: unknown) => firstDifference(claimed, reached, 'outcome') === null,
  stopsAt: (turn: number) => `turn ${turn}`,
};

export const ultimatumFiles: GameFiles<UltimatumRun, UltimatumResult, UltimatumResult> = {
  fileVersion: () => EXPORT_VERSION,
  exportLine: (json) => json,
  fileRecord: Record as z.ZodType<FileRecordOf<UltimatumRun>>,
  fileLine: Line as z.ZodType<UltimatumResult>,
  // The first `done` jobs of the run's own plan, in order, each log replayed through the protocol.
  checkFile: ({ run, lines, at }) => {
    if (run.planned !== ultimatumGame.plannedCount(run.config)) return fail('invalid-file', `${at}run.planned is not its config's plan`);
    if (lines.length !== run.done) return fail('invalid-file', `${at}run.done says ${run.done} games but the file holds ${lines.length}`);
    const plan = ultimatumGame.plan(run.config)[Symbol.iterator]();
    for (const { value: line, where } of lines) {
      const job = plan.next().value;
      const { events: _e, outcome: _o, ...planned } = line;
      const changed = firstDifference(planned, job, 'game');
      if (changed) return fail('invalid-file', `${where}: ${changed}: not the next game of the run's plan`);
      const replayed = replayEvents(ultimatum, { pie: line.pie }, line.events, wording, 2);
      if (!replayed.ok) return fail('invalid-file', `${where}: events[${replayed.error.event}]: ${replayed.error.reason}`);
    }
    return ok({ run, lines: lines.map((l) => l.value) });
  },
  standings: (_run, lines) => standingsOf(lines),
  importedStatus: (run) => (run.done === run.planned ? 'done' : 'cancelled'),
};

type Tally = UltimatumResult[];

export const ultimatumRuns: RunGameOver<'ultimatum', typeof ultimatumGame, UltimatumConfig, Tally, Standings> = {
  game: 'ultimatum',
  engine: ultimatumGame,
  create: (settings) => Config.parse(settings),
  tournament: (config) => Config.parse(config),
  seats: (config) => {
    const { proposers, responders } = Config.parse(config);
    return [...proposers, ...responders];
  },
  anyRemote: () => false,
  makeAgent: () => makeUltimatumAgent,
  line: (result) => result,
  tally: () => [],
  // The controller reads back what the writer stored from results.
  addLine: (tally, line) => void tally.push(line as UltimatumResult),
  addResult: (tally, result) => void tally.push(result),
  standings: (tally) => standingsOf(tally),
};

export const ultimatumParts: GameBundle = { store: ultimatumStore, files: ultimatumFiles, runs: ultimatumRuns };

/** Its run file's lines as the command line writes them: the stored line itself. */
export const ultimatumLines: JsonlLines<'ultimatum', UltimatumResult> = { game: 'ultimatum', line: (r) => JSON.stringify(r) };
