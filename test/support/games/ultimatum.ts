/**
 * The ultimatum game, a third game in a few dozen lines (docs/games.md walks through it): a
 * proposer offers the responder a share of a pie of whole dollars; the responder accepts (the pie
 * is split so) or rejects (neither gets anything). Its protocol, its GameDef and three scripted
 * strategies a side; the engine does the rest.
 */
import type { GameDef } from '../../../src/engine/game';
import type { AgentFactory } from '../../../src/engine/seat';
import type { Protocol } from '../../../src/engine/protocol';
import { refusals } from '../../../src/engine/refusals';
import { ok } from '../../../src/engine/result';
import { createRng, deriveSeed } from '../../../src/engine/rng';
import { andThen, playSession, type Agent, type SessionEvent, type SessionFailure } from '../../../src/engine/session';

export type UltimatumRole = 'proposer' | 'responder';
export type UltimatumMove = { offer: number } | { accept: boolean };
export type UltimatumOutcome = { kind: 'split'; proposer: number; responder: number; turn: number } | { kind: 'no_deal'; turn: number };
export type UltimatumObservation = { role: 'proposer'; pie: number } | { role: 'responder'; pie: number; offer: number };
export type UltimatumAgent = Agent<UltimatumObservation, UltimatumMove>;
interface State {
  pie: number;
  turn: number;
  offer: number | null;
  outcome: UltimatumOutcome | null;
}

// Its refusals as a table, as every game words them (engine/refusals.ts): the code is stable, the reason derived.
const refuse = refusals({
  'offer-out-of-range': (d: { pie: number }) => `offer a whole number of dollars from 0 to ${d.pie}`,
  'not-an-answer': () => 'answer { accept: true } or { accept: false }',
});

export const ultimatum: Protocol<{ pie: number }, State, UltimatumRole, UltimatumObservation, UltimatumMove, UltimatumOutcome> = {
  name: 'ultimatum',
  initialState: ({ pie }) => ({ pie, turn: 0, offer: null, outcome: null }),
  currentActor: (s) => (s.offer === null ? 'proposer' : 'responder'),
  observe: (s) => (s.offer === null ? { role: 'proposer', pie: s.pie } : { role: 'responder', pie: s.pie, offer: s.offer }),
  apply: (s, actor, move) => {
    if (actor === 'proposer') {
      if (!('offer' in move) || !Number.isInteger(move.offer) || move.offer < 0 || move.offer > s.pie) return refuse('offer-out-of-range', { pie: s.pie });
      return ok({ ...s, turn: 1, offer: move.offer });
    }
    if (!('accept' in move) || typeof move.accept !== 'boolean') return refuse('not-an-answer');
    const offer = s.offer as number;
    const outcome: UltimatumOutcome = move.accept ? { kind: 'split', proposer: s.pie - offer, responder: offer, turn: 2 } : { kind: 'no_deal', turn: 2 };
    return ok({ ...s, turn: 2, outcome });
  },
  // A seat that cannot make a valid move ends the game with nothing for either.
  forfeit: (s) => ({ ...s, turn: s.turn + 1, outcome: { kind: 'no_deal', turn: s.turn + 1 } }),
  isTerminal: (s) => s.outcome !== null,
  outcome: (s) => s.outcome as UltimatumOutcome,
  turn: (s) => s.turn,
};

/** Scripted strategies by role and name; `random` draws from its seat's stream. */
const STRATEGIES: Record<UltimatumRole, Record<string, (rng: () => number) => (obs: UltimatumObservation) => UltimatumMove>> = {
  proposer: {
    fair: () => (obs) => ({ offer: Math.floor(obs.pie / 2) }),
    greedy: () => (obs) => ({ offer: Math.ceil(obs.pie / 10) }),
    random: (rng) => (obs) => ({ offer: Math.floor(rng() * (obs.pie + 1)) }),
  },
  responder: {
    accept: () => () => ({ accept: true }),
    // Turns down less than 30% of the pie, as many people do in the laboratory.
    proud: () => (obs) => ({ accept: obs.role === 'responder' && obs.offer >= 0.3 * obs.pie }),
    random: (rng) => () => ({ accept: rng() < 0.5 }),
  },
};

export const makeUltimatumAgent: AgentFactory<UltimatumRole, UltimatumAgent> = (spec, role, seat) => {
  const strategy = STRATEGIES[role][spec];
  if (strategy === undefined) throw new Error(`no ${role} strategy "${spec}"`);
  const decide = strategy(() => seat.rng.next());
  return { act: (obs) => ({ kind: 'move', move: decide(obs) }) };
};

export interface UltimatumConfig {
  proposers: string[];
  responders: string[];
  rounds: number;
  seed: number;
}
export interface UltimatumJob {
  id: string;
  index: number;
  round: number;
  proposer: string;
  responder: string;
  pie: number;
}
export interface UltimatumResult extends UltimatumJob {
  events: SessionEvent<UltimatumRole, UltimatumMove, UltimatumOutcome>[];
  outcome: UltimatumOutcome | SessionFailure<UltimatumRole>;
}

/** Round-major: every proposer meets every responder over the same pie each round (common random numbers). */
function* planUltimatum(config: UltimatumConfig): Generator<UltimatumJob> {
  let index = 0;
  for (let round = 0; round < config.rounds; round++) {
    const pie = 10 + createRng(deriveSeed(config.seed, 'pie', round)).int(91);
    for (const [p, proposer] of config.proposers.entries())
      for (const [r, responder] of config.responders.entries()) yield { id: `${round}-${p}-${r}`, index: index++, round, proposer, responder, pie };
  }
}

export const ultimatumGame: GameDef<UltimatumConfig, UltimatumJob, UltimatumRole, UltimatumAgent, UltimatumResult> = {
  name: 'ultimatum',
  roles: ['proposer', 'responder'],
  plan: planUltimatum,
  plannedCount: (config) => config.rounds * config.proposers.length * config.responders.length,
  inPlan: (config, id) => {
    const m = /^(0|[1-9]\d*)-(0|[1-9]\d*)-(0|[1-9]\d*)$/.exec(id);
    return m !== null && Number(m[1]) < config.rounds && Number(m[2]) < config.proposers.length && Number(m[3]) < config.responders.length;
  },
  seatSpec: (job, role) => job[role],
  play: (job, agents, opts) => andThen(playSession(ultimatum, { pie: job.pie }, agents, opts), ({ events, outcome }) => ({ ...job, events, outcome })),
  isCancelled: (result) => result.outcome.kind === 'cancelled',
};
