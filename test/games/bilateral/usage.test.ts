import { describe, expect, it } from 'vitest';
import { Aggregator } from '../../../src/games/bilateral/aggregate';
import { StandingsSchema } from '../../../src/games/bilateral/standings-schema';
import { formatLatency, USAGE_ROLES, type UsageRole } from '../../../src/games/bilateral/usage';
import type { NegotiationResult } from '../../../src/games/bilateral/tournament';
import { playModelTournament } from '../../support/model-tournament';

interface Sums {
  negotiations: number;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
}
const zero = (): Sums => ({ negotiations: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 });

/** The expected usage, summed straight from the events rather than from the metrics. */
function fromEvents(results: readonly NegotiationResult[]) {
  const byAgent = new Map<string, Record<UsageRole, Sums>>();
  const total = zero();
  const of = (agent: string) => {
    if (!byAgent.has(agent)) byAgent.set(agent, { all: zero(), buyer: zero(), seller: zero() });
    return byAgent.get(agent)!;
  };
  for (const r of results) {
    total.negotiations++;
    of(r.buyer).buyer.negotiations++;
    of(r.seller).seller.negotiations++;
    for (const agent of new Set([r.buyer, r.seller])) of(agent).all.negotiations++;
    for (const e of r.events) {
      if (e.type === 'end' || e.type === 'forfeit' || !e.call) continue;
      const agent = e.actor === 'buyer' ? r.buyer : r.seller;
      for (const sums of [of(agent)[e.actor], of(agent).all, total]) {
        sums.calls++;
        sums.tokensIn += e.call.tokensIn;
        sums.tokensOut += e.call.tokensOut;
        sums.latencyMs += e.call.latencyMs;
      }
    }
  }
  return { byAgent, total };
}

describe('model usage per agent and per run', () => {
  it('sums calls, tokens and latency of LLM agents exactly as a direct sum over the events does', async () => {
    const agents = ['boulware', 'openai:model-a', 'vllm:model-b'];
    const { results, standings } = await playModelTournament({ agents, scenariosPerPair: 4 });
    expect(results).toHaveLength(3 * 2 * 4);
    const expected = fromEvents(results);
    // The scripted models really did call, fail once and retry, in both roles.
    expect(results.some((r) => r.events.some((e) => e.type === 'invalid' && e.call))).toBe(true);
    expect(expected.byAgent.get('openai:model-a')!.buyer.calls).toBeGreaterThan(0);
    expect(expected.byAgent.get('openai:model-a')!.seller.calls).toBeGreaterThan(0);

    const { byAgent, total } = standings.usage;
    // boulware made no call, so it has no rows; each model has all, buyer, seller in that order.
    expect(byAgent.map((r) => `${r.agent}/${r.role}`)).toEqual(['openai:model-a', 'vllm:model-b'].flatMap((a) => USAGE_ROLES.map((role) => `${a}/${role}`)));
    for (const row of byAgent) {
      const want = expected.byAgent.get(row.agent)![row.role];
      expect(row, `${row.agent} ${row.role}`).toEqual({
        agent: row.agent,
        role: row.role,
        ...want,
        meanLatencyMs: want.latencyMs / want.calls,
      });
    }
    expect(total).toEqual({ ...expected.total, meanLatencyMs: expected.total.latencyMs / expected.total.calls });
    // Each model played 16 of the 24 negotiations: 8 as buyer, 8 as seller.
    expect(byAgent.find((r) => r.agent === 'vllm:model-b' && r.role === 'all')?.negotiations).toBe(16);
    // Standings with usage cross the worker boundary unchanged.
    expect(StandingsSchema.parse(structuredClone(standings))).toEqual(standings);
  });

  it('counts a self-play negotiation once for the agent overall, and once in each role', async () => {
    const { results, standings } = await playModelTournament({ agents: ['openai:model-a'], selfPlay: true, scenariosPerPair: 3 });
    expect(results).toHaveLength(3);
    const rows = Object.fromEntries(standings.usage.byAgent.map((r) => [r.role, r]));
    expect([rows.all?.negotiations, rows.buyer?.negotiations, rows.seller?.negotiations]).toEqual([3, 3, 3]);
    expect(rows.all!.calls).toBe(rows.buyer!.calls + rows.seller!.calls);
    expect(rows.all!.tokensIn).toBe(rows.buyer!.tokensIn + rows.seller!.tokensIn);
    const { agent: _agent, role: _role, ...overall } = rows.all!;
    expect(standings.usage.total).toEqual(overall);
    const expected = fromEvents(results);
    expect(rows.all).toMatchObject(expected.byAgent.get('openai:model-a')!.all);
  });

  it('a run of scripted agents has no usage rows and a total of zero calls', async () => {
    const { standings } = await playModelTournament({ agents: ['boulware', 'conceder'], scenariosPerPair: 2 });
    expect(standings.usage).toEqual({
      byAgent: [],
      total: { negotiations: 4, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0, meanLatencyMs: null },
    });
  });

  it('leaves cancelled negotiations out, as the rest of the standings do', async () => {
    const { results } = await playModelTournament({ agents: ['openai:model-a', 'boulware'], scenariosPerPair: 2 });
    const aggregator = new Aggregator();
    const [first, ...rest] = results as [NegotiationResult, ...NegotiationResult[]];
    aggregator.add(first.buyer, first.seller, first.scenario, { ...first.metrics, outcome: 'cancelled' });
    for (const r of rest) aggregator.add(r.buyer, r.seller, r.scenario, r.metrics);
    const { total } = aggregator.standings({ samples: 0 }).usage;
    expect(total).toMatchObject({ ...fromEvents(rest).total });
    expect(total.negotiations).toBe(results.length - 1);
  });
});

describe('formatLatency', () => {
  it('reads milliseconds below a second and seconds above', () => {
    expect([formatLatency(null), formatLatency(0), formatLatency(12.4), formatLatency(999.4), formatLatency(1250)]).toEqual([
      '–',
      '0 ms',
      '12 ms',
      '999 ms',
      '1.25 s',
    ]);
  });
});
