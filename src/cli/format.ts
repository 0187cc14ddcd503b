import type { BilateralEvent, BilateralResult } from '../core/bilateral/events';
import type { NegotiationMetrics } from '../core/bilateral/metrics';
import { RATE_NAMES, type LeaderboardRow, type PairRow, type RateName, type Standings } from '../core/bilateral/aggregate';
import { formatLatency, type RunUsage, type Usage } from '../core/bilateral/usage';
import { agentCost, describeCost, describeRunCost, runCost, type Prices } from '../agents/pricing';
import { assertNever } from '../core/result';
import type { Scenario } from '../core/scenario';
import type { Interval } from '../core/stats';

export const money = (x: number): string => `$${x.toFixed(2)}`;
const pct = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);

export function describeOutcome(outcome: BilateralResult): string {
  switch (outcome.kind) {
    case 'deal':
      return `deal at ${money(outcome.price)} on turn ${outcome.turn} (accepted by the ${outcome.acceptedBy})`;
    case 'walk_away':
      return `no deal: the ${outcome.by} walked away on turn ${outcome.turn}`;
    case 'turn_limit':
      return `no deal: the turn limit (${outcome.turn}) ran out`;
    case 'error':
      return `error: the ${outcome.actor}'s agent failed on turn ${outcome.turn + 1}: ${outcome.message}`;
    case 'cancelled':
      return `cancelled on turn ${outcome.turn + 1}`;
    default:
      return assertNever(outcome);
  }
}

/** One negotiation as plain text: header, one line per event, outcome and split, and each side's model usage. */
export function formatTranscript(
  scenario: Scenario,
  agents: { buyer: string; seller: string },
  events: readonly BilateralEvent[],
  metrics: NegotiationMetrics,
  prices?: Prices,
): string {
  const v = scenario.buyerValue;
  const c = scenario.sellerCost;
  const lines = [
    `${scenario.item.name} (${scenario.item.category}), list ${money(scenario.item.listPrice)}, tier ${scenario.tier}, ${scenario.turnLimit} turns, ${scenario.firstMover} first`,
    `buyer  ${agents.buyer}: value ${money(v)}`,
    `seller ${agents.seller}: cost ${money(c)}`,
    v > c
      ? `zone of agreement ${money(c)} to ${money(v)} (gains from trade ${money(v - c)})`
      : `no zone of agreement: cost exceeds value by ${money(c - v)}`,
    '',
  ];
  for (const e of events) {
    const who = `${String(e.turn + 1).padStart(3)} ${e.type === 'end' ? '' : e.actor.padEnd(6)}`;
    switch (e.type) {
      case 'move': {
        const a = e.move.action;
        const act =
          a === undefined
            ? 'message'
            : a.type === 'offer'
              ? `offer ${money(a.price)}`
              : a.type === 'walk_away'
                ? 'walk away'
                : a.type;
        lines.push(`${who} ${act}${e.move.message ? `  "${e.move.message}"` : ''}`);
        break;
      }
      case 'invalid':
        lines.push(`${who} invalid (try ${e.attempt + 1}): ${e.reason}`);
        break;
      case 'forfeit':
        lines.push(`${who} forfeits the turn`);
        break;
      case 'end':
        lines.push('', `outcome: ${describeOutcome(e.outcome)}`);
        break;
      default:
        assertNever(e);
    }
  }
  const side = (role: 'buyer' | 'seller') =>
    `${role} utility ${money(metrics[role].utility)}${metrics[role].share === null ? '' : ` (share ${pct(metrics[role].share)})`}${metrics[role].irViolation ? ' IR VIOLATION' : ''}`;
  lines.push(`${side('buyer')}; ${side('seller')}`);
  return (
    lines.join('\n') +
    '\n' +
    formatSideUsage('buyer', agents.buyer, metrics.buyer, prices) +
    formatSideUsage('seller', agents.seller, metrics.seller, prices)
  );
}

const COLUMNS: { name: RateName; title: string }[] = [
  { name: 'dealRate', title: 'deal rate (gft)' },
  { name: 'noDealRateNoGft', title: 'no deal (no gft)' },
  { name: 'surplusShare', title: 'share' },
  { name: 'expectedSurplusShare', title: 'E[share]' },
  { name: 'irViolationRate', title: 'IR viol.' },
  { name: 'invalidMoveRate', title: 'invalid' },
];

