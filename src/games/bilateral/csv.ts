import { zoneBinOf, type Scenario } from './scenario';
import { RATE_NAMES, type LeaderboardRow, type Standings, type TierRow, type ZoneRow } from './aggregate';
import type { NegotiationMetrics, SideMetrics } from './metrics';
import type { BilateralEvent } from './events';
import { bilateralReward, REWARD_TERMS, type Reward, type RewardTerm } from './reward';

/**
 * CSV for the standings and for single negotiations, shared by the command line and the app's
 * download. RFC 4180 quoting (a field with a comma, a quote or a line break is quoted, quotes
 * doubled), `\n` line ends, a header row, and a guard against formula injection: a text field that
 * begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so a spreadsheet
 * shows it as text instead of running it. Numbers are written as they are (a negative number is not
 * text); `null` is an empty field; booleans are `1` and `0`.
 */

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One field: numbers as they are, text guarded against formulas and quoted when it must be. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header and rows as CSV text, every line ended by `\n`. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n';
}

/** Which standings a row belongs to: the overall leaderboard, one price tier or one zone bin. */
export const STANDINGS_SCOPES = ['all', 'tier', 'zone'] as const;

export const STANDINGS_CSV_HEADER: readonly string[] = [
  'scope',
  'tier',
  'zone',
  'agent',
  'role',
  'n',
  'errors',
  ...RATE_NAMES.flatMap((r) => [r, `${r}_low`, `${r}_high`]),
];

/**
 * The leaderboard, the per-tier rows and the per-zone rows in one table, told apart by `scope`
 * (`all`, `tier`, `zone`); `tier` and `zone` are empty where they do not apply. Each rate has its
 * 95% interval in `_low` and `_high` (empty without one). Rows stored by an older Parley may lack
 * newer rates or `errors`: those fields are empty.
 */
export function standingsCsv(standings: Pick<Standings, 'leaderboard' | 'byTier'> & { byZone?: readonly ZoneRow[] }): string {
  const row = (scope: (typeof STANDINGS_SCOPES)[number], r: LeaderboardRow, tier: number | null, zone: number | null): CsvValue[] => {
    const loose = r as Partial<LeaderboardRow>;
    return [
      scope,
      tier,
      zone,
      r.agent,
      r.role,
      r.n,
      loose.errors ?? null,
      ...RATE_NAMES.flatMap((name) => {
        const ci = loose.ci?.[name] ?? null;
        return [loose[name] ?? null, ci?.[0] ?? null, ci?.[1] ?? null];
      }),
    ];
  };
  return toCsv(STANDINGS_CSV_HEADER, [
    ...standings.leaderboard.map((r) => row('all', r, null, null)),
    ...standings.byTier.map((r: TierRow) => row('tier', r, r.tier, null)),
    ...(standings.byZone ?? []).map((r) => row('zone', r, null, r.zone)),
  ]);
}

/** What one line of the negotiations CSV is made from. */
export interface NegotiationCsvRow {
  jobId: string;
  buyer: string;
  seller: string;
  scenario: Scenario;
  metrics: NegotiationMetrics;
  /** Each seat's reward (default weights); null or absent for a log without an end, whose columns stay empty. */
  rewards?: SeatRewards | null;
}

export type SeatRewards = Record<'buyer' | 'seller', Reward>;

/** Both seats' rewards with the default weights, or null when the log has not ended. */
export function seatRewards(scenario: Scenario, events: readonly BilateralEvent[]): SeatRewards | null {
  if (events.at(-1)?.type !== 'end') return null;
  return { buyer: bilateralReward(scenario, events, 'buyer'), seller: bilateralReward(scenario, events, 'seller') };
}

/** Per-side columns, buyer then seller for each. */
const SIDE_COLUMNS = [
  ['share', (s) => s.share],
  ['irViolation', (s) => s.irViolation],
  ['irLoss', (s) => s.irLoss],
  ['windfall', (s) => s.windfall],
  ['oracleShare', (s) => s.oracleShare],
  ['oracleGap', (s) => s.oracleGap],
  ['opening', (s) => s.opening],
  ['concession', (s) => s.concession],
  ['patience', (s) => s.patience],
  ['invalidMoves', (s) => s.invalidMoves],
  ['calls', (s) => s.calls],
  ['tokensIn', (s) => s.tokensIn],
  ['tokensOut', (s) => s.tokensOut],
] as const satisfies readonly (readonly [string, (s: SideMetrics) => CsvValue])[];

const capital = (word: string): string => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
const sideName = (role: 'buyer' | 'seller', column: string): string => `${role}${capital(column)}`;

/** Per-seat reward columns: the total, then each weighted term (`buyerReward`, `buyerRewardCompliance`, …). */
const REWARD_COLUMNS = [
  ['reward', (r: Reward) => r.total],
  ...REWARD_TERMS.map((term: RewardTerm) => [`reward${capital(term)}`, (r: Reward) => r.terms[term]] as const),
] as const satisfies readonly (readonly [string, (r: Reward) => CsvValue])[];

export const NEGOTIATIONS_CSV_HEADER: readonly string[] = [
  'jobId',
  'buyer',
  'seller',
  'scenarioId',
  'item',
  'listPrice',
  'tier',
  'zone',
  'buyerValue',
  'sellerCost',
  'turnLimit',
  'turnRangeMin',
  'turnRangeMax',
  'firstMover',
  'outcome',
  'price',
  'turnsUsed',
  'gft',
  ...SIDE_COLUMNS.flatMap(([name]) => [sideName('buyer', name), sideName('seller', name)]),
  ...REWARD_COLUMNS.flatMap(([name]) => [sideName('buyer', name), sideName('seller', name)]),
];

/**
 * One line per negotiation: who played, the scenario (its zone bin, and the turn range the agents
 * knew, empty when the deadline was fixed), the outcome and the metrics of each side. `gft` and the
 * IR violations are 1 or 0; a share (in [0, 1]) is empty without a deal with gains from trade; a deal
 * beyond the zone is the loser's irLoss and the winner's windfall (over list price, empty without a
 * deal); oracleShare and oracleGap are empty where the other side is no deterministic scripted
 * strategy or there were no gains; opening and concession are empty for a side that made no offer,
 * patience also where it was not observed (DESIGN.md). The reward columns are each
 * seat's `bilateralReward` with the default weights (total, then each weighted term), empty when
 * the row has none.
 */
export function negotiationsCsv(rows: readonly NegotiationCsvRow[]): string {
  return toCsv(
    NEGOTIATIONS_CSV_HEADER,
    rows.map(({ jobId, buyer, seller, scenario: s, metrics: m, rewards }) => [
      jobId,
      buyer,
      seller,
      s.id,
      s.item.name,
      s.item.listPrice,
      s.tier,
      zoneBinOf(s),
      s.buyerValue,
      s.sellerCost,
      s.turnLimit,
      s.turnRange?.min ?? null,
      s.turnRange?.max ?? null,
      s.firstMover,
      m.outcome,
      m.price,
      m.turnsUsed,
      m.gft,
      ...SIDE_COLUMNS.flatMap(([, get]) => [get(m.buyer), get(m.seller)]),
      ...REWARD_COLUMNS.flatMap(([, get]) => (rewards ? [get(rewards.buyer), get(rewards.seller)] : [null, null])),
    ]),
  );
}
