/** Runs, deadlines and first movers in words, for the pages that set them up or show them. */
import { deadlineLabel, type FirstMoverChoice, type Scenario } from '../games/bilateral/scenario';
import type { RunRow } from '../storage';
import type { Phrase } from './names';

export const firstMoverLabel = (firstMover: FirstMoverChoice): string =>
  firstMover === 'alternate' ? 'seller and buyer open in turn' : `the ${firstMover} opens`;

/** One scenario's deadline: with an uncertain one, the range the agents know and the limit they do not. */
export const scenarioDeadline = (s: Pick<Scenario, 'turnLimit' | 'turnRange'>): string =>
  s.turnRange ? `${deadlineLabel({ kind: 'uncertain', ...s.turnRange })}, this game ${s.turnLimit}` : deadlineLabel({ kind: 'fixed', turns: s.turnLimit });

/** Why the defaults are what they are, in one line. */
export const DEADLINE_WHY =
  'With a fixed, known limit, an agent that concedes to its reservation at the end hands it to whoever moves last, as an ultimatum; an uncertain limit and alternating openers keep a model from timing one. The scripted strategies concede on a clock both sides share and never offer their reservation: against itself each gives the seller 47–52% of the gains whoever opens.';

/** A run's set-up in one line, an Arena game's agents named apart. */
export function describeConfig(run: Pick<RunRow, 'config'>): Phrase {
  if (run.config.kind === 'arena') return [{ name: run.config.buyer }, ' (buyer) vs ', { name: run.config.seller }, ' (seller)'];
  const t = run.config.tournament;
  if (t.scenarios)
    return [
      `${t.agents.length} agents, ${t.scenariosPerPair} scenarios from a file per pair, seed ${t.seed}${t.selfPlay ? ', self-play' : ''}, ` +
        `each scenario's own turn limit and first mover`,
    ];
  return [
    `${t.agents.length} agents, ${t.scenariosPerPair} ${t.preset} scenarios per pair, seed ${t.seed}${t.selfPlay ? ', self-play' : ''}, ` +
      `${deadlineLabel(t.deadline)}, ${firstMoverLabel(t.firstMover)}`,
  ];
}
