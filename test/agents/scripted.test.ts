import { describe, expect, it } from 'vitest';
import { offer, say, type Move } from '../../src/games/bilateral/moves';
import { bilateral } from '../../src/games/bilateral/protocol';
import { computeMetrics } from '../../src/games/bilateral/metrics';
import { generateScenarios, PRESETS, type Role } from '../../src/games/bilateral/scenario';
import { STRATEGIES } from '../../src/games/bilateral/strategies';
import { STRATEGY_NAMES } from '../../src/games/bilateral/specs';
import { agent, moveOf, observeAfter, offersBy, play, scenario, script } from './fixtures';

/** Own offers of `spec` in `role` against a hardliner that never comes close enough to deal. */
async function offersAgainstHardliner(spec: string, role: Role): Promise<number[]> {
  // v = 90, c = 80: a hardliner 0.3 list prices from its reservation asks 60 as buyer and 110 as
  // seller, both out of reach. The tested side moves first, so the hardliner's walk-away comes after
  // its last offer.
  const s = scenario(90, 80, { firstMover: role });
  const opponent = agent('hardliner:anchor=0.3', role === 'seller' ? 'buyer' : 'seller');
  const self = agent(spec, role);
  const { events, outcome } = role === 'seller' ? await play(s, opponent, self) : await play(s, self, opponent);
  expect(outcome.kind).toBe('walk_away');
  return offersBy(events, role);
}

// scenario() has no preset, so its public price range is the standard preset's at list price 100:
// [52.5, 117.5]. v = 90, c = 80 (the tests below say where they differ).
const RANGE = { lo: 52.5, hi: 117.5 };
/** NegMAS's tolerance on that range, in dollars: 1e-4 of normalised utility (see policy.ts). */
const TOL = (RANGE.hi - RANGE.lo) * (1e-4 / 0.99);

describe("time-based strategies (NegMAS's Boulware, Linear and Conceder)", () => {
  it('open at the best end of the price range and concede on the shared clock, boulware slowest, conceder fastest', async () => {
    for (const role of ['seller', 'buyer'] as const) {
      const boulware = await offersAgainstHardliner('boulware', role);
      const linear = await offersAgainstHardliner('linear', role);
      const conceder = await offersAgainstHardliner('conceder', role);
      const sign = role === 'seller' ? 1 : -1;
      for (const offers of [boulware, linear, conceder]) {
        expect(offers).toHaveLength(10);
        for (let k = 1; k < 10; k++) expect(sign * ((offers[k - 1] as number) - (offers[k] as number))).toBeGreaterThanOrEqual(0);
      }
      // The seller's first offer sits just under 117.5, the buyer's just over 52.5; boulware's at t⁴ ≈ 0 of the way.
      expect(Math.abs((boulware[0] as number) - (role === 'seller' ? RANGE.hi : RANGE.lo))).toBeLessThanOrEqual(0.01);
      for (let k = 0; k < 10; k++) {
        expect(sign * ((boulware[k] as number) - (linear[k] as number))).toBeGreaterThanOrEqual(0);
        expect(sign * ((linear[k] as number) - (conceder[k] as number))).toBeGreaterThan(0);
      }
    }
  });

  it('linear offers the cent worst for it within the tolerance of (turn + 1)/(T + 1) of the way to its reservation', async () => {
    const seller = await offersAgainstHardliner('linear', 'seller');
    // Own turn k is turn 2k: target 117.5 − (2k + 1)/21 × 37.5; offer the lowest cent at least target − TOL.
    const expected = Array.from({ length: 10 }, (_, k) => Math.ceil((117.5 - ((2 * k + 1) / 21) * 37.5 - TOL) * 100 - 1e-6) / 100);
    expect(seller).toEqual(expected);
    expect(seller.slice(0, 4)).toEqual([115.71, 112.14, 108.57, 105]);
    // 94.2857… less the tolerance: 94.28, not the nearest cent 94.29
    expect(seller[6]).toBe(94.28);
  });

  it('never offers its reservation within a fixed limit: the clock never reaches 1', async () => {
    for (const name of ['boulware', 'linear', 'conceder']) {
      expect(((await offersAgainstHardliner(name, 'seller')).at(-1) as number) > 80).toBe(true);
      expect(((await offersAgainstHardliner(name, 'buyer')).at(-1) as number) < 90).toBe(true);
    }
  });

  it('runs the clock over the middle of an uncertain range, and offers its reservation past it', () => {
    // The agents know only 10–30 turns: the clock runs over 20; at turn 20 (t = 21/21) the target is the cost.
    const s = { ...scenario(90, 80), turnLimit: 30, turnRange: { min: 10, max: 30 } };
    const talk = (n: number) => Array.from({ length: n }, () => say('hmm'));
    expect(moveOf(agent('linear', 'seller'), observeAfter(s, talk(20)))).toEqual(offer(80));
    expect(moveOf(agent('linear', 'seller'), observeAfter(s, talk(24)))).toEqual(offer(80));
    expect(moveOf(agent('linear', 'seller'), observeAfter(s, talk(18)))).toEqual(offer(Math.ceil((117.5 - (19 / 21) * 37.5 - TOL) * 100) / 100));
  });

  it('shares one clock with the other side: the responder’s first offer is already at t = 2/(T + 1)', () => {
    expect(moveOf(agent('linear', 'buyer'), observeAfter(scenario(90, 80), [say('hi')]))).toEqual(offer(56.07));
  });

  it('opens from the scenario’s own price range, or at its reservation when that lies outside it', () => {
    // On a range of 10–300 the tolerance is 290 × 1e-4/0.99 ≈ $0.029: boulware's first offers
    // (t⁴ ≈ 0 of the way) are the worst cents within it of the range's ends.
    const wide = { ...scenario(90, 80), priceRange: { lo: 10, hi: 300 } };
    expect(moveOf(agent('boulware', 'seller'), observeAfter(wide, []))).toEqual(offer(299.97));
    expect(moveOf(agent('boulware', 'buyer'), observeAfter(wide, [say('hi')]))).toEqual(offer(10.03));
    // cost 130 is above the range's top, 117.5: nothing to concede, it asks its cost every turn
    expect(moveOf(agent('conceder', 'seller'), observeAfter(scenario(200, 130), []))).toEqual(offer(130));
    // an off-cent cost is never undercut by the rounding
    const offCent = { ...scenario(90, 80), sellerCost: 117.503 };
    expect(moveOf(agent('linear', 'seller'), observeAfter(offCent, []))).toEqual(offer(117.51));
  });
});

