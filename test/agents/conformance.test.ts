/**
 * One conformance suite over every scripted strategy: seeded scenarios of every preset, against
 * every strategy (itself included) in both seats. Whatever an agent does, the log must replay,
 * end by the turn limit, come out the same from the same seed, and score consistently.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAgent } from '../../src/agents/registry';
import { STRATEGIES } from '../../src/agents/scripted';
import type { StrategyDef } from '../../src/agents/scripted/types';
import { bilateral, type BilateralState } from '../../src/core/bilateral/protocol';
import { runTournament, type AgentFactory, type NegotiationResult } from '../../src/core/bilateral/tournament';
import { createRng } from '../../src/core/rng';
import { PRESETS, type Preset } from '../../src/core/scenario';

const SCENARIOS_PER_PAIR = 20;
const SEED = 20240611;
const byName = new Map(STRATEGIES.map((d) => [d.name, d]));
const defOf = (spec: string) => byName.get(spec) as StrategyDef;

/** Every negotiation `def` takes part in: against each strategy in both seats, and against itself. */
async function negotiationsOf(def: StrategyDef, preset: Preset, factory: AgentFactory = makeAgent) {
  const results: NegotiationResult[] = [];
  for (const other of STRATEGIES) {
    const self = other.name === def.name;
    await runTournament(
      {
        agents: self ? [def.name] : [def.name, other.name],
        scenariosPerPair: SCENARIOS_PER_PAIR,
        preset,
        seed: SEED,
        selfPlay: self,
      },
      factory,
      { onResult: (r) => void results.push(r) },
    );
  }
  return results;
}

/** Re-applies the logged moves through the protocol; returns the problems found. */
function replayProblems(r: NegotiationResult): string[] {
  const problems: string[] = [];
  let state: BilateralState = bilateral.initialState(r.scenario);
  for (const e of r.events) {
    if (e.type === 'end') {
      if (!bilateral.isTerminal(state)) problems.push(`end logged at turn ${e.turn} before the game ended`);
      else if (JSON.stringify(bilateral.outcome(state)) !== JSON.stringify(e.outcome))
        problems.push(`logged outcome ${JSON.stringify(e.outcome)} differs from replay`);
      continue;
    }
    if (e.turn !== state.turn) problems.push(`event at turn ${e.turn} while the game is at turn ${state.turn}`);
    if (e.actor !== bilateral.currentActor(state)) problems.push(`${e.actor} moved out of turn at ${e.turn}`);
    if (e.type === 'invalid') {
      if (e.reason.trim() === '') problems.push(`invalid move at turn ${e.turn} without a reason`);
    } else if (e.type === 'forfeit') {
      state = bilateral.forfeit(state, e.actor);
    } else {
      const next = bilateral.apply(state, e.actor, e.move);
      if (!next.ok) problems.push(`illegal move at turn ${e.turn}: ${next.error.reason}`);
      else state = next.value;
    }
  }
  return problems;
}

describe.each(STRATEGIES)('$name', (def) => {
  describe.each(PRESETS)('on %s scenarios', (preset) => {
    let results: NegotiationResult[] = [];
    let again: NegotiationResult[] = [];

    beforeAll(async () => {
      results = await negotiationsOf(def, preset);
      again = await negotiationsOf(def, preset);
    });

    it('plays every pairing in both seats', () => {
      expect(results).toHaveLength((2 * STRATEGIES.length - 1) * SCENARIOS_PER_PAIR);
    });

    it('makes only legal moves, and the log replays to the same outcome', () => {
      for (const r of results) expect(replayProblems(r), `${r.buyer} vs ${r.seller}, ${r.scenario.id}`).toEqual([]);
      // scripted strategies never need a retry
      for (const r of results) expect(r.events.filter((e) => e.type === 'invalid' || e.type === 'forfeit')).toEqual([]);
    });

    it('ends every negotiation by its turn limit with a protocol outcome', () => {
      for (const r of results) {
        const end = r.events.at(-1);
        expect(end?.type).toBe('end');
        expect(end?.turn).toBeLessThanOrEqual(r.scenario.turnLimit);
        expect(['deal', 'walk_away', 'turn_limit']).toContain(r.outcome.kind);
        expect(r.events.filter((e) => e.type === 'end')).toHaveLength(1);
      }
    });

    it('gives identical event logs from the same seed', () => {
      expect(again.map((r) => r.events)).toEqual(results.map((r) => r.events));
    });

    it('splits the surplus of every deal with gains from trade exactly', () => {
      for (const r of results) {
        const m = r.metrics;
        if (!m.deal || !m.gft) continue;
        expect(Math.abs((m.buyer.share as number) + (m.seller.share as number) - 1)).toBeLessThanOrEqual(1e-9);
      }
    });

    it('keeps rational seats individually rational', () => {
      for (const r of results) {
        for (const role of ['buyer', 'seller'] as const) {
          const seat = defOf(role === 'buyer' ? r.buyer : r.seller);
          if (!seat.rational) continue;
          expect(r.metrics[role].irViolation).toBe(false);
          const reservation = role === 'buyer' ? r.scenario.buyerValue : r.scenario.sellerCost;
          for (const e of r.events) {
            if (e.type !== 'move' || e.actor !== role || e.move.action?.type !== 'offer') continue;
            const price = e.move.action.price;
            expect(role === 'buyer' ? price <= reservation : price >= reservation).toBe(true);
          }
        }
        if (defOf(r.buyer).rational && defOf(r.seller).rational && !r.metrics.gft) expect(r.metrics.deal).toBe(false);
      }
    });

    if (def.deterministic) {
      it('ignores the rng it is given', async () => {
        const otherRng: AgentFactory = (spec, role, ctx) => makeAgent(spec, role, { ...ctx, rng: createRng(99) });
        const rerun = await negotiationsOf(def, preset, otherRng);
        for (const [i, r] of rerun.entries()) {
          if (!defOf(r.buyer).deterministic || !defOf(r.seller).deterministic) continue;
          expect(r.events).toEqual(results[i]?.events);
        }
      });
    }
  });
});
