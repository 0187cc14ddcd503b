/**
 * Every term of art the pages use, in plain words: the home page lists them all, and a Help
 * button beside a term opens its entry in place (on click, Enter or tap; no hover needed).
 */
export interface GlossaryEntry {
  term: string;
  text: string;
}

export const GLOSSARY = {
  'reservation-value': {
    term: 'Reservation value',
    text: 'The price at which a side is indifferent between trading and walking away: the most the buyer would pay (its value v), the least the seller would take (its cost c). Each side knows only its own.',
  },
  'buyer-value': {
    term: 'Value (v)',
    text: 'What the item is worth to the buyer: the buyer’s reservation value. Paying less than v is a gain for the buyer.',
  },
  'seller-cost': {
    term: 'Cost (c)',
    text: 'What the item costs the seller: the seller’s reservation value. Selling above c is a gain for the seller.',
  },
  'gains-from-trade': {
    term: 'Gains from trade',
    text: 'The surplus v − c when the buyer values the item above the seller’s cost. Without gains from trade (v < c) no price leaves both sides better off, so the right outcome is no deal.',
  },
  zone: {
    term: 'Zone of agreement (ZOPA)',
    text: 'The prices between the seller’s cost and the buyer’s value, [c, v]: any deal in it leaves both sides better off than no deal. It is empty when v < c.',
  },
  'surplus-share': {
    term: 'Surplus share',
    text: 'How much of the surplus v − c a side captured in a deal: the seller’s share is (p − c)/(v − c), the buyer’s (v − p)/(v − c); they add up to 100%, and always lie between 0 and 100%: a deal beyond the zone gives the side that gained the whole surplus, and the rest (one side’s loss, the other’s gain from it) is counted apart. Expected share counts a missed deal as 0.',
  },
  'individual-rationality': {
    term: 'Individual rationality (IR)',
    text: 'Never accept a deal worse than no deal: a buyer paying above its value, or a seller selling below its cost, breaks it. Its IR loss is what it lost; the other side’s gain from it is counted apart (“from violations”), so an agent that wins only because its opponents overpay shows as such.',
  },
  'price-range': {
    term: 'Price range',
    text: 'The range of prices both sides know a deal can lie in (NegMAS’s outcome space): for a preset, every value and cost it can draw. The time-based strategies open at the end that is best for them, a seller at its top and a buyer at its bottom.',
  },
  oracle: {
    term: 'Oracle reference',
    text: 'The most a side could have got on the same scenario against the very same scripted opponent, found by searching that opponent’s exact moves (it knows every value and the real deadline). The oracle gap is that minus what the side got: what it left on the table. None against a language model or the random strategy.',
  },
  anchor: {
    term: 'Anchor (opening offer)',
    text: 'The first price a side names. An ambitious anchor pulls the final price toward it. The time-based strategies open at the best end of the price range (κ moves their opening toward their reservation); the hardliner’s “anchor” parameter sets how far from its own reservation it asks, as a fraction of list price.',
  },
  beta: {
    term: 'β (concession exponent)',
    text: 'How a time-based strategy concedes over the turns: β below 1 holds its price until late (Boulware: 0.25), β = 1 concedes in even steps (linear), β above 1 concedes early (Conceder: 4). Its offer is κ + (1 − κ)·t^(1/β) of the way from the best end of the price range to its reservation, on the clock t = (turn + 1)/(T + 1) that both sides share (NegMAS’s).',
  },
  kappa: {
    term: 'κ (initial concession)',
    text: 'The part of the way from the best end of the price range to its reservation that a time-based strategy has already conceded in its first offer: 0 opens at the range’s end (NegMAS’s default), 0.5 halfway.',
  },
  boulware: {
    term: 'Boulware',
    text: 'A patient strategy: it holds close to its opening price until the deadline nears, then concedes (small β; NegMAS’s Boulware concedes as t⁴). Named after a General Electric negotiator of the 1950s.',
  },
  conceder: {
    term: 'Conceder',
    text: 'An impatient strategy: it gives most of its ground early and then holds near its reservation (large β; NegMAS’s Conceder concedes as t^0.25).',
  },
  'ac-next': {
    term: 'AC_next',
    text: 'An acceptance rule: accept the other side’s offer if it is at least as good as the offer I would make next.',
  },
  'tit-for-tat': {
    term: 'Tit-for-tat',
    text: 'A strategy that mirrors the other side: it concedes, in dollars, as much as the opponent conceded on its last offer, and nothing to a turn without an offer.',
  },
  hardliner: {
    term: 'Hardliner, accommodator and haggler',
    text: 'A hardliner never moves from one firm price; an accommodator concedes fast and accepts anything within its reservation; a haggler gives up the same few dollars every round, whatever the item costs, as a naive person does.',
  },
  deadline: {
    term: 'Deadline: fixed or uncertain',
    text: 'Fixed: both sides know the exact last turn. Uncertain: the limit is drawn from a range both sides know, and neither knows the exact last turn (the time-based strategies run their clock over the middle of the range).',
  },
  'first-mover': {
    term: 'First mover',
    text: 'Who makes the first offer. With a fixed, even turn limit the first mover’s opponent has the last word; alternating the opener gives that edge to neither role.',
  },
  'last-word': {
    term: 'The last word',
    text: 'Whoever makes the final offer before the deadline can demand nearly the whole surplus: the other side must take it or get nothing. Strategies that concede to their reservation on their last sure turn hand it to the other side; Parley’s scripted strategies run on a clock both sides share and never do.',
  },
  preset: {
    term: 'Preset',
    text: 'A recipe for drawing scenarios: standard (mostly with gains from trade, some without), uniform (values and costs independent and uniform: the Myerson–Satterthwaite setting), wide or narrow zones of agreement.',
  },
  seed: {
    term: 'Seed',
    text: 'A number that fixes the random draws: the same seed gives the same scenarios on every computer, so a class can share them.',
  },
  crn: {
    term: 'Common random numbers',
    text: 'Every pair of agents plays the very same scenarios, so a difference between agents comes from the agents, not from the luck of the draw.',
  },
  'price-tier': {
    term: 'Price tier',
    text: 'Which fifth of the catalog an item’s list price falls in: tier 1 is the cheapest 20% of items, tier 5 the dearest.',
  },
  quintile: {
    term: 'Quintile',
    text: 'One of five equal-sized groups after sorting: the price tiers are the quintiles of list price.',
  },
  'zone-bin': {
    term: 'Zone bin (zone width)',
    text: 'Scenarios grouped by how wide the zone of agreement is, (v − c) as a fraction of list price. A wide zone makes a deal easy and can hide weak play.',
  },
  interval: {
    term: '95% interval',
    text: 'The range a rate would likely fall in if the tournament were run again on fresh scenarios (resampling whole scenarios). Two agents whose intervals overlap may not really differ.',
  },
  'deal-rate': {
    term: 'Deal rate',
    text: 'The share of negotiations with gains from trade that ended in a deal.',
  },
  'walk-away': {
    term: 'Walk away',
    text: 'Ending the negotiation with no deal, before the deadline.',
  },
  patience: {
    term: 'Opening, concession and patience',
    text: 'Opening: the first offer over list price. Concession: how far a side moved from its opening toward its reservation (accepting an offer counts as moving to its price). Patience: the fraction of its turns before it first conceded more than 5% of that way, so accepting early is conceding early, never patience.',
  },
  'nash-price': {
    term: 'Nash bargaining price',
    text: 'The split-the-difference price (v + c)/2: each side gets half the surplus. With bargaining power α for the seller, c + α(v − c).',
  },
  'myerson-satterthwaite': {
    term: 'Myerson–Satterthwaite',
    text: 'With private values, no bargaining procedure that is voluntary and balanced always trades when it should: some gains from trade are always lost.',
  },
} as const satisfies Record<string, GlossaryEntry>;

export type TermId = keyof typeof GLOSSARY;
export const TERM_IDS = Object.keys(GLOSSARY) as TermId[];