describe('acceptance', () => {
  // A linear seller at turn 2 (t = 3/21): target 117.5 − 37.5 × 3/21 = 112.142857…
  const s = scenario(90, 80);
  const sellerFacing = (pending: number) => moveOf(agent('linear', 'seller'), observeAfter(s, [offer(130), offer(pending)]));

  it('a time-based strategy accepts an offer within the tolerance of its current target', () => {
    expect(sellerFacing(113)).toEqual({ action: { type: 'accept' } });
    expect(sellerFacing(112.14)).toEqual({ action: { type: 'accept' } });
  });

  it('and counters an offer below it', () => {
    expect(sellerFacing(112.13)).toEqual(offer(112.14));
  });

  it('works for the buyer the other way round', () => {
    // a linear buyer at turn 1 (t = 2/21) aims at 56.0714…
    const buyerFacing = (pending: number) => moveOf(agent('linear', 'buyer'), observeAfter(s, [offer(pending)]));
    expect(buyerFacing(56.07)).toEqual({ action: { type: 'accept' } });
    expect(buyerFacing(56.08)).toEqual(offer(56.07));
  });

  it('never accepts beyond its reservation, even where its target is the reservation', () => {
    // 21 turns of talk under an uncertain 10–30: past the middle the time-based targets are the cost
    const late = { ...s, turnLimit: 30, turnRange: { min: 10, max: 30 } };
    const talk = Array.from({ length: 21 }, () => say('hmm'));
    const facing = (pending: number) => observeAfter(late, [...talk, offer(pending)]);
    for (const name of ['boulware', 'linear', 'conceder', 'accommodator']) {
      expect(moveOf(agent(name, 'seller'), facing(79.99))).toEqual(offer(80));
      expect(moveOf(agent(name, 'seller'), facing(80))).toEqual({ action: { type: 'accept' } });
    }
    for (const name of ['tit-for-tat', 'haggler', 'hardliner'])
      expect(moveOf(agent(name, 'seller'), facing(79.99))).not.toEqual({ action: { type: 'accept' } });
  });
});

