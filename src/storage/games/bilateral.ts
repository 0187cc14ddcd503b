/** The bilateral game in storage: a run's lines are its negotiations (storage/schema.ts). */
import { bilateralStandings, checkBilateralFile, exportVersionOf } from '../bilateral-file';
import { sameStoredGame } from '../content';
import {
  ExportedLineSchema,
  ExportedNegotiationSchema,
  RunRecordSchema,
  type ExportedLine,
  type ExportedNegotiation,
  type NegotiationColumns,
  type RunRow,
} from '../schema';
import { checkRunRow } from '../stored-records';
import type { GameStore } from './store';

/** A negotiation as an export file holds it, with its keys in the file's order. */
export const exported = (row: ExportedNegotiation): ExportedNegotiation => ({
  jobId: row.jobId,
  index: row.index,
  buyer: row.buyer,
  seller: row.seller,
  tier: row.tier,
  outcome: row.outcome,
  scenario: row.scenario,
  events: row.events,
});

export const bilateralStore: GameStore<'bilateral', RunRow, ExportedNegotiation, ExportedLine, NegotiationColumns> = {
  game: 'bilateral',
  item: 'negotiation',
  items: 'negotiations',
  checkRun: checkRunRow,
  line: ExportedNegotiationSchema,
  jobId: (line) => line.jobId,
  index: (line) => line.index,
  json: (line) => JSON.stringify(exported(line)),
  // A negotiation is exported as it is stored.
  exportLine: (json) => json,
  columns: (lines) => ({
    buyers: lines.map((l) => l.buyer),
    sellers: lines.map((l) => l.seller),
    outcomes: lines.map((l) => l.outcome),
    tiers: lines.map((l) => l.tier),
  }),
  fileVersion: exportVersionOf,
  fileRecord: RunRecordSchema,
  fileLine: ExportedLineSchema,
  checkFile: checkBilateralFile,
  standings: bilateralStandings,
  // An unfinished tournament resumes by its plan (the file was checked against it); an Arena game
  // cannot resume, so one that never finished stays as it is.
  importedStatus: (run) => (run.done === run.planned ? 'done' : run.config.kind === 'tournament' ? 'interrupted' : 'cancelled'),
  // An Arena game counts once in a class's ranking; a tournament imported back is a copy, as it was.
  sameStored: (db, run, lines) => (run.config.kind === 'arena' ? sameStoredGame(db, run, lines) : Promise.resolve(null)),
};
