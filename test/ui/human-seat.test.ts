import { describe, expect, test } from 'vitest';
import { CONFIRM_LIST_MULTIPLE, describeRisk, moveRisk, shortTurnsLeft, turnsLeft } from '../../src/ui/human-seat';
import { passAndPlayName, seatPlayers } from '../../src/ui/pass-and-play';
import { classExport, playerOf, runTitle, UNNAMED } from '../../src/ui/class-export';
import { makeAgent } from '../../src/games/bilateral/registry';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { createRng } from '../../src/engine/rng';
import { makeScenario } from '../../src/games/bilateral/scenario';
import { CATALOG } from '../../src/games/bilateral/catalog';

const buyer = { role: 'buyer' as const, reservation: 88.5, listPrice: 79, pending: 95 };
const seller = { role: 'seller' as const, reservation: 40, listPrice: 79, pending: 35.25 };
const offer = (price: number) => ({ type: 'offer' as const, price });

describe('moves that ask first', () => {
  test('an offer or an acceptance that would lose money, with what it would cost', () => {
    expect(moveRisk(buyer, offer(4048))).toEqual({ kind: 'loss', action: 'offer', price: 4048, loss: 3959.5, reservation: 88.5 });
    expect(describeRisk(moveRisk(buyer, offer(4048))!, 'buyer')).toBe(
      'Offering $4,048.00 would lose you $3,959.50 if the seller accepts: it is above your value of $88.50. Send it anyway?',
    );
    expect(moveRisk(buyer, { type: 'accept' })).toEqual({ kind: 'loss', action: 'accept', price: 95, loss: 6.5, reservation: 88.5 });
    expect(describeRisk(moveRisk(seller, { type: 'accept' })!, 'seller')).toBe(
      'Accepting $35.25 would lose you $4.75: it is below your cost of $40.00. Send it anyway?',
    );
    expect(describeRisk(moveRisk(seller, offer(12))!, 'seller')).toBe(
      'Offering $12.00 would lose you $28.00 if the buyer accepts: it is below your cost of $40.00. Send it anyway?',
    );
  });

  test('a seller asking more than twice the list price is asked too; at the reservation, or within it, nothing is asked', () => {
    const far = CONFIRM_LIST_MULTIPLE * 79 + 0.01;
    expect(moveRisk(seller, offer(far))).toEqual({ kind: 'far-above-list', price: far, listPrice: 79 });
    expect(describeRisk(moveRisk(seller, offer(far))!, 'seller')).toBe('$158.01 is more than 2 times the list price of $79.00. Send this offer anyway?');
    expect(moveRisk(seller, offer(158))).toBeNull();
    expect(moveRisk(buyer, offer(88.5))).toBeNull();
    expect(moveRisk(seller, offer(40))).toBeNull();
    expect(moveRisk({ ...buyer, pending: 60 }, { type: 'accept' })).toBeNull();
    expect(moveRisk(buyer, { type: 'reject' })).toBeNull();
    expect(moveRisk(buyer, { type: 'walk_away' })).toBeNull();
    expect(moveRisk(buyer, undefined)).toBeNull();
    // Accept with nothing on the table is the protocol's to refuse, not a loss.
    expect(moveRisk({ ...buyer, pending: null }, { type: 'accept' })).toBeNull();
  });
});

test('the turns left in a few words, for the seat’s top line', () => {
  expect(shortTurnsLeft(turnsLeft({ turn: 1, turnLimit: 10, turnRange: { min: 10, max: 10 } }))).toBe('turn 2 of 10, 5 of yours left');
  expect(shortTurnsLeft(turnsLeft({ turn: 1, turnLimit: null, turnRange: { min: 8, max: 12 } }))).toBe('turn 2 of 8–12, 4 to 6 of yours left');
});

describe('a pass-and-play game’s name', () => {
  test('carries each seat’s student, read back seat by seat; the class export’s reader sees a player part', () => {
    const name = passAndPlayName({ buyer: ' Ada ', seller: 'Ben' }, 'human buys Blender from human');
    expect(name).toBe('Ada (buyer), Ben (seller): human buys Blender from human');
    expect(seatPlayers(name)).toEqual({ buyer: 'Ada', seller: 'Ben' });
    expect(playerOf(name)).toBe('Ada (buyer), Ben (seller)');
  });

  test('an unnamed seat, a name holding “: ”, and a one-player game', () => {
    expect(seatPlayers(passAndPlayName({ buyer: '', seller: 'Dr: Who' }, 'human buys Kettle from human'))).toEqual({ buyer: UNNAMED, seller: 'Dr Who' });
    expect(seatPlayers('Ada: human buys Blender from linear')).toBeNull();
    expect(seatPlayers('human buys Blender from human')).toBeNull();
    expect(passAndPlayName({ buyer: 'x'.repeat(99), seller: 'y'.repeat(99) }, 'human buys Blender from human').length).toBeLessThanOrEqual(200);
  });
});

test('a pass-and-play game is ranked like any: both students by name, each in their own seat, in the class export and on the Runs page', async () => {
  const blender = CATALOG.find((i) => i.id === 'blender')!;
  const scenario = makeScenario('class-blender', blender, 88.5, 40, { turnLimit: 12, firstMover: 'seller' });
  // Two scripted stand-ins play the students' seats: the ranking reads the stored seats and the log, not who typed.
  const rng = createRng(1);
  const played = await playNegotiation(scenario, {
    buyer: makeAgent('boulware', 'buyer', { rng, jobId: 'pp', seed: 1 }),
    seller: makeAgent('linear', 'seller', { rng, jobId: 'pp', seed: 1 }),
  });
  const runName = passAndPlayName({ buyer: 'Ada', seller: 'Ben' }, 'human buys Blender from human');
  const out = classExport([{ runId: 'pp', runName, createdAt: 1, buyer: 'human', seller: 'human', scenario, events: played.events }]);
  expect(out.games.map((g) => [g.buyer, g.seller, g.buyerIsHuman, g.sellerIsHuman])).toEqual([['Ada', 'Ben', true, true]]);
  expect(out.ranking.map((r) => [r.name, r.kind, r.games])).toEqual(
    expect.arrayContaining([
      ['Ada', 'student', 1],
      ['Ben', 'student', 1],
    ]),
  );
  expect(out.ranking).toHaveLength(2);
  expect(runTitle({ name: runName, config: { kind: 'arena', buyer: 'human', seller: 'human' } })).toBe('Ada buys Blender from Ben');
});
