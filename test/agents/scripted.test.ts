import { describe, expect, it } from 'vitest';
import { offer, say, type Move } from '../../src/core/bilateral/moves';
import { bilateral } from '../../src/core/bilateral/protocol';
import { computeMetrics } from '../../src/core/bilateral/metrics';
import { generateScenarios, PRESETS, roundCents, type Role } from '../../src/core/scenario';
import { STRATEGIES } from '../../src/agents/scripted';
import { STRATEGY_NAMES } from '../../src/agents/registry';
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

describe('time-dependent strategies', () => {
  it('boulware concedes slower than conceder at the same own time', async () => {
    for (const role of ['seller', 'buyer'] as const) {
      const boulware = await offersAgainstHardliner('boulware', role);
      const conceder = await offersAgainstHardliner('conceder', role);
      expect(boulware).toHaveLength(10);
      expect(conceder).toHaveLength(10);
      expect(boulware[0]).toBe(conceder[0]);
      expect(boulware[9]).toBe(conceder[9]);
      // a seller's price falls, a buyer's rises; boulware stays further from its reservation
      const sign = role === 'seller' ? 1 : -1;
      for (let k = 1; k < 9; k++) expect(sign * ((boulware[k] as number) - (conceder[k] as number))).toBeGreaterThan(0);
      for (let k = 1; k < 10; k++) {
        expect(sign * ((boulware[k - 1] as number) - (boulware[k] as number))).toBeGreaterThanOrEqual(0);
        expect(sign * ((conceder[k - 1] as number) - (conceder[k] as number))).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('linear offers are evenly spaced from the aspiration to the reservation', async () => {
    const seller = await offersAgainstHardliner('linear', 'seller');
    expect(seller[0]).toBe(120);
    const step = (80 - 120) / 9;
    for (let k = 1; k < seller.length; k++)
      expect(Math.abs((seller[k] as number) - (seller[k - 1] as number) - step)).toBeLessThanOrEqual(0.0101);
    const buyer = await offersAgainstHardliner('linear', 'buyer');
    expect(buyer[0]).toBe(50);
    for (let k = 1; k < buyer.length; k++)
      expect(Math.abs((buyer[k] as number) - (buyer[k - 1] as number) - (90 - 50) / 9)).toBeLessThanOrEqual(0.0101);
  });

  it.each(['boulware', 'linear', 'conceder'])('%s opens at its aspiration and ends at its reservation', async (name) => {
    for (const role of ['seller', 'buyer'] as const) {
      const offers = await offersAgainstHardliner(name, role);
      expect(offers[0]).toBe(role === 'seller' ? 120 : 50);
      expect(offers[offers.length - 1]).toBe(role === 'seller' ? 80 : 90);
    }
  });

  it('offers its reservation at once when it has a single turn', () => {
    const s = scenario(90, 80, { turnLimit: 2 });
    expect(moveOf(agent('boulware', 'seller'), observeAfter(s, []))).toEqual(offer(80));
  });

  it('opens 0.4 list prices from its own reservation, whatever the list price, and rounds to cents', () => {
    // cost 150 is above the list price: the seller still opens with room, at 150 + 40
    expect(moveOf(agent('boulware', 'seller'), observeAfter(scenario(200, 150), []))).toEqual(offer(190));
    // value 30 is under 0.4 × list: the buyer opens at a cent, not at its value
    expect(moveOf(agent('boulware', 'buyer'), observeAfter(scenario(30, 10), [say('hi')]))).toEqual(offer(0.01));
    // cost 80.333 is off-cent and must not be undercut by rounding
    const offCent = { ...scenario(90, 80), sellerCost: 80.333, turnLimit: 2 };
    expect(moveOf(agent('linear', 'seller'), observeAfter(offCent, []))).toEqual(offer(80.34));
    const buyerOffCent = { ...scenario(90, 80), buyerValue: 90.337, turnLimit: 2 };
    expect(moveOf(agent('linear', 'buyer'), observeAfter(buyerOffCent, [say('hello')]))).toEqual(offer(90.33));
  });
});

describe('AC_next', () => {
  // linear seller, c = 80, at its second own turn: next offer 120 − 40/9 = 115.56
  const s = scenario(90, 80);
  const sellerFacing = (pending: number) => moveOf(agent('linear', 'seller'), observeAfter(s, [offer(130), offer(pending)]));

  it('accepts a pending offer at least as good as its next offer', () => {
    expect(sellerFacing(116)).toEqual({ action: { type: 'accept' } });
    expect(sellerFacing(115.56)).toEqual({ action: { type: 'accept' } });
  });

  it('counters a pending offer worse than its next offer', () => {
    expect(sellerFacing(115.55)).toEqual(offer(115.56));
  });

  it('works for the buyer the other way round', () => {
    // linear buyer at its first own turn would offer 50
    const buyerFacing = (pending: number) => moveOf(agent('linear', 'buyer'), observeAfter(s, [offer(pending)]));
    expect(buyerFacing(49.99)).toEqual({ action: { type: 'accept' } });
    expect(buyerFacing(50.01)).toEqual(offer(50));
  });

  it('never accepts beyond its reservation, even at its last turn', () => {
    // 17 turns of talk, then the buyer offers; the seller's turn 18 is its last
    const talk = Array.from({ length: 17 }, () => say('hmm'));
    const lastTurn = (pending: number) => observeAfter(s, [...talk, offer(pending)]);
    expect(lastTurn(79.99).ownTurn).toBe(lastTurn(79.99).ownTurns - 1);
    for (const name of ['boulware', 'linear', 'conceder', 'tit-for-tat', 'accommodator']) {
      expect(moveOf(agent(name, 'seller'), lastTurn(79.99))).toEqual(offer(80));
      expect(moveOf(agent(name, 'seller'), lastTurn(80))).toEqual({ action: { type: 'accept' } });
    }
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
  it("mirrors the opponent's relative concession as a seller", async () => {
    const s = scenario(90, 50);
    const buyer = script([offer(40), offer(44), offer(48.4), say('let me think')]);
    const { events } = await play(s, buyer, agent('tit-for-tat', 'seller'));
    const seller = offersBy(events, 'seller');
    // aspiration 50 + 40 = 90; one step of 5% of (50 − 90) while the buyer has made one offer
    expect(seller.slice(0, 2)).toEqual([90, 88]);
    expect(seller[2]).toBe(roundCents((88 * 40) / 44));
    expect(seller[3]).toBe(roundCents(((seller[2] as number) * 44) / 48.4));
    // the buyer only talked: no new concession to answer, so it holds
    expect(seller[4]).toBe(seller[3]);
  });

  it("mirrors the opponent's relative concession as a buyer", () => {
    const s = scenario(100, 50);
    const obs = observeAfter(s, [offer(150), offer(50), offer(135)]);
    // aspiration 100 − 60 = 40, so 50 × 150/135 lies between it and the value
    expect(moveOf(agent('tit-for-tat:anchor=0.6', 'buyer'), obs)).toEqual(offer(roundCents((50 * 150) / 135)));
  });

  it('clamps a mirrored offer between its aspiration and its reservation', () => {
    // the seller takes back its concession (150 → 300): the buyer falls back only to its aspiration
    const retreat = observeAfter(scenario(100, 50), [offer(150), offer(50), offer(300)]);
    expect(moveOf(agent('tit-for-tat:anchor=0.5', 'buyer'), retreat)).toEqual(offer(50));
    // the seller halves its price (150 → 75): doubling 50 would pass the buyer's value of 60
    const leap = observeAfter(scenario(60, 50), [offer(150), offer(50), offer(75)]);
    expect(moveOf(agent('tit-for-tat:anchor=0.5', 'buyer'), leap)).toEqual(offer(60));
  });

  it('two tit-for-tats reach a deal where there is room', async () => {
    const { outcome } = await play(scenario(100, 60), agent('tit-for-tat', 'buyer'), agent('tit-for-tat', 'seller'));
    expect(outcome.kind).toBe('deal');
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
  it('beta changes how fast boulware concedes', async () => {
    const slow = await offersAgainstHardliner('boulware:beta=0.2', 'seller');
    const fast = await offersAgainstHardliner('boulware:beta=3', 'seller');
    expect(slow).toEqual(await offersAgainstHardliner('boulware', 'seller'));
    expect(fast).not.toEqual(slow);
    expect(fast[4] as number).toBeLessThan((slow[4] as number) - 10);
  });

  it('kappa concedes part of the range in the opening offer', async () => {
    const offers = await offersAgainstHardliner('boulware:kappa=0.5', 'seller');
    expect(offers[0]).toBe(100); // 120 + 0.5 × (80 − 120)
  });

  it('the anchor sets the opening distance from the reservation, in list prices, for either role', () => {
    const s = scenario(90, 80);
    expect(moveOf(agent('boulware:anchor=1', 'seller'), observeAfter(s, []))).toEqual(offer(180));
    expect(moveOf(agent('boulware:anchor=0.3', 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(60));
    expect(moveOf(agent('boulware:anchor=1', 'buyer'), observeAfter(s, [say('hi')]))).toEqual(offer(0.01));
  });

  it('tit-for-tat start sets the step before the opponent has offered twice', () => {
    // aspiration 50 + 100 = 150; a step of 0.25 × (50 − 150) from its last offer of 130
    const obs = observeAfter(scenario(90, 50), [offer(130), offer(40)]);
    expect(moveOf(agent('tit-for-tat:start=0.25:anchor=1', 'seller'), obs)).toEqual(offer(105));
  });
});

describe('every scripted strategy', () => {
  it.each(STRATEGIES.filter((d) => d.rational).map((d) => d.name))(
    '%s walks away when it values the item under a cent (no rational offer exists)',
    (name) => {
      const obs = observeAfter(scenario(0, 0), [offer(5)]);
      expect(moveOf(agent(name, 'buyer'), obs)).toEqual({ action: { type: 'walk_away' } });
    },
  );

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
  // Fixed 20 turns, 10 own turns each; the opponent is out of reach, so the seat concedes its whole
  // schedule. With κ = 0 its cumulative concession at own turn k is (k/9)^(1/β) of the range, so it
  // first exceeds 5% at the smallest k with (k/9)^(1/β) > 0.05; patience is k/10.
  const expected = (beta: number) => {
    let k = 0;
    while ((k / 9) ** (1 / beta) <= 0.05) k++;
    return k / 10;
  };

  it.each([
    ['boulware', 0.2],
    ['conceder', 5],
  ] as const)('%s (β = %s) has the patience its schedule implies, in either role', async (name, beta) => {
    for (const role of ['seller', 'buyer'] as const) {
      const s = scenario(90, 80, { firstMover: role });
      const opponent = agent('hardliner:anchor=0.3', role === 'seller' ? 'buyer' : 'seller');
      const self = agent(name, role);
      const { events } = role === 'seller' ? await play(s, opponent, self) : await play(s, self, opponent);
      const m = computeMetrics(s, events);
      expect(m[role].patience).toBe(expected(beta));
      expect(m[role].concession).toBeCloseTo(1, 12);
      expect(m[role].opening).toBeCloseTo(role === 'seller' ? 1.2 : 0.5, 12);
    }
    expect(expected(0.2)).toBe(0.5);
    expect(expected(5)).toBe(0.1);
  });
});
