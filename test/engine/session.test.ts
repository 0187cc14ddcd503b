import { describe, expect, it } from 'vitest';
import { ACCEPT, REJECT, WALK_AWAY, offer, say, type Move } from '../../src/games/bilateral/moves';
import { BILATERAL_REFUSALS, bilateral, type BilateralObservation } from '../../src/games/bilateral/protocol';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { SimulatedClock } from '../../src/engine/clock';
import { createRng } from '../../src/engine/rng';
import { runSession, type Agent, type AgentReply, type RunOptions } from '../../src/engine/session';
import type { Role } from '../../src/games/bilateral/scenario';
import type { BilateralOutcome } from '../../src/games/bilateral/protocol';
import { call, malformed, replay, scenario } from '../games/bilateral/helpers';

type BAgent = Agent<BilateralObservation, Move>;
type Opts = RunOptions<Role, Move, BilateralOutcome>;

const run = (agents: Record<Role, BAgent>, opts: Opts = {}, scn = scenario()) => runSession(bilateral, scn, agents, opts);

/** Lets pending promise callbacks and zero-delay timers run. */
const tick = () => new Promise<void>((r) => setTimeout(r, 0));

/** An async agent that never answers; it records the signal it was handed. */
function stalled(): BAgent & { called: Promise<AbortSignal>; calls: number } {
  let called!: (s: AbortSignal) => void;
  const agent = {
    calls: 0,
    called: new Promise<AbortSignal>((r) => (called = r)),
    act(_obs: BilateralObservation, signal: AbortSignal) {
      agent.calls++;
      called(signal);
      return new Promise<AgentReply<Move>>(() => {});
    },
  };
  return agent;
}

function expectWellFormed(events: readonly BilateralEvent[]) {
  expect(events.length).toBeGreaterThan(0);
  expect(events.at(-1)!.type).toBe('end');
  expect(events.filter((e) => e.type === 'end')).toHaveLength(1);
  for (let i = 1; i < events.length; i++) expect(events[i]!.turn).toBeGreaterThanOrEqual(events[i - 1]!.turn);
}