describe('hardliner', () => {
  it('never moves from its aspiration and walks away at its last own turn', async () => {
    const s = scenario(90, 80);
    const { events, outcome } = await play(s, agent('conceder', 'buyer'), agent('hardliner:anchor=0.25', 'seller'));
    expect(offersBy(events, 'seller')).toEqual(Array.from({ length: 9 }, () => 105));
    expect(outcome).toEqual({ kind: 'walk_away', by: 'seller', turn: 19 });
    const last = events.filter((e) => e.type === 'move' && e.actor === 'seller').at(-1);
    expect(last).toMatchObject({ turn: 18, move: { action: { type: 'walk_away' } } });
  });

  it('accepts only an offer at least as good as its aspiration (cost + 0.1 list prices)', () => {
    const s = scenario(120, 80);
    const facing = (pending: number) => moveOf(agent('hardliner', 'seller'), observeAfter(s, [offer(105), offer(pending)]));
    expect(facing(90)).toEqual({ action: { type: 'accept' } });
    expect(facing(89.99)).toEqual(offer(90));
  });

  it('does not walk away when the deadline is uncertain: its last sure turn may not be its last', async () => {
    const s = { ...scenario(90, 80), turnLimit: 22, turnRange: { min: 18, max: 24 } };
    const { events, outcome } = await play(s, agent('conceder', 'buyer'), agent('hardliner:anchor=0.25', 'seller'));
    expect(outcome).toEqual({ kind: 'turn_limit', turn: 22 });
    expect(offersBy(events, 'seller')).toEqual(Array.from({ length: 11 }, () => 105));
  });
});

describe('accommodator', () => {
  it('accepts the first offer within its reservation', async () => {
    const s = scenario(90, 50);
    const buyer = script([offer(40), offer(45), offer(52), offer(60)]);
    const { outcome } = await play(s, buyer, agent('accommodator', 'seller'));
    expect(outcome).toEqual({ kind: 'deal', price: 52, turn: 7, acceptedBy: 'seller' });
    // a conceder in its seat holds out for more at that point
    const { outcome: conceder } = await play(s, script([offer(40), offer(45), offer(52), offer(60)]), agent('conceder', 'seller'));
    expect(conceder).not.toMatchObject({ price: 52 });
  });
});

describe('tit-for-tat', () => {
  // A public range of 40–140, so the steps are round numbers.
  const ranged = (v: number, c: number) => ({ ...scenario(v, c), priceRange: { lo: 40, hi: 140 } });

  it("mirrors the opponent's last concession in dollars as a seller", async () => {
    const buyer = script([offer(40), offer(44), offer(48.4), say('let me think')]);
    const { events } = await play(ranged(90, 50), buyer, agent('tit-for-tat', 'seller'));
    const seller = offersBy(events, 'seller');
    // opens at 140; one step of 15% of (50 − 140) while the buyer has made one offer; then the
    // buyer's own concessions, $4 and $4.40
    expect(seller.slice(0, 4)).toEqual([140, 126.5, 122.5, 118.1]);
    // the buyer only talked: no new concession to answer, so it holds
    expect(seller[4]).toBe(118.1);
  });

  it("mirrors the opponent's last concession as a buyer", () => {
    // the seller came down $10 (130 → 120): the buyer, at 40, comes up $10
    const obs = observeAfter(ranged(100, 50), [offer(130), offer(40), offer(120)]);
    expect(moveOf(agent('tit-for-tat', 'buyer'), obs)).toEqual(offer(50));
  });

  it('never falls back past its opening, nor goes past its reservation', () => {
    // the seller takes back its concession and more (130 → 200): the buyer stays at its opening
    const retreat = observeAfter(ranged(100, 50), [offer(130), offer(40), offer(200)]);
    expect(moveOf(agent('tit-for-tat', 'buyer'), retreat)).toEqual(offer(40));
  });

  it('two tit-for-tats reach a deal where there is room, whoever opens', async () => {
    for (const firstMover of ['seller', 'buyer'] as const) {
      const { outcome } = await play(scenario(100, 60, { firstMover }), agent('tit-for-tat', 'buyer'), agent('tit-for-tat', 'seller'));
      expect(outcome.kind).toBe('deal');
    }
  });
});

