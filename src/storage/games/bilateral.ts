/** The bilateral game in storage: a run's lines are its negotiations (storage/schema.ts). */
import { ExportedNegotiationSchema, type ExportedNegotiation, type NegotiationColumns, type RunRow } from '../schema';
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

export const bilateralStore: GameStore<'bilateral', RunRow, ExportedNegotiation, NegotiationColumns> = {
  game: 'bilateral',
  item: 'negotiation',
  items: 'negotiations',
  checkRun: checkRunRow,
  line: ExportedNegotiationSchema,
  jobId: (line) => line.jobId,
  index: (line) => line.index,
  json: (line) => JSON.stringify(exported(line)),
  columns: (lines) => ({
    buyers: lines.map((l) => l.buyer),
    sellers: lines.map((l) => l.seller),
    outcomes: lines.map((l) => l.outcome),
    tiers: lines.map((l) => l.tier),
  }),
};
