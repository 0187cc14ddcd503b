import type { BilateralEvent, BilateralResult } from '../games/bilateral/events';
import type { NegotiationMetrics } from '../games/bilateral/metrics';
import type { LeaderboardRow, PairRow, RateName } from '../games/bilateral/aggregate';
import { formatLatency, type RunUsage, type Usage } from '../games/bilateral/usage';
import { agentCost, describeCost, describeRunCost, runCost, type Prices } from '../agents/pricing';
import { assertNever } from '../engine/result';
import type { Scenario } from '../games/bilateral/scenario';
import type { Interval } from '../engine/stats';

/** What a figure that is missing or cannot be a number (NaN, ±Infinity) prints as. */
const MISSING = '–';

/** `$12.50`; a non-finite amount `–`, and an absurd one (a trillion dollars or more) `$1.00e+15`. */
export const money = (x: number): string =>
  !Number.isFinite(x) ? MISSING : Math.abs(x) >= 1e12 ? `${x < 0 ? '-' : ''}$${Math.abs(x).toExponential(2)}` : `$${x.toFixed(2)}`;

/** A fraction as a percentage figure with one decimal (`45.7`); `–` when not a number, the bound past a million percent. */
const percentFigure = (x: number): string =>
  !Number.isFinite(x) ? MISSING : Math.abs(100 * x) > 1e6 ? (x > 0 ? '>1000000' : '<-1000000') : (100 * x).toFixed(1);
export const pct = (x: number | null): string => (x === null || !Number.isFinite(x) ? MISSING : `${percentFigure(x)}%`);

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