describe('haggler', () => {
  it('gives up its step in dollars every two turns on the shared clock, from the best end of the range', async () => {
    const { events } = await play(scenario(90, 50), script([offer(40), offer(41), offer(42), offer(43)]), agent('haggler', 'seller'));
    // 117.5 less $5 × (turn + 1)/2 at turns 0, 2, 4, …
    expect(offersBy(events, 'seller').slice(0, 4)).toEqual([115, 110, 105, 100]);
    const buyer = moveOf(agent('haggler', 'buyer'), observeAfter(scenario(90, 50), [offer(110), offer(57.5), offer(105)]));
    expect(buyer).toEqual(offer(62.5)); // 52.5 + $5 × 4/2 at turn 3
  });

  it('the same dollars whatever the price: on a $1,000 item it has hardly moved', async () => {
    const dear = scenario(900, 500, { listPrice: 1000 });
    const { events } = await play(dear, script([offer(400), offer(410), offer(420)]), agent('haggler', 'seller'));
    expect(offersBy(events, 'seller').slice(0, 3)).toEqual([1172.5, 1167.5, 1162.5]);
    // on a $10 item the same step reaches the cost (5.00) by its second offer
    const cheap = scenario(9, 5, { listPrice: 10 });
    const { events: cheapEvents } = await play(cheap, script([offer(1), offer(2), offer(3)]), agent('haggler', 'seller'));
    expect(offersBy(cheapEvents, 'seller').slice(0, 3)).toEqual([9.25, 5, 5]);
  });

  it('accepts by AC_next and never beyond its reservation', () => {
    // at turn 2 it would offer 110: it takes 110 or more
    const facing = (pending: number) => moveOf(agent('haggler', 'seller'), observeAfter(scenario(90, 50), [offer(115), offer(pending)]));
    expect(facing(110)).toEqual({ action: { type: 'accept' } });
    expect(facing(109.99)).toEqual(offer(110));
  });
});

describe('random', () => {
  it('makes only legal moves, and every kind of them', async () => {
    const kinds = new Set<string>();
    const scenarios = generateScenarios({ preset: 'uniform', seed: 5, count: 60 });
    for (const [i, s] of scenarios.entries()) {
      const opponent = STRATEGY_NAMES[i % STRATEGY_NAMES.length] as string;
      const { events } = await play(s, agent('random', 'buyer', i), agent(opponent, 'seller', i + 1000));
      for (const e of events) {
        expect(e.type).not.toBe('invalid');
        if (e.type === 'move' && e.actor === 'buyer') {
          kinds.add(e.move.action?.type ?? 'message');
          expect((e.move.message ?? '').length).toBeLessThanOrEqual(600);
        }
      }
    }
    expect([...kinds].sort()).toEqual(['accept', 'message', 'offer', 'reject', 'walk_away']);
  });

  it('answers accept or reject only when there is an offer to answer', () => {
    const obs = observeAfter(scenario(90, 80), []);
    for (let seed = 0; seed < 300; seed++) {
      const move = moveOf(agent('random:walk=0', 'seller', seed), obs);
      expect(['offer', undefined]).toContain(move.action?.type);
      expect(bilateral.apply(bilateral.initialState(scenario(90, 80)), 'seller', move).ok).toBe(true);
    }
  });

  it('walk=1 always walks away; the same rng gives the same moves', () => {
    const obs = observeAfter(scenario(90, 80), [offer(120)]);
    expect(moveOf(agent('random:walk=1', 'buyer'), obs)).toEqual({ action: { type: 'walk_away' } });
    const a = agent('random', 'buyer', 9);
    const b = agent('random', 'buyer', 9);
    for (let k = 0; k < 20; k++) expect(moveOf(a, obs)).toEqual(moveOf(b, obs));
  });
});

