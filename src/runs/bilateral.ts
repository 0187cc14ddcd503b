/** The bilateral game's runs: a round robin of negotiations, scored against the oracle where it can be. */
import { OracleScorer, scoredMetrics } from '../games/bilateral/oracle-agents';
import { createAgentFactory } from '../games/bilateral/registry';
import { everyModelThinks } from '../agents/specs';
import { parseAgentSpecs } from '../games/bilateral/specs';
import { Aggregator, type Standings } from '../games/bilateral/aggregate';
import { bilateralGame } from '../games/bilateral/game';
import { exportedNegotiation, type TournamentConfigSchema } from '../storage/schema';
import type { z } from 'zod';
import type { RunGameOver, StoredConfigOf } from './game';

/** Bootstrap resamples for the intervals computed when a bilateral run stops. */
export const FINAL_SAMPLES = 1000;

const tournamentOf = (config: StoredConfigOf<'bilateral'>) => {
  if (config.kind !== 'tournament') throw new Error('only tournament runs can be resumed');
  return config.tournament;
};

type Tally = { aggregator: Aggregator; scorer: OracleScorer };

export const bilateralRuns: RunGameOver<'bilateral', typeof bilateralGame, z.infer<typeof TournamentConfigSchema>, Tally, Standings> = {
  game: 'bilateral',
  engine: bilateralGame,
  create: (settings) => {
    const specs = parseAgentSpecs(settings.agents);
    if (!specs.ok) throw new Error(specs.error.message);
    const reachable = settings.llm.thinking ? everyModelThinks(specs.value) : null;
    if (reachable && !reachable.ok) throw new Error(reachable.error.message);
    return { kind: 'tournament', tournament: settings };
  },
  tournament: tournamentOf,
  seats: (config) => tournamentOf(config).agents,
  anyRemote: (config) => {
    const specs = parseAgentSpecs(tournamentOf(config).agents);
    return specs.ok && specs.value.some((s) => s.remote !== undefined);
  },
  makeAgent: (config, remote, local) => createAgentFactory(remote, local, tournamentOf(config).llm),
  line: exportedNegotiation,
  tally: () => ({ aggregator: new Aggregator(), scorer: new OracleScorer() }),
  addLine: ({ aggregator, scorer }, l) => aggregator.add(l.buyer, l.seller, l.scenario, scoredMetrics(l.buyer, l.seller, l.scenario, l.events, scorer)),
  // The oracle's figures go into the result's metrics before anything stores it.
  addResult: ({ aggregator, scorer }, r) => aggregator.add(r.buyer, r.seller, r.scenario, scorer.score(r.buyer, r.seller, r.scenario, r.metrics)),
  standings: ({ aggregator }, config, final) => aggregator.standings(final ? { samples: FINAL_SAMPLES, seed: tournamentOf(config).seed } : { samples: 0 }),
};