describe('runSession: a normal negotiation', () => {
  it('records each move and ends with the protocol outcome', async () => {
    const seller = replay([offer(170, 'Lovely widget'), offer(140)]);
    const buyer = replay([offer(120), ACCEPT]);
    const rec = await run({ seller, buyer });
    expect(rec.events).toEqual([
      { type: 'move', turn: 0, actor: 'seller', move: offer(170, 'Lovely widget') },
      { type: 'move', turn: 1, actor: 'buyer', move: offer(120) },
      { type: 'move', turn: 2, actor: 'seller', move: offer(140) },
      { type: 'move', turn: 3, actor: 'buyer', move: ACCEPT },
      { type: 'end', turn: 4, outcome: { kind: 'deal', price: 140, turn: 4, acceptedBy: 'buyer' } },
    ]);
    expect(rec.outcome).toEqual({ kind: 'deal', price: 140, turn: 4, acceptedBy: 'buyer' });
    expect(seller.observations).toHaveLength(2);
    expect(buyer.observations).toHaveLength(2);
  });

  it('hands each agent its own observation, with the opponent’s pending offer', async () => {
    const seller = replay([offer(170), ACCEPT]);
    const buyer = replay([offer(120)]);
    await run({ seller, buyer });
    expect(seller.observations.map((o) => [o.role, o.turn, o.reservation, o.pending])).toEqual([
      ['seller', 0, 90, null],
      ['seller', 2, 90, 120],
    ]);
    expect(buyer.observations.map((o) => [o.role, o.turn, o.reservation, o.pending])).toEqual([['buyer', 1, 150, 170]]);
    expect(seller.retries).toEqual([undefined, undefined]);
  });

  it('runs to the turn limit when nobody closes', async () => {
    const rec = await run({ seller: replay([]), buyer: replay([]) }, {}, scenario({ turnLimit: 5 }));
    expect(rec.outcome).toEqual({ kind: 'turn_limit', turn: 5 });
    expect(rec.events.filter((e) => e.type === 'move')).toHaveLength(5);
    expect(rec.events.at(-1)).toEqual({ type: 'end', turn: 5, outcome: rec.outcome });
  });

  it('ends on a walk-away', async () => {
    const rec = await run({ seller: replay([offer(180)]), buyer: replay([WALK_AWAY]) });
    expect(rec.outcome).toEqual({ kind: 'walk_away', by: 'buyer', turn: 2 });
    expectWellFormed(rec.events);
  });

  it('onEvent sees every event, in order, as it happens', async () => {
    const seen: BilateralEvent[] = [];
    const countsAtAct: number[] = [];
    const buyerBase = replay([ACCEPT, offer(100), say('ok')]);
    const buyer: BAgent = {
      act: (obs, signal, retry) => {
        countsAtAct.push(seen.length);
        return buyerBase.act(obs, signal, retry);
      },
    };
    const rec = await run({ seller: replay([say('hi'), offer(160), WALK_AWAY]), buyer }, { onEvent: (e) => seen.push(e) });
    expect(seen).toEqual(rec.events);
    expect(seen.map((e) => e.type)).toEqual(['move', 'invalid', 'move', 'move', 'move', 'move', 'end']);
    // The buyer's first call came after the seller's move was emitted, the retry after the invalid one.
    expect(countsAtAct).toEqual([1, 2, 4]);
  });

  it('records the call record of a model-backed move', async () => {
    const seller = replay([{ kind: 'move', move: offer(170), call: call(100, 20, 350) }]);
    const rec = await run({ seller, buyer: replay([WALK_AWAY]) });
    expect(rec.events[0]).toEqual({ type: 'move', turn: 0, actor: 'seller', move: offer(170), call: call(100, 20, 350) });
    expect('call' in rec.events[1]!).toBe(false);
  });
});

