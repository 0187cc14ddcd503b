import type { BilateralObservation } from '../protocol';
import type { StrategyDef } from './types';
import { acceptNext, clampBetween, composeAgent, rangeStart } from './policy';

/** The price of the offer made at `turn`, or null where that turn made none. */
function offerAt(obs: BilateralObservation, turn: number): number | null {
  const e = obs.pastTurn(turn);
  return e !== undefined && 'action' in e && e.action?.type === 'offer' ? e.action.price : null;
}

/**
 * Tit-for-tat in the manner of NegMAS's `NaiveTitForTatNegotiator`: it opens at the best end of the
 * price range and concedes, in dollars, what the opponent conceded on its last offer (a seller
 * lowers its price by as much as the buyer raised its own), so a side that holds firm is held
 * against. Until the opponent has made two offers (there is no concession of its to mirror yet) it
 * answers a new offer with a step of its own, `start` of the way from its opening to its
 * reservation, so two tit-for-tats meet; a turn in which the opponent made no offer earns no
 * concession at all. It never offers beyond its reservation, and it has no
 * last-turn rule: whoever opens, neither side concedes fully by construction.
 */
export function titForTatTarget(obs: BilateralObservation, step: number): number {
  const start = rangeStart(obs);
  const reservation = obs.reservation;
  // Turns alternate, so its own turns are turn − 2, turn − 4, … and the opponent's turn − 1, turn − 3, …
  const turn = obs.turn;
  let myLast: number | null = null;
  for (let t = turn - 2; t >= 0 && myLast === null; t -= 2) myLast = offerAt(obs, t);
  if (myLast === null) return start;
  // Nothing new to answer: silence earns no concession.
  const latest = offerAt(obs, turn - 1);
  if (latest === null) return myLast;
  let before: number | null = null;
  for (let t = turn - 3; t >= 0 && before === null; t -= 2) before = offerAt(obs, t);
  const next = before === null ? myLast + step * (reservation - start) : myLast - (latest - before);
  return clampBetween(next, start, reservation);
}

export const titForTat: StrategyDef = {
  name: 'tit-for-tat',
  summary:
    "Mirrors the opponent's last concession in dollars (NegMAS's naive tit-for-tat), from the best end of the price range; answers a new offer with a step of its own until there is a concession to mirror, and silence with nothing; accepts by AC_next.",
  params: {
    start: {
      default: 0.15,
      min: 0,
      max: 1,
      doc: 'step conceded in answer to a new offer until the opponent has made two (and there is a concession to mirror), as a fraction of the way from its opening to its reservation',
    },
  },
  deterministic: true,
  rational: true,
  create(p) {
    const step = p.start as number;
    return composeAgent({ offer: (obs) => titForTatTarget(obs, step), accept: acceptNext, reactive: true });
  },
};