/** The deadline as the agents met it: a fixed limit they knew, or one drawn from a range they knew. */
export function describeDeadline(scenario: Pick<Scenario, 'turnLimit' | 'turnRange'>): string {
  const range = scenario.turnRange;
  return range === undefined
    ? `${scenario.turnLimit} turns (fixed, both sides know it)`
    : `limit ${scenario.turnLimit} (drawn from ${range.min}–${range.max}, agents know only the range)`;
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
    `${scenario.item.name} (${scenario.item.category}), list ${money(scenario.item.listPrice)}, tier ${scenario.tier}`,
    `${describeDeadline(scenario)}; the ${scenario.firstMover} moves first`,
    `buyer  ${agents.buyer}: value ${money(v)}`,
    `seller ${agents.seller}: cost ${money(c)}`,
    v > c ? `zone of agreement ${money(c)} to ${money(v)} (gains from trade ${money(v - c)})` : `no zone of agreement: cost exceeds value by ${money(c - v)}`,
    '',
  ];
  for (const e of events) {
    const who = `${String(e.turn + 1).padStart(3)} ${e.type === 'end' ? '' : e.actor.padEnd(6)}`;
    switch (e.type) {
      case 'move': {
        const a = e.move.action;
        const act = a === undefined ? 'message' : a.type === 'offer' ? `offer ${money(a.price)}` : a.type === 'walk_away' ? 'walk away' : a.type;
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
  const oracle = (role: 'buyer' | 'seller') => {
    const m = metrics[role];
    return m.oracleShare === null
      ? null
      : `the ${role} could have got ${pct(m.oracleShare)} against this ${role === 'buyer' ? 'seller' : 'buyer'} (oracle gap ${pct(m.oracleGap)})`;
  };
  const oracles = [oracle('buyer'), oracle('seller')].filter((x) => x !== null);
  if (oracles.length > 0) lines.push(`oracle: ${oracles.join('; ')}`);
  return (
    lines.join('\n') + '\n' + formatSideUsage('buyer', agents.buyer, metrics.buyer, prices) + formatSideUsage('seller', agents.seller, metrics.seller, prices)
  );
}

const RATE_COLUMNS: { name: RateName; title: string }[] = [
  { name: 'dealRate', title: 'deal rate (gft)' },
  { name: 'noDealRateNoGft', title: 'no deal (no gft)' },
  { name: 'walkAwayShare', title: 'walk-away share' },
  { name: 'surplusShare', title: 'share' },
  { name: 'expectedSurplusShare', title: 'E[share]' },
  { name: 'irViolationRate', title: 'IR viol.' },
  { name: 'invalidMoveRate', title: 'invalid' },
  { name: 'errorRate', title: 'error rate' },
];

const BEHAVIOUR_COLUMNS: { name: RateName; title: string }[] = [
  { name: 'opening', title: 'opening (of list)' },
  { name: 'concession', title: 'concession' },
  { name: 'patience', title: 'patience' },
];

const REFERENCE_COLUMNS: { name: RateName; title: string }[] = [
  { name: 'oracleShare', title: 'oracle share' },
  { name: 'oracleGap', title: 'oracle gap' },
  { name: 'irLoss', title: 'IR loss (of list)' },
  { name: 'windfallShare', title: 'from violations' },
];

const withCi = (value: number | null, ci: Interval | null): string =>
  value === null || !Number.isFinite(value) ? MISSING : ci === null ? pct(value) : `${pct(value)} [${percentFigure(ci[0])}, ${percentFigure(ci[1])}]`;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}

/** Role, then expected surplus share (best first), then name. */
const byRoleThenShare = (rows: readonly LeaderboardRow[]): LeaderboardRow[] =>
  [...rows].sort(
    (a, b) =>
      (a.role < b.role ? -1 : a.role > b.role ? 1 : 0) || (b.expectedSurplusShare ?? -1) - (a.expectedSurplusShare ?? -1) || (a.agent < b.agent ? -1 : 1),
  );

/**
 * The leaderboard's rates, sorted by role then expected surplus share (best first). `n` counts the
 * seat's negotiations and `errors` those that ended in an error, which enter no other rate.
 */
export function formatLeaderboard(rows: readonly LeaderboardRow[]): string {
  return table(
    ['role', 'agent', 'n', 'errors', ...RATE_COLUMNS.map((c) => c.title)],
    byRoleThenShare(rows).map((r) => [r.role, r.agent, String(r.n), String(r.errors), ...RATE_COLUMNS.map((c) => withCi(r[c.name], r.ci[c.name]))]),
  );
}

/** Opening, concession and patience per agent and role, in the leaderboard's order. */
export function formatBehaviour(rows: readonly LeaderboardRow[]): string {
  return (
    "behaviour (means over the seat's negotiations in which it made an offer)\n" +
    table(
      ['role', 'agent', ...BEHAVIOUR_COLUMNS.map((c) => c.title)],
      byRoleThenShare(rows).map((r) => [r.role, r.agent, ...BEHAVIOUR_COLUMNS.map((c) => withCi(r[c.name], r.ci[c.name]))]),
    ) +
    'opening: first offer / list price; concession: how far the last position (last offer, or the price it accepted)\n' +
    'moved from the first offer toward the reservation, as a share of that distance; patience: share of own turns\n' +
    'before conceding 5% of it (accepting counts as conceding; not counted where the other side ended the game first)\n'
  );
}

/** The oracle reference and the individual-rationality measures per agent and role, in the leaderboard's order. */
export function formatReference(rows: readonly LeaderboardRow[]): string {
  return (
    'oracle reference and individual rationality\n' +
    table(
      ['role', 'agent', ...REFERENCE_COLUMNS.map((c) => c.title)],
      byRoleThenShare(rows).map((r) => [r.role, r.agent, ...REFERENCE_COLUMNS.map((c) => withCi(r[c.name], r.ci[c.name]))]),
    ) +
    'oracle share: the most of the gains it could have got against the same deterministic scripted opponents on the\n' +
    'same scenarios (– against models and random); oracle gap: that minus the share it got (a missed deal 0);\n' +
    'IR loss: mean loss of its deals beyond its own value or cost; from violations: part of its gains that came from\n' +
    "its opponents' deals beyond theirs\n"
  );
}

export function formatPairs(rows: readonly PairRow[]): string {
  return table(
    ['buyer', 'seller', 'n', 'errors', 'deal rate (gft)', 'buyer share', 'seller share'],
    rows.map((p) => [p.buyer, p.seller, String(p.n), String(p.errors), pct(p.dealRate), pct(p.buyerShare), pct(p.sellerShare)]),
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
    'model usage (latency is wall-clock time per call' +
    (priced ? '; cost estimated from --price' : '') +
    ')\n' +
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