describe('runSession: invalid answers, retries and forfeits', () => {
  it('records a move the protocol refuses with its reason and the raw move, and tells the agent', async () => {
    const seller = replay([offer(-5), offer(170)]);
    const rec = await run({ seller, buyer: replay([WALK_AWAY]) });
    const first = rec.events[0]!;
    expect(first).toMatchObject({ type: 'invalid', turn: 0, actor: 'seller', attempt: 0 });
    if (first.type !== 'invalid') throw new Error('unreachable');
    // The event records the protocol's refusal in its English (the code stays with the protocol's answer).
    expect(first.reason).toBe(BILATERAL_REFUSALS['price-not-positive']({ field: 'offer price', price: -5 }));
    expect(JSON.parse(first.raw)).toEqual(offer(-5));
    expect(rec.events[1]).toEqual({ type: 'move', turn: 0, actor: 'seller', move: offer(170) });
    expect(seller.retries).toEqual([undefined, { attempt: 1, reason: first.reason }]);
    // The retried observation is of the same, unchanged state.
    expect(seller.observations[1]).toEqual(seller.observations[0]);
    expect(rec.outcome).toMatchObject({ kind: 'walk_away' });
  });

  it('records an answer the agent itself could not parse, with its reason and raw text', async () => {
    const seller = replay([{ kind: 'invalid', reason: 'no JSON found', raw: 'I offer a hundred bucks', call: call(50, 8, 90) }, offer(170)]);
    const rec = await run({ seller, buyer: replay([WALK_AWAY]) });
    expect(rec.events[0]).toEqual({
      type: 'invalid',
      turn: 0,
      actor: 'seller',
      attempt: 0,
      reason: 'no JSON found',
      raw: 'I offer a hundred bucks',
      call: call(50, 8, 90),
    });
    expect(seller.retries[1]).toEqual({ attempt: 1, reason: 'no JSON found' });
  });

  it('allows two retries by default, then forfeits the turn and play passes on', async () => {
    const seller = replay([ACCEPT, ACCEPT, REJECT, WALK_AWAY]);
    const buyer = replay([say('hello?')]);
    const rec = await run({ seller, buyer });
    expect(rec.events.map((e) => [e.type, e.turn, 'actor' in e ? e.actor : null])).toEqual([
      ['invalid', 0, 'seller'],
      ['invalid', 0, 'seller'],
      ['invalid', 0, 'seller'],
      ['forfeit', 0, 'seller'],
      ['move', 1, 'buyer'],
      ['move', 2, 'seller'],
      ['end', 3, null],
    ]);
    expect(rec.events.slice(0, 3).map((e) => (e.type === 'invalid' ? e.attempt : -1))).toEqual([0, 1, 2]);
    expect(seller.retries.map((r) => r?.attempt)).toEqual([undefined, 1, 2, undefined]);
    expect(seller.retries[1]!.reason).toBe(BILATERAL_REFUSALS['nothing-to-accept']());
    expect(seller.retries[2]!.reason).toBe(BILATERAL_REFUSALS['nothing-to-accept']());
    expect(rec.outcome).toEqual({ kind: 'walk_away', by: 'seller', turn: 3 });
    expect(buyer.observations[0]!.transcript).toEqual([{ turn: 0, actor: 'seller', forfeited: true }]);
  });

  it('honours maxRetries', async () => {
    for (const maxRetries of [0, 1, 4]) {
      const seller = replay([...Array(maxRetries + 1).fill(ACCEPT), WALK_AWAY]);
      const rec = await run({ seller, buyer: replay([say('?')]) }, { maxRetries });
      expect(rec.events.filter((e) => e.type === 'invalid')).toHaveLength(maxRetries + 1);
      expect(rec.events[maxRetries + 1]).toEqual({ type: 'forfeit', turn: 0, actor: 'seller' });
      expect(rec.outcome).toMatchObject({ kind: 'walk_away', by: 'seller' });
    }
  });

  it('forfeits count as turns: an agent that is always wrong still ends by the turn limit', async () => {
    const always: BAgent = { act: () => ({ kind: 'move', move: ACCEPT }) };
    const rec = await run({ seller: always, buyer: always }, {}, scenario({ turnLimit: 6 }));
    expect(rec.outcome).toEqual({ kind: 'turn_limit', turn: 6 });
    expect(rec.events.filter((e) => e.type === 'forfeit')).toHaveLength(6);
    expect(rec.events.filter((e) => e.type === 'invalid')).toHaveLength(18);
  });

  it('records a non-serialisable move without throwing', async () => {
    const cyclic: Record<string, unknown> = { action: { type: 'offer', price: -1 } };
    cyclic.self = cyclic;
    const rec = await run({ seller: replay([malformed(cyclic), WALK_AWAY]), buyer: replay([]) });
    expect(rec.events[0]).toMatchObject({ type: 'invalid', actor: 'seller' });
    expect(rec.outcome).toMatchObject({ kind: 'walk_away' });
  });
});

