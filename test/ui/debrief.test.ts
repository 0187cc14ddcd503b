import { describe, expect, it } from 'vitest';
import { computeDebrief, DEBRIEF_STRATEGIES } from '../../src/ui/debrief';
import { describeTurnsLeft, parseOfferPrice, turnsLeft } from '../../src/ui/human-seat';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { CATALOG } from '../../src/games/bilateral/catalog';
import { makeScenario, type Role } from '../../src/games/bilateral/scenario';

const ITEM = { ...CATALOG[20]!, listPrice: 180 };
const scenario = makeScenario('debrief', ITEM, 200, 100, { turnLimit: 10, firstMover: 'buyer' });

/** A hand-made log: `who` offers `price` on turn 0 and the other side answers on turn 1. */
function offered(who: Role, price: number, answer: 'accept' | 'walk_away'): BilateralEvent[] {
  const other: Role = who === 'buyer' ? 'seller' : 'buyer';
  const end = answer === 'accept' ? ({ kind: 'deal', price, turn: 2, acceptedBy: other } as const) : ({ kind: 'walk_away', by: other, turn: 2 } as const);
  return [
    { type: 'move', turn: 0, actor: who, move: { action: { type: 'offer', price } } },
    { type: 'move', turn: 1, actor: other, move: { action: { type: answer } } },
    { type: 'end', turn: 2, outcome: end },
  ];
}
const turnLimit = (n: number): BilateralEvent[] => [{ type: 'end', turn: n, outcome: { kind: 'turn_limit', turn: n } }];

describe('the debrief', () => {
  it('plays every deterministic scripted strategy in the user’s seat', () => {
    expect(DEBRIEF_STRATEGIES).toEqual(['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler']);
  });

  it('a buyer’s deal at $120 on [100, 200]: $80, 80% of $100, $30 above the even split, against each strategy', () => {
    const d = computeDebrief(scenario, 'buyer', offered('buyer', 120, 'accept'), [
      { strategy: 'boulware', events: offered('buyer', 110, 'accept') },
      { strategy: 'linear', events: offered('seller', 150, 'accept') },
      { strategy: 'hardliner', events: offered('buyer', 120, 'walk_away') },
    ]);
    expect(d).toMatchObject({
      role: 'buyer',
      yourValue: 200,
      opponentValue: 100,
      zone: { low: 100, high: 200, width: 100 },
      you: { outcome: 'deal', price: 120, utility: 80, share: 0.8, irViolation: false },
      opponent: { utility: 20, share: 0.2, irViolation: false },
      evenSplit: { price: 150, utility: 50 },
      vsEven: 30,
      irBroken: [],
      tone: 'good',
      headline: 'Deal: you got $80.00, 80.0% of the $100.00 to share.',
    });
    expect(d.strategies?.map((s) => [s.strategy, s.outcome, s.utility, s.share, s.vsYou])).toEqual([
      ['boulware', 'deal', 90, 0.9, 10],
      ['linear', 'deal', 50, 0.5, -30],
      ['hardliner', 'walk_away', 0, null, -80],
    ]);
    expect(d.beatenBy.map((s) => s.strategy)).toEqual(['boulware']);
    expect(d.advice).toBe(
      'boulware got $10.00 more than you in your seat: try its way, open far from your value and hold out, conceding only near the deadline.',
    );
  });

  it('the seller’s side of the same deal: $20, 20%, $30 below the even split; beating every strategy says so', () => {
    const d = computeDebrief(scenario, 'seller', offered('buyer', 120, 'accept'), [{ strategy: 'linear', events: offered('buyer', 110, 'accept') }]);
    expect(d).toMatchObject({ yourValue: 100, opponentValue: 200, you: { utility: 20, share: 0.2 }, vsEven: -30, tone: 'neutral', beatenBy: [] });
    expect(d.strategies?.[0]?.vsYou).toBe(-10);
    expect(d.advice).toMatch(/^No scripted strategy did better against this opponent/);
  });

  it('a deal that leaves the user below zero is headlined as a loss, never as good, and the advice says why', () => {
    const d = computeDebrief(scenario, 'buyer', offered('seller', 250, 'accept'), null);
    expect(d).toMatchObject({ you: { utility: -50, irViolation: true }, irBroken: ['buyer'], tone: 'bad', strategies: null });
    expect(d.headline).toBe('You lost $50.00: the deal broke individual rationality for you.');
    expect(d.advice).toBe('Never agree to a price beyond your own value of $200.00: walking away leaves you at $0, which beats any loss.');
  });

  it('an opponent that sold below its cost breaks individual rationality too: no good headline even though the user gained', () => {
    const d = computeDebrief(scenario, 'buyer', offered('buyer', 90, 'accept'), null);
    expect(d).toMatchObject({ you: { utility: 110, share: 1 }, opponent: { utility: -10, irViolation: true }, irBroken: ['seller'], tone: 'bad' });
    expect(d.headline).toBe('The deal broke individual rationality: the seller lost $10.00.');
  });

  it('no deal where there were gains from trade names the zone; none where there were none is right', () => {
    const missed = computeDebrief(scenario, 'seller', turnLimit(10), null);
    expect(missed).toMatchObject({ you: { outcome: 'turn_limit', utility: 0, share: null }, tone: 'bad', vsEven: -50 });
    expect(missed.headline).toBe('No deal, though there was $100.00 to share.');
    expect(missed.advice).toBe(
      'Any price from $100.00 to $200.00 beat no deal for both of you: next time move into that zone before the deadline, since no deal leaves you both at $0.',
    );

    const noGains = makeScenario('no-gft', ITEM, 90, 140, { turnLimit: 10, firstMover: 'buyer' });
    const right = computeDebrief(noGains, 'buyer', offered('buyer', 80, 'walk_away'), null);
    expect(right).toMatchObject({ zone: null, evenSplit: null, vsEven: null, tone: 'good', opponentValue: 140 });
    expect(right.headline).toBe('No deal, and rightly: there were no gains from trade.');
  });

  it('says what the user could have got against the opponent’s exact policy (the oracle), and none against random', () => {
    // A hardliner seller asks c + 0.1 × list = 118 and takes nothing less: the buyer's best is to
    // pay 118, $82 of the $100 to share, which it gets by offering it at once (the buyer opens).
    const paid = computeDebrief(scenario, 'buyer', offered('buyer', 150, 'accept'), null, 'hardliner');
    expect(paid.oracle).toMatchObject({ price: 118, utility: 82, how: 'offer', turn: 0, vsYou: 32 });
    expect(paid.oracle?.share).toBeCloseTo(0.82, 12);
    const none = computeDebrief(scenario, 'buyer', offered('buyer', 150, 'accept'), null, 'random');
    expect(none.oracle).toBeNull();
    expect(computeDebrief(scenario, 'buyer', offered('buyer', 150, 'accept'), null).oracle).toBeNull();
  });

  it('before the strategies have played, the advice follows the user’s share alone', () => {
    expect(computeDebrief(scenario, 'seller', offered('buyer', 120, 'accept'), null).advice).toBe(
      'You took less than half of the $100.00 to share: open further from your own value and concede in smaller steps.',
    );
  });
});

