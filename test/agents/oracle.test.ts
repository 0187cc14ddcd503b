/**
 * The oracle reference for Parley's own strategies (games/bilateral/oracle-agents.ts): which have one, exactness
 * of the scheduled search against a search played with the agent itself, hand-solved cases, and
 * the figures of a real tournament (never below what a seat got).
 */
import { describe, expect, it } from 'vitest';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { oracleOutcome, oracleShare } from '../../src/games/bilateral/oracle';
import { bilateral } from '../../src/games/bilateral/protocol';
import type { NegotiationResult } from '../../src/games/bilateral/tournament';
import { generateScenarios, opponentOf, type Role } from '../../src/games/bilateral/scenario';
import { makeAgent } from '../../src/games/bilateral/registry';
import { OracleScorer, oracleCounterpart, seatOracle } from '../../src/games/bilateral/oracle-agents';
import { STRATEGIES } from '../../src/games/bilateral/strategies';
import type { ScriptedAgent } from '../../src/games/bilateral/strategies/policy';
import { agent, scenario } from './fixtures';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

const DETERMINISTIC = STRATEGIES.filter((s) => s.deterministic).map((s) => s.name);
const SCHEDULED = DETERMINISTIC.filter((n) => n !== 'tit-for-tat');

describe('which counterparts have an oracle', () => {
  it('every deterministic strategy; tit-for-tat is searched with the agent itself, the others on their schedule', () => {
    for (const name of DETERMINISTIC)
      for (const role of ['buyer', 'seller'] as const)
        expect([name, oracleCounterpart(name, role)?.kind]).toEqual([name, name === 'tit-for-tat' ? 'reactive' : 'scheduled']);
  });

  it('none for random, a model or a person', () => {
    for (const spec of ['random', 'openai:gpt-4o-mini', 'webllm:Qwen3-0.6B-q4f16_1-MLC', 'human', 'no-such-strategy'])
      expect(oracleCounterpart(spec, 'seller')).toBeNull();
  });
});

describe('a scheduled strategy’s acceptance threshold is the one its moves obey', () => {
  it.each(SCHEDULED)('%s takes an offer exactly when it is at least as good for it as its threshold', (name) => {
    for (const s of generateScenarios({ preset: 'standard', seed: 4, count: 30 }))
      for (const role of ['buyer', 'seller'] as const) {
        const a = agent(name, role) as ScriptedAgent;
        // The other side talks on every turn: the agent's own moves follow its schedule.
        let state = bilateral.initialState(s);
        while (!bilateral.isTerminal(state)) {
          const actor = bilateral.currentActor(state);
          if (actor === role) {
            const threshold = a.schedule?.(bilateral.observe(state, role)).accepts ?? null;
            if (threshold !== null && state.turn > 0) {
              // An offer of the threshold made just before this turn is taken; one a cent worse for the agent is not.
              const worse = Math.round((threshold + (role === 'seller' ? -0.01 : 0.01)) * 100) / 100;
              const before = (price: number) => {
                const prior = bilateral.initialState(s);
                let st = prior;
                // Replay the game to the turn before, then put the offer in place of the other side's move there.
                for (let t = 0; t < state.turn - 1; t++) {
                  const who = bilateral.currentActor(st);
                  const reply =
                    who === role ? a.act(bilateral.observe(st, role), new AbortController().signal) : { kind: 'move' as const, move: { message: 'hm' } };
                  if (reply instanceof Promise || reply.kind !== 'move') throw new Error('synchronous');
                  const next = bilateral.apply(st, who, reply.move);
                  if (!next.ok) throw new Error(next.error.reason);
                  st = next.value;
                }
                const offered = bilateral.apply(st, opponentOf(role), { action: { type: 'offer', price } });
                if (!offered.ok) return null;
                const reply = a.act(bilateral.observe(offered.value, role), new AbortController().signal);
                if (reply instanceof Promise || reply.kind !== 'move') throw new Error('synchronous');
                return reply.move.action?.type === 'accept';
              };
              expect([name, s.id, role, state.turn, before(threshold)]).toEqual([name, s.id, role, state.turn, true]);
              if (worse >= 0.01) expect([name, s.id, role, state.turn, before(worse)]).toEqual([name, s.id, role, state.turn, false]);
            }
            const reply = a.act(bilateral.observe(state, role), new AbortController().signal);
            if (reply instanceof Promise || reply.kind !== 'move') throw new Error('synchronous');
            const next = bilateral.apply(state, role, reply.move);
            if (!next.ok) throw new Error(next.error.reason);
            state = next.value;
          } else {
            const next = bilateral.apply(state, actor, { message: 'hm' });
            if (!next.ok) throw new Error(next.error.reason);
            state = next.value;
          }
        }
      }
  });
});