describe('runSession: failing agents', () => {
  it('ends as an error when an agent throws, and does not throw itself', async () => {
    const buyer: BAgent = {
      act: () => {
        throw new Error('backend exploded');
      },
    };
    const rec = await run({ seller: replay([offer(170)]), buyer });
    expect(rec.outcome).toEqual({ kind: 'error', actor: 'buyer', message: 'backend exploded', turn: 1 });
    expect(rec.events.at(-1)).toEqual({ type: 'end', turn: 1, outcome: rec.outcome });
    expectWellFormed(rec.events);
  });

  it('ends as an error when an async agent rejects, whatever it rejects with', async () => {
    const cases: [unknown, string][] = [
      [new Error('HTTP 500'), 'HTTP 500'],
      ['plain string', 'plain string'],
      [new Error(''), 'agent failed'],
    ];
    for (const [thrown, message] of cases) {
      const seller: BAgent = { act: () => Promise.reject(thrown) };
      const rec = await run({ seller, buyer: replay([]) });
      expect(rec.outcome).toEqual({ kind: 'error', actor: 'seller', message, turn: 0 });
    }
  });

  it('ends as an error, not a throw, when an agent answers with something that is not a reply', async () => {
    const sync: BAgent = { act: () => undefined as unknown as AgentReply<Move> };
    const asyncNull: BAgent = { act: async () => null as unknown as AgentReply<Move> };
    for (const bad of [sync, asyncNull]) {
      const rec = await run({ seller: bad, buyer: replay([]) });
      expect(rec.outcome).toMatchObject({ kind: 'error', actor: 'seller', turn: 0 });
      expect(rec.events.at(-1)!.type).toBe('end');
    }
  });

  it('times out an async agent that never answers, using the clock it is given', async () => {
    const clock = new SimulatedClock();
    const buyer = stalled();
    let settled = false;
    const pending = run({ seller: replay([offer(170)]), buyer }, { clock, moveTimeoutMs: 1000 }).then((r) => {
      settled = true;
      return r;
    });
    await buyer.called;
    clock.advance(999);
    await tick();
    expect(settled).toBe(false);
    clock.advance(1);
    const rec = await pending;
    expect(rec.outcome).toMatchObject({ kind: 'error', actor: 'buyer', turn: 1 });
    if (rec.outcome.kind !== 'error') throw new Error('unreachable');
    expect(rec.outcome.message).toMatch(/1000 ms/);
    expect(buyer.calls).toBe(1);
    expectWellFormed(rec.events);
  });

  it('tells a timed-out agent to stop: the signal it was handed is aborted', async () => {
    const clock = new SimulatedClock();
    const seller = stalled();
    const pending = run({ seller, buyer: replay([]) }, { clock, moveTimeoutMs: 50 });
    const signal = await seller.called;
    expect(signal.aborted).toBe(false);
    clock.advance(50);
    const rec = await pending;
    expect(rec.outcome).toMatchObject({ kind: 'error', actor: 'seller' });
    // Otherwise an LLM request that timed out keeps running (and spending) in the background.
    expect(signal.aborted).toBe(true);
  });

  it('does not time out an agent that answers in time, and each move gets its own allowance', async () => {
    const clock = new SimulatedClock();
    // Each answer arrives 600 ms of simulated time after it was asked for; the limit is 1000 ms per move.
    const slow = (moves: Move[]): BAgent => {
      const base = replay(moves);
      return {
        act: async (obs, signal, retry) => {
          await tick();
          clock.advance(600);
          return base.act(obs, signal, retry);
        },
      };
    };
    const rec = await run({ seller: slow([offer(170), offer(150)]), buyer: slow([offer(120), ACCEPT]) }, { clock, moveTimeoutMs: 1000 });
    expect(rec.outcome).toMatchObject({ kind: 'deal', price: 150 });
    expect(clock.now()).toBe(2400);
  });

  it('without a clock there is no timeout: a slow agent is waited for', async () => {
    const seller: BAgent = {
      act: () => new Promise((r) => setTimeout(() => r({ kind: 'move', move: WALK_AWAY }), 5)),
    };
    const rec = await run({ seller, buyer: replay([]) }, { moveTimeoutMs: 1 });
    expect(rec.outcome).toMatchObject({ kind: 'walk_away', by: 'seller' });
  });
});

