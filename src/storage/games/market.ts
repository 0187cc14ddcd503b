/** The market game in storage: a run's lines are its markets (storage/market-schema.ts). */
import type { z } from 'zod';
import { computeMarketMetrics } from '../../core/market/metrics';
import { checkMarketFile, marketStandings } from '../market-file';
import {
  MarketFileLineSchema,
  MarketLineSchema,
  MarketRunRecordSchema,
  type MarketColumns,
  type MarketFileLine,
  type MarketLine,
  type MarketRunRow,
} from '../market-schema';
import { checkMarketRunRow } from '../stored-records';
import type { GameStore } from './store';

/** A market as a file holds it, with its keys in the file's order. */
const exported = (line: MarketLine): MarketLine => ({
  id: line.id,
  index: line.index,
  config: line.config,
  heldOut: line.heldOut,
  marketIndex: line.marketIndex,
  seller: line.seller,
  buyer: line.buyer,
  scenario: line.scenario,
  events: line.events,
  outcome: line.outcome,
});

export const marketStore: GameStore<'market', MarketRunRow, MarketLine, MarketFileLine, MarketColumns> = {
  game: 'market',
  item: 'market',
  items: 'markets',
  checkRun: checkMarketRunRow,
  // Parsed events are ones the runner could have written (events.ts checks it).
  line: MarketLineSchema as unknown as z.ZodType<MarketLine>,
  jobId: (line) => line.id,
  index: (line) => line.index,
  json: (line) => JSON.stringify(exported(line)),
  // Each line of a file carries its metrics, as the CLI's lines do: derived data, checked on import.
  exportLine: (json) => {
    const line = JSON.parse(json) as MarketLine;
    return JSON.stringify({ ...line, metrics: computeMarketMetrics(line.scenario, line.events) });
  },
  columns: () => ({}),
  fileVersion: () => 4,
  fileRecord: MarketRunRecordSchema,
  fileLine: MarketFileLineSchema as unknown as z.ZodType<MarketFileLine>,
  checkFile: checkMarketFile,
  standings: (run, lines) => marketStandings(run.config, lines),
  // A market tournament resumes from the Runs page, a market game is never resumed.
  importedStatus: (run) => (run.done === run.planned ? 'done' : 'cancelled'),
  legacyFormats: { json: 'parley-market', jsonl: 'parley-market-jsonl', version: 1 },
};
