/** The market game in storage: a run's lines are its markets (storage/market-schema.ts). */
import type { z } from 'zod';
import { MarketLineSchema, type MarketColumns, type MarketLine, type MarketRunRow } from '../market-schema';
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

export const marketStore: GameStore<'market', MarketRunRow, MarketLine, MarketColumns> = {
  game: 'market',
  item: 'market',
  items: 'markets',
  checkRun: checkMarketRunRow,
  // Parsed events are ones the runner could have written (events.ts checks it).
  line: MarketLineSchema as unknown as z.ZodType<MarketLine>,
  jobId: (line) => line.id,
  index: (line) => line.index,
  json: (line) => JSON.stringify(exported(line)),
  columns: () => ({}),
};
