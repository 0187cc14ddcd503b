/**
 * Every rate of the standings in words, once for the app: a short label and a plain explanation
 * (the leaderboard's headers and "What the columns mean", the comparison of two runs). The
 * definitions themselves live in games/bilateral/aggregate.ts and docs/metrics.md.
 */
import { RATE_NAMES, type RateName } from '../games/bilateral/aggregate';

export interface RateInfo {
  label: string;
  help: string;
  /** Errors, IR violations and invalid moves: a smaller figure is the better one. */
  lowerIsBetter?: boolean;
}

export const RATE_INFO: Record<RateName, RateInfo> = {
  dealRate: {
    label: 'Deal rate',
    help: "Of the negotiations where a deal could help both sides (the buyer's value above the seller's cost), the share that ended in a deal.",
  },
  noDealRateNoGft: {
    label: 'No trade (no gains)',
    help: 'Of the negotiations where no price could help both sides, the share that ended without a trade, which is the right answer there. A dash if it met none.',
  },
  walkAwayShare: {
    label: 'Walk-aways',
    help: 'Of its negotiations that ended without a deal, the share ended by a walk-away rather than by running out of turns.',
  },
  surplusShare: {
    label: 'Surplus share',
    help: "On deals where trade helped both sides, its mean share of the gain (the buyer's value minus the seller's cost). Always 0 to 100%: a deal beyond the other side's value or cost gives the side that gained the whole gain, and what lies beyond is counted apart (IR loss, From violations).",
  },
  expectedSurplusShare: { label: 'Expected share', help: 'The same share over every negotiation where trade could help both sides, a missed deal counting 0.' },
  irViolationRate: {
    label: 'IR violations',
    help: 'Of its deals, the share that left it worse off than no deal: buying above its value or selling below its cost.',
    lowerIsBetter: true,
  },
  invalidMoveRate: { label: 'Invalid moves', help: 'Of all its attempts to move, the share that broke the rules or could not be read.', lowerIsBetter: true },
  errorRate: {
    label: 'Errors',
    help: 'Share of its negotiations that stopped on an error (its own or the other side’s), with the count in brackets. These negotiations count in no other column.',
    lowerIsBetter: true,
  },
  opening: { label: 'Opening', help: 'Its first offer as a share of the list price. A buyer opening low, or a seller opening high, anchors hard.' },
  concession: {
    label: 'Concession',
    help: 'How far its last position (its last offer, or the price it accepted) moved from its first offer toward its own limit (its value or cost), as a share of that distance.',
  },
  patience: {
    label: 'Patience',
    help: 'The share of its own turns that passed before it had given up more than 5% of that distance, accepting an offer counting as moving to its price; 100% means it never did. Not counted where the other side ended the game before it had conceded, or where it accepted before making any offer.',
  },
  irLoss: {
    label: 'IR loss',
    help: 'On its deals that left it worse off than no deal, how much it lost on average, as a share of the list price. A dash if it made none.',
    lowerIsBetter: true,
  },
  windfallShare: {
    label: 'From violations',
    help: "The part of its gains that came from the other side's individual-rationality violations (a buyer paying above its value, a seller selling below its cost). Near 100% means it won only because its opponents lost money.",
  },
  oracleShare: {
    label: 'Oracle share',
    help: 'The largest share of the gains it could have got on the same scenarios against the same scripted opponents, found by searching their exact moves; a dash against models and the random strategy.',
  },
  oracleGap: {
    label: 'Oracle gap',
    help: 'The oracle share minus the share it got (a missed deal counting 0): what it left on the table against those opponents.',
    lowerIsBetter: true,
  },
};

/** The rates in their standings order, with their words. */
export const RATES: readonly (RateInfo & { key: RateName })[] = RATE_NAMES.map((key) => ({ key, ...RATE_INFO[key] }));
