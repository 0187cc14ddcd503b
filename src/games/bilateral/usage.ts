import { ROLES, type Role } from './scenario';
import type { NegotiationMetrics } from './metrics';

/** Model calls and what they took, summed over some negotiations. */
export interface Usage {
  negotiations: number;
  /** Events that carry a model call: moves and invalid answers alike. */
  calls: number;
  tokensIn: number;
  tokensOut: number;
  /** Wall-clock time spent waiting on the model, summed over calls. */
  latencyMs: number;
  /** latencyMs / calls; null without calls. */
  meanLatencyMs: number | null;
}

/** `all` sums both roles; a self-play negotiation counts once there. */
export const USAGE_ROLES = ['all', ...ROLES] as const;
export type UsageRole = (typeof USAGE_ROLES)[number];

export interface UsageRow extends Usage {
  agent: string;
  role: UsageRole;
}

/**
 * Per agent (overall, then per role it played) and for the whole run. Only agents that made
 * at least one model call have rows, so scripted-only runs carry nothing but the total.
 */
export interface RunUsage {
  byAgent: UsageRow[];
  total: Usage;
}

type Sums = Omit<Usage, 'meanLatencyMs'>;

const zero = (): Sums => ({ negotiations: 0, calls: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 });

const withMean = (s: Sums): Usage => ({ ...s, meanLatencyMs: s.calls > 0 ? s.latencyMs / s.calls : null });

function addSide(to: Sums, m: NegotiationMetrics, role: Role): void {
  const side = m[role];
  to.calls += side.calls;
  to.tokensIn += side.tokensIn;
  to.tokensOut += side.tokensOut;
  to.latencyMs += side.latencyMs;
}

/** The sums of a pair's buyer and seller (one agent twice in self-play). */
export interface UsagePair {
  readonly asBuyer: Record<UsageRole, Sums>;
  readonly asSeller: Record<UsageRole, Sums>;
  readonly selfPlay: boolean;
}

/** Sums the model usage of finished negotiations, per agent and role; a fold over their metrics. */
export class UsageAccumulator {
  private agents = new Map<string, Record<UsageRole, Sums>>();
  private sum = zero();

  /** The sums one (buyer, seller) pair adds to: look them up once per pair, then `add` per negotiation. */
  pair(buyer: string, seller: string): UsagePair {
    return { asBuyer: this.of(buyer), asSeller: this.of(seller), selfPlay: buyer === seller };
  }

  add(pair: UsagePair, m: NegotiationMetrics): void {
    const { asBuyer, asSeller } = pair;
    this.sum.negotiations++;
    asBuyer.buyer.negotiations++;
    asSeller.seller.negotiations++;
    asBuyer.all.negotiations++;
    if (!pair.selfPlay) asSeller.all.negotiations++;
    // Tokens and latency come only with calls: a negotiation of scripted agents adds nothing more.
    if (m.buyer.calls === 0 && m.seller.calls === 0) return;
    for (const role of ROLES) addSide(this.sum, m, role);
    addSide(asBuyer.buyer, m, 'buyer');
    addSide(asSeller.seller, m, 'seller');
    addSide(asBuyer.all, m, 'buyer');
    addSide(asSeller.all, m, 'seller');
  }

  private of(agent: string): Record<UsageRole, Sums> {
    let sums = this.agents.get(agent);
    if (!sums) {
      sums = { all: zero(), buyer: zero(), seller: zero() };
      this.agents.set(agent, sums);
    }
    return sums;
  }

  usage(): RunUsage {
    const byAgent: UsageRow[] = [];
    for (const agent of [...this.agents.keys()].sort(cmp)) {
      const sums = this.agents.get(agent) as Record<UsageRole, Sums>;
      if (sums.all.calls === 0) continue;
      for (const role of USAGE_ROLES) if (sums[role].negotiations > 0) byAgent.push({ agent, role, ...withMean(sums[role]) });
    }
    return { byAgent, total: withMean(this.sum) };
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `850 ms`, `1.25 s`; `–` without calls. */
export function formatLatency(ms: number | null): string {
  if (ms === null) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
