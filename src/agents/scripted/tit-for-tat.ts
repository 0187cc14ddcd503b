import type { BilateralObservation } from '../../core/bilateral/protocol';
import type { StrategyDef } from './types';
import { acceptNext, anchorParam, aspiration, clampBetween, composeAgent, isLastOwnTurn } from './policy';

/** Whether the opponent's turn just before this one was an offer (turns alternate strictly). */
function opponentJustOffered(obs: BilateralObservation): boolean {
  const last = obs.transcript[obs.transcript.length - 1];
  return last !== undefined && 'action' in last && last.action?.type === 'offer';
}

/**
 * Relative tit-for-tat (Faratin et al.): my next offer reproduces the opponent's last relative
 * concession, next = myLast × prev2 / prev1, which lowers a seller's price as the buyer's rises
 * and raises a buyer's as the seller's falls. Until the opponent has made two offers it concedes
 * a fixed step per own turn, so two tit-for-tats do not wait on each other forever; at its last
 * own turn it offers its reservation, and so accepts anything within it.
 */
export function titForTatTarget(obs: BilateralObservation, anchor: number, step: number): number {
  const start = aspiration(obs, anchor);
  const reservation = obs.reservation;
  if (isLastOwnTurn(obs)) return reservation;
  const own = obs.ownOffers;
  if (own.length === 0) return start;
  const myLast = own[own.length - 1] as number;
  const opp = obs.opponentOffers;
  const n = opp.length;
  let next: number;
  if (n < 2) next = myLast + step * (reservation - start);
  else if (opponentJustOffered(obs)) next = (myLast * (opp[n - 2] as number)) / (opp[n - 1] as number);
  else next = myLast; // no new concession to answer
  return clampBetween(next, start, reservation);
}

export const titForTat: StrategyDef = {
  name: 'tit-for-tat',
  summary:
    "Mirrors the opponent's relative concessions (Faratin's relative tit-for-tat); concedes a small step until the opponent has made two offers; accepts by AC_next.",
  params: {
    start: {
      default: 0.05,
      min: 0,
      max: 1,
      doc: 'step conceded per own turn, as a fraction of the aspiration-to-reservation range, until the opponent has made two offers',
    },
    anchor: anchorParam(0.4),
  },
  deterministic: true,
  rational: true,
  create(p) {
    const anchor = p.anchor as number;
    const step = p.start as number;
    return composeAgent({ offer: (obs) => titForTatTarget(obs, anchor, step), accept: acceptNext });
  },
};