describe('the scheduled search is exact', () => {
  it.each(SCHEDULED)('against %s it equals a search played with the agent itself (bisection over every cent)', (name) => {
    for (const preset of ['standard', 'uniform'] as const)
      for (const s of generateScenarios({ preset, seed: 9, count: 25, deadline: { kind: 'fixed', turns: 12 } }).concat(
        generateScenarios({ preset, seed: 9, count: 25 }),
      ))
        for (const seat of ['buyer', 'seller'] as const) {
          const other = opponentOf(seat);
          const scheduled = oracleOutcome(s, seat, oracleCounterpart(name, other)!);
          const played = oracleOutcome(s, seat, { kind: 'reactive', agent: makeAgent(name, other, { rng: null as never, jobId: 'x', seed: 1 }) });
          expect([s.id, seat, played.utility <= scheduled.utility + 1e-9]).toEqual([s.id, seat, true]);
          expect([s.id, seat, scheduled.utility]).toEqual([s.id, seat, expect.closeTo(played.utility, 9)]);
        }
  });
});

describe('hand-solved cases (v = 90, c = 50 on a $100 item, 20 turns, the seller first)', () => {
  const s = scenario(90, 50);

  it('against the hardliner (ask c + 0.1 list = 60, taken only at or above it) the buyer can do no better than 60', () => {
    const best = oracleOutcome(s, 'buyer', oracleCounterpart('hardliner', 'seller')!);
    expect(best).toEqual({ utility: 30, price: 60, turn: 1, how: 'accept' });
    expect(oracleShare(s, best)).toBeCloseTo(30 / 40, 12);
  });

  it('against the accommodator (takes anything within its cost) the buyer names the cost at once: the whole zone', () => {
    expect(oracleOutcome(s, 'buyer', oracleCounterpart('accommodator', 'seller')!)).toEqual({ utility: 40, price: 50, turn: 1, how: 'offer' });
  });

  it('against linear the buyer waits for the last threshold it can still offer: at turn 17, linear’s threshold at its last turn, 18', () => {
    // Linear seller on the range [52.5, 117.5]: its target at turn 18 is 117.5 − 19/21 × (117.5 − 50);
    // it takes an offer within NegMAS's tolerance (65 × 1e-4/0.99) of it, rounded up to the cent.
    const target = 117.5 - (19 / 21) * 67.5;
    const threshold = Math.ceil((target - (65 * 1e-4) / 0.99) * 100) / 100;
    expect(threshold).toBe(56.43);
    expect(oracleOutcome(s, 'buyer', oracleCounterpart('linear', 'seller')!)).toEqual({
      utility: expect.closeTo(90 - threshold, 9),
      price: threshold,
      turn: 17,
      how: 'offer',
    });
  });

  it('against tit-for-tat, a bid of a cent and then a jump: it mirrors the jump and takes the bid where they cross', () => {
    // Tit-for-tat opens at 117.5 and answers the cent with a step of 15% of 67.5, to 107.38. A jump to
    // g is mirrored, so it then asks 107.38 − (g − 0.01), and takes g once g is at least that:
    // g ≥ (107.38 + 0.01) / 2 = 53.695, so 53.70.
    const best = oracleOutcome(s, 'buyer', oracleCounterpart('tit-for-tat', 'seller')!);
    expect(best.price).toBe(53.7);
    expect(oracleShare(s, best)).toBeCloseTo((90 - 53.7) / 40, 12);
  });
});