describe('the seat’s turns left', () => {
  it('with a fixed limit: exact, this turn included, half of them (rounded up) the user’s', () => {
    const t = turnsLeft({ turn: 4, turnLimit: 20, turnRange: { min: 20, max: 20 } });
    expect(t).toEqual({ current: 5, limit: { min: 20, max: 20 }, left: { min: 16, max: 16 }, yours: { min: 8, max: 8 } });
    expect(describeTurnsLeft(t)).toBe('16 turns left, this one included (8 of them yours)');
    expect(describeTurnsLeft(turnsLeft({ turn: 19, turnLimit: 20, turnRange: { min: 20, max: 20 } }))).toBe('1 turn left, this one included (1 of them yours)');
  });

  it('with an uncertain limit: a range, at least this turn once the earliest limit has passed', () => {
    expect(turnsLeft({ turn: 3, turnLimit: null, turnRange: { min: 16, max: 24 } })).toMatchObject({ left: { min: 13, max: 21 }, yours: { min: 7, max: 11 } });
    const late = turnsLeft({ turn: 18, turnLimit: null, turnRange: { min: 16, max: 24 } });
    expect(late).toMatchObject({ current: 19, left: { min: 1, max: 6 }, yours: { min: 1, max: 3 } });
    expect(describeTurnsLeft(late)).toBe('1 to 6 turns left, this one included (1 to 3 of them yours)');
  });

  it('while the other side moves, half of the turns left (rounded down) are the user’s', () => {
    expect(turnsLeft({ turn: 4, turnLimit: 20, turnRange: { min: 20, max: 20 } }, false)).toMatchObject({
      left: { min: 16, max: 16 },
      yours: { min: 8, max: 8 },
    });
    expect(turnsLeft({ turn: 5, turnLimit: null, turnRange: { min: 16, max: 24 } }, false)).toMatchObject({
      left: { min: 11, max: 19 },
      yours: { min: 5, max: 9 },
    });
    expect(turnsLeft({ turn: 19, turnLimit: 20, turnRange: { min: 20, max: 20 } }, false).yours).toEqual({ min: 0, max: 0 });
  });
});

describe('an offer’s price as typed', () => {
  const read = (text: string) => parseOfferPrice(text, 180);
  it('reads dollars, with a $ and thousands commas allowed', () => {
    expect(read('120')).toEqual({ ok: true, value: 120 });
    expect(read(' $1,234.5 ')).toEqual({ ok: true, value: 1234.5 });
    expect(read('.99')).toEqual({ ok: true, value: 0.99 });
    expect(read('0.01')).toEqual({ ok: true, value: 0.01 });
  });
  it('names what is wrong: empty, not a number, below a cent, past the cent, above the ceiling', () => {
    expect(read('  ')).toEqual({ ok: false, error: 'Enter the price you offer, in dollars (such as 120 or 119.50).' });
    expect(read('ten')).toEqual({ ok: false, error: '“ten” is not a price: type a number of dollars, such as 120 or 119.50.' });
    expect(read('-5').ok).toBe(false);
    expect(read('1e3').ok).toBe(false);
    expect(read('0.001')).toEqual({ ok: false, error: 'An offer must be at least one cent ($0.01).' });
    expect(read('0')).toEqual({ ok: false, error: 'An offer must be at least one cent ($0.01).' });
    expect(read('12.345')).toEqual({ ok: false, error: 'Prices go to the cent: 12.345 has more than two decimals.' });
    expect(read('18000.01')).toEqual({ ok: false, error: 'An offer may be at most $18,000.00 (100 times the list price).' });
    expect(read('18000')).toEqual({ ok: true, value: 18000 });
  });
});