const withCi = (value: number | null, ci: Interval | null): string =>
  value === null ? '–' : ci === null ? pct(value) : `${pct(value)} [${(100 * ci[0]).toFixed(1)}, ${(100 * ci[1]).toFixed(1)}]`;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}

/** The leaderboard, sorted by role then expected surplus share (best first). */
export function formatLeaderboard(rows: readonly LeaderboardRow[]): string {
  const sorted = [...rows].sort(
    (a, b) =>
      (a.role < b.role ? -1 : a.role > b.role ? 1 : 0) ||
      (b.expectedSurplusShare ?? -1) - (a.expectedSurplusShare ?? -1) ||
      (a.agent < b.agent ? -1 : 1),
  );
  return table(
    ['role', 'agent', 'n', ...COLUMNS.map((c) => c.title)],
    sorted.map((r) => [r.role, r.agent, String(r.n), ...COLUMNS.map((c) => withCi(r[c.name], r.ci[c.name]))]),
  );
}

export function formatPairs(rows: readonly PairRow[]): string {
  return table(
    ['buyer', 'seller', 'n', 'deal rate (gft)', 'buyer share', 'seller share'],
    rows.map((p) => [p.buyer, p.seller, String(p.n), pct(p.dealRate), pct(p.buyerShare), pct(p.sellerShare)]),
  );
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Calls, tokens and latency per agent that called a model, and the run's total; a cost column
 * when any price was given. Empty when no agent made a call.
 */
export function formatUsage(usage: RunUsage, prices: Prices = new Map()): string {
  const rows = usage.byAgent.filter((r) => r.role === 'all');
  if (rows.length === 0) return '';
  const priced = prices.size > 0;
  const cells = (name: string, u: Usage, cost: string) => [
    name,
    count(u.negotiations),
    count(u.calls),
    count(u.tokensIn),
    count(u.tokensOut),
    formatLatency(u.meanLatencyMs),
    ...(priced ? [cost] : []),
  ];
  return (
    'model usage (latency is wall-clock time per call' + (priced ? '; cost estimated from --price' : '') + ')\n' +
    table(
      ['agent', 'negotiations', 'calls', 'tokens in', 'tokens out', 'latency/call', ...(priced ? ['cost'] : [])],
      [
        ...rows.map((r) => cells(r.agent, r, describeCost(agentCost(r.agent, r, prices)))),
        cells('all agents', usage.total, describeRunCost(runCost(rows, prices))),
      ],
    )
  );
}

/** One side's model usage in a transcript, or nothing for a side that made no call. */
export function formatSideUsage(role: 'buyer' | 'seller', agent: string, side: NegotiationMetrics['buyer'], prices?: Prices): string {
  if (side.calls === 0) return '';
  const cost = prices && prices.size > 0 ? `, cost ${describeCost(agentCost(agent, side, prices))}` : '';
  return (
    `${role} ${agent}: ${count(side.calls)} model call${side.calls === 1 ? '' : 's'}, ${count(side.tokensIn)} tokens in, ${count(side.tokensOut)} out, ` +
    `${formatLatency(side.latencyMs / side.calls)} per call${cost}\n`
  );
}

const csvCell = (x: string | number | null): string => {
  if (x === null) return '';
  const s = String(x);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Leaderboard and per-tier rows in one table; `tier` is `all` for the overall rows. */
export function standingsCsv(standings: Standings): string {
  const header = ['agent', 'role', 'tier', 'n', ...RATE_NAMES.flatMap((r) => [r, `${r}_low`, `${r}_high`])];
  const rows = [
    ...standings.leaderboard.map((r) => ({ ...r, tier: 'all' as const })),
    ...standings.byTier,
  ].map((r) => [
    r.agent,
    r.role,
    r.tier,
    r.n,
    ...RATE_NAMES.flatMap((name) => [r[name], r.ci[name]?.[0] ?? null, r.ci[name]?.[1] ?? null]),
  ]);
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}
