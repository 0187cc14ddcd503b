import { describe, expect, it } from 'vitest';
import { RATE_NAMES, type LeaderboardRow, type RateName, type TierRow, type ZoneRow } from '../../../src/games/bilateral/aggregate';
import {
  csvField,
  NEGOTIATIONS_CSV_HEADER,
  negotiationsCsv,
  STANDINGS_CSV_HEADER,
  standingsCsv,
  seatRewards,
  type NegotiationCsvRow,
} from '../../../src/games/bilateral/csv';
import type { BilateralEvent } from '../../../src/games/bilateral/events';
import { computeMetrics } from '../../../src/games/bilateral/metrics';
import { ACCEPT, offer, WALK_AWAY, type Move } from '../../../src/games/bilateral/moves';
import { bilateralReward, REWARD_TERMS } from '../../../src/games/bilateral/reward';
import type { SideMetrics } from '../../../src/games/bilateral/metrics';
import { makeScenario, zoneBinOf, type Scenario } from '../../../src/games/bilateral/scenario';
import type { Interval } from '../../../src/engine/stats';
import { parseCsv } from '../../support/csv';

/** Rows as records by header name. */
function records(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  for (const r of rows) expect(r).toHaveLength((header as string[]).length);
  return rows.map((r) => Object.fromEntries((header as string[]).map((h, i) => [h, r[i] as string])));
}

const num = (x: string): number | null => (x === '' ? null : Number(x));

describe('csvField', () => {
  it('quotes a field with a comma, a quote or a line break, doubling the quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
  });

  it('puts a quote mark before text that a spreadsheet would run as a formula, never before a number', () => {
    for (const start of ['=', '+', '-', '@', '\t']) expect(csvField(`${start}SUM(A1:A9)`)).toBe(`'${start}SUM(A1:A9)`);
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvField(-0.25)).toBe('-0.25');
    expect(csvField(0)).toBe('0');
    expect(csvField('a=b')).toBe('a=b');
  });

  it('writes null as empty, booleans as 1 and 0, and no non-finite number', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(true)).toBe('1');
    expect(csvField(false)).toBe('0');
    expect(csvField(Number.NaN)).toBe('');
  });
});

/** A row whose rate k is `base + k / 100`, with an interval ±0.01 around it; patience has none. */
function row(agent: string, role: 'buyer' | 'seller', base: number): LeaderboardRow {
  const r = { agent, role, n: 40, errors: 3 } as LeaderboardRow;
  const ci = {} as Record<RateName, Interval | null>;
  RATE_NAMES.forEach((name, k) => {
    r[name] = name === 'noDealRateNoGft' ? null : base + k / 100;
    ci[name] = name === 'noDealRateNoGft' || name === 'patience' ? null : [base + k / 100 - 0.01, base + k / 100 + 0.01];
  });
  r.ci = ci;
  return r;
}

describe('standingsCsv', () => {
  const leaderboard = [row('boulware', 'buyer', 0.1), row('=cmd|" /c calc",x', 'seller', 0.2)];
  const byTier: TierRow[] = [{ ...row('boulware', 'buyer', 0.3), tier: 2 }];
  const byZone: ZoneRow[] = [
    { ...row('boulware', 'buyer', 0.4), zone: 1 },
    { ...row('=cmd|" /c calc",x', 'seller', 0.5), zone: 5 },
  ];

  it('has a scope column and every rate with its interval, in RATE_NAMES order', () => {
    const [header] = parseCsv(standingsCsv({ leaderboard, byTier, byZone }));
    expect(header).toEqual([...STANDINGS_CSV_HEADER]);
    expect(header?.slice(0, 7)).toEqual(['scope', 'tier', 'zone', 'agent', 'role', 'n', 'errors']);
    expect(header?.slice(7)).toEqual(RATE_NAMES.flatMap((r) => [r, `${r}_low`, `${r}_high`]));
  });

  it('reads back to the same rows: all, then tiers, then zones', () => {
    const rows = records(standingsCsv({ leaderboard, byTier, byZone }));
    expect(rows.map((r) => [r.scope, r.tier, r.zone])).toEqual([
      ['all', '', ''],
      ['all', '', ''],
      ['tier', '2', ''],
      ['zone', '', '1'],
      ['zone', '', '5'],
    ]);
    const source = [...leaderboard, ...byTier, ...byZone];
    rows.forEach((r, i) => {
      const s = source[i] as LeaderboardRow;
      expect(r.agent).toBe(s.agent.startsWith('=') ? `'${s.agent}` : s.agent);
      expect(r.role).toBe(s.role);
      expect(num(r.n as string)).toBe(s.n);
      expect(num(r.errors as string)).toBe(s.errors);
      for (const name of RATE_NAMES) {
        expect(num(r[name] as string)).toBe(s[name]);
        expect(num(r[`${name}_low`] as string)).toBe(s.ci[name]?.[0] ?? null);
        expect(num(r[`${name}_high`] as string)).toBe(s.ci[name]?.[1] ?? null);
      }
    });
  });

  it('takes standings without zone rows, and old rows without the newer rates', () => {
    const old = { agent: 'linear', role: 'buyer', n: 5, dealRate: 0.5, ci: { dealRate: [0.2, 0.8] } } as unknown as LeaderboardRow;
    const rows = records(standingsCsv({ leaderboard: [old], byTier: [] }));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      scope: 'all',
      agent: 'linear',
      n: '5',
      errors: '',
      dealRate: '0.5',
      dealRate_low: '0.2',
      dealRate_high: '0.8',
      patience: '',
      opening_low: '',
    });
  });
});

