import type { BilateralObservation } from '../../core/bilateral/protocol';
import type { StrategyDef } from './types';
import { acceptNext, clampBetween, composeAgent, rangeStart } from './policy';

/** Whether the opponent's turn just before this one was an offer (turns alternate strictly). */
const opponentJustOffered = (obs: BilateralObservation): boolean => obs.pendingTurn === obs.turn - 1;

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
  const own = obs.ownOffers;
  if (own.length === 0) return start;
  const myLast = own[own.length - 1] as number;
  const opp = obs.opponentOffers;
  const n = opp.length;
  let next: number;
  if (!opponentJustOffered(obs)) next = myLast; // nothing new to answer: silence earns no concession
  else if (n < 2) next = myLast + step * (reservation - start);
  else next = myLast - ((opp[n - 1] as number) - (opp[n - 2] as number));
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