describe('the oracle figures of a tournament', () => {
  async function play(agents: string[]): Promise<NegotiationResult[]> {
    const scorer = new OracleScorer();
    const out: NegotiationResult[] = [];
    await runTournament(bilateralGame, { agents, scenariosPerPair: 40, preset: 'standard', seed: 5, selfPlay: true }, makeAgent, {
      onResult: (r) => {
        scorer.score(r.buyer, r.seller, r.scenario, r.metrics);
        out.push(r);
      },
    });
    return out;
  }

  it('never below the share a seat got, its gap the difference; null against random and without gains from trade', async () => {
    const results = await play([...DETERMINISTIC, 'random']);
    let seen = 0;
    for (const r of results)
      for (const seat of ['buyer', 'seller'] as const) {
        const m = r.metrics[seat];
        const counterpart = seat === 'buyer' ? r.seller : r.buyer;
        if (counterpart === 'random' || !m || !r.metrics.gft || r.metrics.outcome === 'error') {
          expect(m.oracleShare).toBeNull();
          expect(m.oracleGap).toBeNull();
          continue;
        }
        seen++;
        const achieved = r.metrics.deal ? (m.share as number) : 0;
        expect(m.oracleShare as number).toBeGreaterThanOrEqual(achieved - 1e-9);
        expect(m.oracleShare as number).toBeLessThanOrEqual(1);
        expect(m.oracleGap).toBeCloseTo((m.oracleShare as number) - achieved, 12);
      }
    expect(seen).toBeGreaterThan(1000);
  });

  it('the leaderboard’s oracle share and gap are the means over the seat’s negotiations with an oracle', async () => {
    const results = await play(['boulware', 'conceder', 'random']);
    const agg = new Aggregator();
    for (const r of results) agg.add(r.buyer, r.seller, r.scenario, r.metrics);
    const { leaderboard } = agg.standings({ samples: 0 });
    for (const row of leaderboard) {
      const mine = results.filter((r) => r[row.role] === row.agent && r.metrics[row.role].oracleShare !== null);
      const mean = (f: (r: NegotiationResult) => number) => mine.reduce((a, r) => a + f(r), 0) / mine.length;
      if (mine.length === 0) {
        expect(row.oracleShare).toBeNull();
        continue;
      }
      expect(row.oracleShare).toBeCloseTo(
        mean((r) => r.metrics[row.role].oracleShare as number),
        12,
      );
      expect(row.oracleGap).toBeCloseTo(
        mean((r) => r.metrics[row.role].oracleGap as number),
        12,
      );
    }
    // random meets only boulware and conceder (and itself): some of its negotiations have an oracle
    expect(leaderboard.find((r) => r.agent === 'random' && r.role === 'buyer')?.oracleShare).not.toBeNull();
  });

  it('seatOracle against a reactive counterpart counts what the seat got when that beats the search', () => {
    const s = scenario(90, 50);
    const searched = oracleShare(s, oracleOutcome(s, 'buyer', oracleCounterpart('tit-for-tat', 'seller')!)) as number;
    expect(seatOracle(s, 'buyer', 'tit-for-tat', 0)).toEqual({ oracleShare: searched, oracleGap: searched });
    // A scheduled counterpart's search is exact: what the seat got never replaces it.
    const hard = oracleShare(s, oracleOutcome(s, 'buyer', oracleCounterpart('hardliner', 'seller')!)) as number;
    expect(seatOracle(s, 'buyer', 'hardliner', 0.2)).toEqual({ oracleShare: hard, oracleGap: hard - 0.2 });
    const roles: Role[] = ['buyer', 'seller'];
    expect(roles.map((r) => seatOracle({ ...s, buyerValue: 40 }, r, 'linear', 0))).toEqual([null, null]);
  });
});