function side(over: Partial<SideMetrics> = {}): SideMetrics {
  return {
    utility: 0,
    share: null,
    irViolation: false,
    irLoss: null,
    windfall: null,
    oracleShare: null,
    oracleGap: null,
    opening: null,
    totalConcession: null,
    concession: null,
    patience: null,
    moves: 0,
    invalidMoves: 0,
    forfeits: 0,
    calls: 0,
    tokensIn: 0,
    tokensOut: 0,
    latencyMs: 0,
    ...over,
  };
}

describe('negotiationsCsv', () => {
  const item = { id: 'sofa', name: 'Sofa, "three-seat"', category: 'home', listPrice: 800 };
  const deal: NegotiationCsvRow = {
    jobId: '0-1-0',
    buyer: 'openai:gpt-4o-mini',
    seller: 'boulware:beta=0.2',
    scenario: makeScenario('standard-1-0', item, 700, 500, { turnLimit: 18, turnRange: { min: 16, max: 24 }, firstMover: 'buyer' }),
    metrics: {
      gft: true,
      deal: true,
      price: 620,
      outcome: 'deal',
      turnsUsed: 9,
      buyer: side({
        utility: 80,
        share: 0.4,
        opening: 0.5,
        concession: 0.75,
        patience: 0.25,
        invalidMoves: 1,
        calls: 5,
        tokensIn: 1500,
        tokensOut: 200,
        moves: 5,
      }),
      seller: side({ utility: 120, share: 0.6, opening: 1.1, concession: 0.5, patience: 1, moves: 4 }),
    },
  };
  const walk: NegotiationCsvRow = {
    jobId: '1-0-1',
    buyer: 'boulware:beta=0.2',
    seller: 'openai:gpt-4o-mini',
    scenario: makeScenario('standard-1-1', { ...item, name: '-1 bid' }, 400, 450, { turnLimit: 20, firstMover: 'seller' }),
    metrics: {
      gft: false,
      deal: false,
      price: null,
      outcome: 'walk_away',
      turnsUsed: 1,
      buyer: side(),
      seller: side({ irViolation: false, opening: 1.2, concession: 0, patience: 1, moves: 1 }),
    },
  };

  it('writes one line per negotiation, with the scenario, outcome and each side, that reads back', () => {
    const text = negotiationsCsv([deal, walk]);
    const [header] = parseCsv(text);
    expect(header).toEqual([...NEGOTIATIONS_CSV_HEADER]);
    const rows = records(text);
    expect(rows).toHaveLength(2);
    const [a, b] = rows as [Record<string, string>, Record<string, string>];
    expect(a).toMatchObject({
      jobId: '0-1-0',
      buyer: 'openai:gpt-4o-mini',
      seller: 'boulware:beta=0.2',
      scenarioId: 'standard-1-0',
      item: 'Sofa, "three-seat"',
      listPrice: '800',
      tier: String(deal.scenario.tier),
      zone: String(zoneBinOf(deal.scenario)),
      buyerValue: '700',
      sellerCost: '500',
      turnLimit: '18',
      turnRangeMin: '16',
      turnRangeMax: '24',
      firstMover: 'buyer',
      outcome: 'deal',
      price: '620',
      turnsUsed: '9',
      gft: '1',
      buyerShare: '0.4',
      sellerShare: '0.6',
      buyerIrViolation: '0',
      sellerIrViolation: '0',
      buyerOpening: '0.5',
      sellerOpening: '1.1',
      buyerConcession: '0.75',
      sellerConcession: '0.5',
      buyerPatience: '0.25',
      sellerPatience: '1',
      buyerInvalidMoves: '1',
      sellerInvalidMoves: '0',
      buyerCalls: '5',
      sellerCalls: '0',
      buyerTokensIn: '1500',
      sellerTokensIn: '0',
      buyerTokensOut: '200',
      sellerTokensOut: '0',
    });
    // A fixed deadline has no range; no deal has no price or share; a name that looks like a formula is text.
    expect(b).toMatchObject({
      item: "'-1 bid",
      turnRangeMin: '',
      turnRangeMax: '',
      price: '',
      gft: '0',
      zone: '1',
      buyerShare: '',
      buyerOpening: '',
      sellerOpening: '1.2',
    });
  });

  it('is only a header without negotiations', () => {
    expect(negotiationsCsv([])).toBe(NEGOTIATIONS_CSV_HEADER.join(',') + '\n');
  });
});

