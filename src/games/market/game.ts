/** The market as the engine plays it: every seller on the same markets of each configuration (see tournament.ts). */
import type { GameDef } from '../../engine/game';
import { andThen } from '../../engine/session';
import { MARKET_ROLES, type MarketRole } from './moves';
import {
  marketJobInPlan,
  plannedMarkets,
  planMarketJobs,
  playMarket,
  type MarketAgent,
  type MarketJob,
  type MarketTournamentConfig,
  type MarketTournamentResult,
} from './tournament';

export const marketGame: GameDef<MarketTournamentConfig, MarketJob, MarketRole, MarketAgent, MarketTournamentResult> = {
  name: 'market',
  roles: MARKET_ROLES,
  plan: planMarketJobs,
  plannedCount: plannedMarkets,
  inPlan: marketJobInPlan,
  seatSpec: (job, role) => job[role],
  play: (job, agents, opts) => andThen(playMarket(job.scenario, agents, { ...opts, optimalWelfare: job.optimalWelfare }), (played) => ({ ...job, ...played })),
  isCancelled: (result) => result.outcome.kind === 'cancelled',
};