describe('parameters', () => {
  it('beta sets the concession exponent: boulware is t⁴ (β = 0.25), a larger β concedes sooner', async () => {
    const slow = await offersAgainstHardliner('boulware:beta=0.25', 'seller');
    const fast = await offersAgainstHardliner('boulware:beta=3', 'seller');
    expect(slow).toEqual(await offersAgainstHardliner('boulware', 'seller'));
    expect(fast[4] as number).toBeLessThan((slow[4] as number) - 10);
  });

  it('kappa concedes part of the way in the opening offer', () => {
    // 117.5 + (0.5 + 0.5 × (1/21)^4) × (80 − 117.5), less the tolerance, to the cent
    const target = 117.5 + (0.5 + 0.5 * (1 / 21) ** 4) * (80 - 117.5);
    expect(moveOf(agent('boulware:kappa=0.5', 'seller'), observeAfter(scenario(90, 80), []))).toEqual(offer(Math.ceil((target - TOL) * 100) / 100));
    expect(Math.ceil((target - TOL) * 100) / 100).toBe(98.75);
  });

  it('tit-for-tat start sets the step before the opponent has offered twice', () => {
    // 140 + 0.25 × (50 − 140) from its opening
    const obs = observeAfter({ ...scenario(90, 50), priceRange: { lo: 40, hi: 140 } }, [offer(140), offer(40)]);
    expect(moveOf(agent('tit-for-tat:start=0.25', 'seller'), obs)).toEqual(offer(117.5));
  });

  it('the hardliner’s anchor sets its distance from its reservation, in list prices, for either role', () => {
    const s = scenario(90, 80);
    expect(moveOf(agent('hardliner:anchor=1', 'seller'), observeAfter(s, []))).toEqual(offer(180));
    expect(moveOf(agent('hardliner:anchor=0.3', 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(60));
    expect(moveOf(agent('hardliner:anchor=1', 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(0.01));
  });

  it('the haggler’s step is in dollars', () => {
    expect(moveOf(agent('haggler:step=20', 'seller'), observeAfter(scenario(90, 50), []))).toEqual(offer(107.5));
  });
});

describe('every scripted strategy', () => {
  it.each(STRATEGIES.filter((d) => d.rational).map((d) => d.name))('%s walks away when it values the item under a cent (no rational offer exists)', (name) => {
    const obs = observeAfter(scenario(0, 0), [offer(5)]);
    expect(moveOf(agent(name, 'buyer'), obs)).toEqual({ action: { type: 'walk_away' } });
  });

  it.each(STRATEGY_NAMES)('%s still answers with a legal move when told to retry', (name) => {
    for (const preset of PRESETS) {
      for (const s of generateScenarios({ preset, seed: 2, count: 5 })) {
        const moves: Move[] = [offer(s.item.listPrice)];
        const state = bilateral.initialState(s);
        const after = bilateral.apply(state, s.firstMover, moves[0] as Move);
        if (!after.ok) throw new Error(after.error.reason);
        const actor = bilateral.currentActor(after.value);
        const reply = agent(name, actor).act(bilateral.observe(after.value, actor), new AbortController().signal, {
          attempt: 1,
          reason: 'message is 700 characters; the limit is 600',
        });
        expect(reply).not.toBeInstanceOf(Promise);
        if (reply instanceof Promise || reply.kind !== 'move') throw new Error('expected a synchronous move');
        expect(bilateral.apply(after.value, actor, reply.move).ok).toBe(true);
      }
    }
  });
});

describe('behaviour measures on the scripted strategies (DESIGN.md: patience)', () => {
  // Fixed 20 turns, 10 own turns each, the tested side opening; the opponent is out of reach, so the
  // seat concedes its whole schedule. Own turn k is turn 2k at t = (2k + 1)/21, so its cumulative
  // concession from its opening is (t_k^e − t_0^e)/(1 − t_0^e) of the opening-to-reservation range
  // (e = 1/β; cents aside). Patience: own turns before that passed 5%, the crossing step in proportion.
  const expected = (e: number) => {
    const f = (k: number) => (((2 * k + 1) / 21) ** e - (1 / 21) ** e) / (1 - (1 / 21) ** e);
    let k = 1;
    while (f(k) <= 0.05) k++;
    return (k - 1 + (0.05 - f(k - 1)) / (f(k) - f(k - 1))) / 10;
  };

  it.each([
    ['boulware', 4],
    ['linear', 1],
    ['conceder', 0.25],
  ] as const)('%s (t^%s) has the patience its schedule implies, in either role', async (name, e) => {
    for (const role of ['seller', 'buyer'] as const) {
      const s = scenario(90, 80, { firstMover: role });
      const opponent = agent('hardliner:anchor=0.3', role === 'seller' ? 'buyer' : 'seller');
      const self = agent(name, role);
      const { events } = role === 'seller' ? await play(s, opponent, self) : await play(s, self, opponent);
      const m = computeMetrics(s, events);
      expect(m[role].patience).toBeCloseTo(expected(e), 2);
      expect(m[role].opening).toBeCloseTo((role === 'seller' ? RANGE.hi : RANGE.lo) / 100 + (role === 'seller' ? -1 : 1) * (1 / 21) ** e * 0.375, 3);
    }
  });

  it('boulware is more patient than linear, linear more than conceder, by a wide margin', () => {
    expect(expected(4)).toBeGreaterThan(0.3);
    expect(expected(1)).toBeGreaterThan(2 * expected(0.25));
    expect(expected(4)).toBeGreaterThan(5 * expected(1));
  });
});

describe('a public range that starts at $0 (the uniform preset)', () => {
  const s = { ...scenario(60, 20), priceRange: { lo: 0, hi: 100 } };
  it.each(['tit-for-tat', 'boulware', 'hardliner:anchor=5'])('%s, buying, opens at a cent rather than walking away', (name) => {
    expect(moveOf(agent(name, 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(0.01));
  });
  it('the haggler, buying, opens at $0 plus the half step of its first turn', () => {
    expect(moveOf(agent('haggler', 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(5));
    expect(moveOf(agent('haggler:step=0.01', 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(0.01));
  });
});