describe('negotiationsCsv: reward columns', () => {
  // v = 150, c = 90 on a $200 item (v − c = 60); the seller opens.
  const scn = makeScenario('reward-1', { id: 'w', name: 'Widget', category: 'test', listPrice: 200 }, 150, 90, { turnLimit: 20, firstMover: 'seller' });
  const noGft = makeScenario('reward-2', { id: 'w', name: 'Widget', category: 'test', listPrice: 200 }, 80, 100, { turnLimit: 20, firstMover: 'seller' });
  const move = (turn: number, actor: 'buyer' | 'seller', m: Move): BilateralEvent => ({ type: 'move', turn, actor, move: m });
  // The buyer answers once out of turn (invalid), then bids 100, retreats to 95 and accepts 120: buyer 30/60, seller 30/60.
  const dealLog: BilateralEvent[] = [
    move(0, 'seller', offer(180)),
    { type: 'invalid', turn: 1, actor: 'buyer', attempt: 0, reason: 'not JSON', raw: '?' },
    move(1, 'buyer', offer(100)),
    move(2, 'seller', offer(130)),
    move(3, 'buyer', offer(95)),
    move(4, 'seller', offer(120)),
    move(5, 'buyer', ACCEPT),
    { type: 'end', turn: 5, outcome: { kind: 'deal', price: 120, turn: 5, acceptedBy: 'buyer' } },
  ];
  // No gains from trade; the buyer walks away at once.
  const walkLog: BilateralEvent[] = [
    move(0, 'seller', offer(150)),
    move(1, 'buyer', WALK_AWAY),
    { type: 'end', turn: 1, outcome: { kind: 'walk_away', by: 'buyer', turn: 1 } },
  ];
  const row = (jobId: string, scenario: Scenario, events: BilateralEvent[]): NegotiationCsvRow => ({
    jobId,
    buyer: 'a',
    seller: 'b',
    scenario,
    metrics: computeMetrics(scenario, events),
    rewards: seatRewards(scenario, events),
  });

  it('has each seat total and weighted terms, by hand and as bilateralReward computes them', () => {
    const rows = [row('deal', scn, dealLog), row('walk', noGft, walkLog)];
    const [deal, walk] = records(negotiationsCsv(rows)) as [Record<string, string>, Record<string, string>];
    const num = (r: Record<string, string>, column: string) => Number(r[column]);
    // By hand: the buyer pays 0.1 for its invalid answer and 0.1 for its retreat, and takes half the surplus.
    expect(num(deal, 'buyerRewardCompliance')).toBeCloseTo(-0.1, 12);
    expect(num(deal, 'buyerRewardConsistency')).toBeCloseTo(-0.1, 12);
    expect(num(deal, 'buyerRewardSurplus')).toBeCloseTo(0.5, 12);
    expect(num(deal, 'buyerReward')).toBeCloseTo(0.3, 12);
    expect(num(deal, 'sellerReward')).toBeCloseTo(0.5, 12);
    expect(deal).toMatchObject({ buyerRewardIrPenalty: '0', buyerRewardWalkAwayCredit: '0', sellerRewardCompliance: '0', sellerRewardConsistency: '0' });
    expect(walk).toMatchObject({ buyerReward: '0.5', buyerRewardWalkAwayCredit: '0.5', sellerReward: '0', sellerRewardWalkAwayCredit: '0' });
    // Every reward column is bilateralReward's own number, for both seats.
    for (const [r, scenario, events] of [
      [deal, scn, dealLog],
      [walk, noGft, walkLog],
    ] as const)
      for (const seat of ['buyer', 'seller'] as const) {
        const reward = bilateralReward(scenario, events, seat);
        expect(num(r, `${seat}Reward`)).toBe(reward.total);
        for (const term of REWARD_TERMS) expect(num(r, `${seat}Reward${term.charAt(0).toUpperCase()}${term.slice(1)}`)).toBe(reward.terms[term]);
      }
  });

  it('leaves the reward columns empty for a row without rewards', () => {
    const { rewards: _, ...bare } = row('bare', scn, dealLog);
    const [r] = records(negotiationsCsv([bare])) as [Record<string, string>];
    const rewardColumns = NEGOTIATIONS_CSV_HEADER.filter((c) => /^(buyer|seller)Reward/.test(c));
    expect(rewardColumns).toHaveLength(12);
    for (const c of rewardColumns) expect(r[c]).toBe('');
    expect(seatRewards(scn, dealLog.slice(0, -1))).toBeNull();
  });
});