describe('runSession: cancellation', () => {
  it('ends as cancelled without asking anyone when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const seller = replay([offer(170)]);
    const rec = await run({ seller, buyer: replay([]) }, { signal: controller.signal });
    expect(rec.outcome).toEqual({ kind: 'cancelled', turn: 0 });
    expect(rec.events).toEqual([{ type: 'end', turn: 0, outcome: { kind: 'cancelled', turn: 0 } }]);
    expect(seller.observations).toHaveLength(0);
  });

  it('cancels during an async move that would never answer', async () => {
    const controller = new AbortController();
    const buyer = stalled();
    const pending = run({ seller: replay([offer(170)]), buyer }, { signal: controller.signal });
    const signal = await buyer.called;
    expect(signal.aborted).toBe(false);
    controller.abort(new Error('user pressed stop'));
    const rec = await pending;
    expect(rec.outcome).toEqual({ kind: 'cancelled', turn: 1 });
    expect(rec.events.map((e) => e.type)).toEqual(['move', 'end']);
    expect(signal.aborted).toBe(true);
  });

  it('cancelled wins over a timeout that would come later', async () => {
    const clock = new SimulatedClock();
    const controller = new AbortController();
    const seller = stalled();
    const pending = run({ seller, buyer: replay([]) }, { signal: controller.signal, clock, moveTimeoutMs: 100 });
    const agentSignal = await seller.called;
    clock.advance(50);
    controller.abort();
    clock.advance(100);
    expect((await pending).outcome).toEqual({ kind: 'cancelled', turn: 0 });
    // The agent is told to stop on a cancel as well as on a timeout.
    expect(agentSignal.aborted).toBe(true);
  });

  it('cancels between moves of synchronous agents, asking no one after the abort', async () => {
    const controller = new AbortController();
    const buyerBase = replay([offer(100), offer(110)]);
    const buyer: BAgent = {
      act: (obs, signal, retry) => {
        if (obs.turn === 3) controller.abort();
        return buyerBase.act(obs, signal, retry);
      },
    };
    const seller = replay([offer(180), offer(170), offer(160)]);
    const rec = await run({ seller, buyer }, { signal: controller.signal });
    expect(rec.outcome).toEqual({ kind: 'cancelled', turn: 4 });
    expect(seller.observations).toHaveLength(2);
    expect(rec.events.map((e) => e.type)).toEqual(['move', 'move', 'move', 'move', 'end']);
  });
});

describe('runSession: random agents (conformance)', () => {
  /** Sends random, often invalid moves, sometimes asynchronously. */
  function randomAgent(seed: number): BAgent {
    const rng = createRng(seed);
    return {
      act: (obs) => {
        const r = rng.next();
        let move: Move;
        if (r < 0.15) move = ACCEPT;
        else if (r < 0.25) move = REJECT;
        else if (r < 0.28) move = WALK_AWAY;
        else if (r < 0.35) move = offer(rng.uniform(-50, 50));
        else if (r < 0.4) move = say('x'.repeat(rng.int(700)));
        else if (r < 0.9) move = offer(rng.uniform(0.5, 1.5) * obs.item.listPrice);
        else move = say('thinking');
        const reply: AgentReply<Move> = rng.next() < 0.05 ? { kind: 'invalid', reason: 'garbled', raw: '{' } : { kind: 'move', move };
        return rng.next() < 0.3 ? Promise.resolve(reply) : reply;
      },
    };
  }

  it('always ends within the turn limit with exactly one end event, and is reproducible', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const scn = scenario({ turnLimit: 1 + (seed % 12), firstMover: seed % 2 ? 'buyer' : 'seller' });
      const play = () => run({ seller: randomAgent(seed * 2), buyer: randomAgent(seed * 2 + 1) }, {}, scn);
      const rec = await play();
      expectWellFormed(rec.events);
      const turnsTaken = rec.events.filter((e) => e.type === 'move' || e.type === 'forfeit').length;
      expect(turnsTaken).toBeLessThanOrEqual(scn.turnLimit);
      expect(rec.events.at(-1)!.turn).toBe(turnsTaken);
      expect(['deal', 'walk_away', 'turn_limit']).toContain(rec.outcome.kind);
      if (rec.outcome.kind === 'turn_limit') expect(turnsTaken).toBe(scn.turnLimit);
      for (const e of rec.events) {
        if (e.type === 'move' || e.type === 'invalid' || e.type === 'forfeit') {
          expect(e.actor).toBe(e.turn % 2 === 0 ? scn.firstMover : scn.firstMover === 'seller' ? 'buyer' : 'seller');
        }
      }
      expect((await play()).events).toEqual(rec.events);
    }
  });
});
