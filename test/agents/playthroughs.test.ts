import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NegotiationResult } from '../../src/games/bilateral/tournament';
import type { BilateralOutcome } from '../../src/games/bilateral/protocol';
import type { Move } from '../../src/games/bilateral/moves';
import type { MarketTournamentResult } from '../../src/games/market/tournament';
import { MARKET_PRESETS } from '../../src/games/market/scenario';
import type { MarketMove } from '../../src/games/market/moves';
import type { MarketOutcome } from '../../src/games/market/protocol';
import { PRESETS, priceRangeOf, type Deadline, type Preset } from '../../src/games/bilateral/scenario';
import type { SessionEvent, SessionFailure } from '../../src/engine/session';
import { makeAgent } from '../../src/games/bilateral/registry';
import { STRATEGY_NAMES } from '../../src/games/bilateral/specs';
import { makeMarketAgent, MARKET_STRATEGIES } from '../../src/games/market/specs';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';
import { marketGame } from '../../src/games/market/game';

/**
 * The engine may be made faster, never different. In the bilateral game every strategy (random included) plays every
 * other and itself on 4 scenarios (both first movers) of every preset under both deadline kinds:
 * 8 tournaments of 256 negotiations.
 *
 * - Readable playthroughs, one file per preset and deadline in test/fixtures/playthroughs/, hold a
 *   representative set, one line per event: each strategy as buyer against the next one in
 *   STRATEGY_NAMES as seller (the last against the first), on scenario 0 (the seller opens) and
 *   scenario 1 (the buyer opens). A changed event log fails here as a line diff.
 * - All 2,048 negotiations are still pinned by sha256 (fingerprints.json there), over the same
 *   serialisation as before (`${id}\n${JSON.stringify(events)}\n` per negotiation, in plan order).
 *
 * - The market (see MARKET_CONFIGS) in full, one file per buyer strategy: market-<buyer>.txt.
 *
 * A deliberate change to a protocol or a strategy rewrites them all with
 *   UPDATE_PLAYTHROUGHS=1 npx vitest run --project node test/agents/playthroughs.test.ts
 * and its commit says why the logs changed (the diff of the playthroughs shows how). Without the
 * variable nothing is written: a difference fails.
 */
const DIR = new URL('../fixtures/playthroughs/', import.meta.url);
const FINGERPRINTS = new URL('fingerprints.json', DIR);
const UPDATE = process.env.UPDATE_PLAYTHROUGHS === '1';
const SEED = 11;
const SCENARIOS_PER_PAIR = 4;
const DEADLINES: Record<string, Deadline> = {
  fixed: { kind: 'fixed', turns: 20 },
  uncertain: { kind: 'uncertain', min: 16, max: 24 },
};

/** Job ids are `${buyer}-${seller}-${scenario}` over indexes into STRATEGY_NAMES. */
const n = STRATEGY_NAMES.length;
const SHOWN = new Set(STRATEGY_NAMES.flatMap((_, b) => [0, 1].map((k) => `${b}-${(b + 1) % n}-${k}`)));

const quote = (text: string): string => JSON.stringify(text);

function bilateralMove(move: Move): string {
  const action = move.action;
  if (action === undefined && move.message === undefined) return 'empty move';
  const parts = [action === undefined ? 'says' : action.type === 'offer' ? `offer ${action.price}` : action.type];
  if (move.message !== undefined) parts.push(quote(move.message));
  return parts.join(' ');
}

function bilateralOutcome(o: BilateralOutcome): string {
  switch (o.kind) {
    case 'deal':
      return `deal ${o.price} accepted by ${o.acceptedBy}`;
    case 'walk_away':
      return `walk_away by ${o.by}`;
    case 'turn_limit':
      return 'turn_limit';
  }
}

/** One event as one line, either game: `t<turn> <actor> <move>`, or `t<turn> end <outcome>`. */
function eventLine<A extends string, Mv, Out extends { kind: string }>(
  e: SessionEvent<A, Mv, Out>,
  moveText: (move: Mv) => string,
  outcomeText: (outcome: Out) => string,
): string {
  const call = 'call' in e && e.call !== undefined ? ` call ${JSON.stringify(e.call)}` : '';
  switch (e.type) {
    case 'move':
      return `t${e.turn} ${e.actor} ${moveText(e.move)}${call}`;
    case 'invalid':
      return `t${e.turn} ${e.actor} invalid attempt ${e.attempt} ${quote(e.reason)} raw ${quote(e.raw)}${call}`;
    case 'forfeit':
      return `t${e.turn} ${e.actor} forfeit`;
    case 'end':
      return `t${e.turn} end ${isFailure(e.outcome) ? failureText(e.outcome) : outcomeText(e.outcome)}`;
  }
}

const isFailure = <A extends string>(o: { kind: string }): o is SessionFailure<A> => o.kind === 'error' || o.kind === 'cancelled';
const failureText = (f: SessionFailure<string>): string => (f.kind === 'error' ? `error by ${f.actor} ${quote(f.message)}` : 'cancelled');

function playthrough(r: NegotiationResult): string {
  const s = r.scenario;
  const range = priceRangeOf(s);
  const limit = s.turnRange ? `turn limit ${s.turnLimit} (told ${s.turnRange.min}-${s.turnRange.max})` : `turn limit ${s.turnLimit}`;
  const head = [
    `## ${r.id}: buyer ${r.buyer}, seller ${r.seller}`,
    `# ${s.id}: ${s.item.name} (${s.item.id}, list ${s.item.listPrice}), buyer value ${s.buyerValue}, seller cost ${s.sellerCost}, prices ${range.lo}-${range.hi}, tier ${s.tier}, ${limit}, ${s.firstMover} opens`,
  ];
  return [...head, ...r.events.map((e) => eventLine(e, bilateralMove, bilateralOutcome))].join('\n') + '\n';
}

interface Played {
  fingerprint: string;
  text: string;
}

async function play(preset: Preset, deadlineName: string, deadline: Deadline): Promise<Played> {
  const hash = createHash('sha256');
  const shown: string[] = [];
  await runTournament(
    bilateralGame,
    { agents: [...STRATEGY_NAMES], scenariosPerPair: SCENARIOS_PER_PAIR, preset, seed: SEED, selfPlay: true, deadline },
    makeAgent,
    {
      onResult: (r) => {
        hash.update(`${r.id}\n${JSON.stringify(r.events)}\n`);
        if (SHOWN.has(r.id)) shown.push(playthrough(r));
      },
    },
  );
  const title = `# Playthroughs: preset ${preset}, ${deadlineName} deadline (${JSON.stringify(deadline)}), seed ${SEED}; strategies ${STRATEGY_NAMES.join(', ')}.\n# Written by test/agents/playthroughs.test.ts (UPDATE_PLAYTHROUGHS=1 rewrites it); each line after a header is one event: t<turn> <actor> <move>, and the end.\n`;
  return { fingerprint: hash.digest('hex'), text: [title, ...shown].join('\n') };
}

/**
 * The market: every seller strategy against each buyer strategy (one file each), on one market of
 * three presets: small (3 x 3), scarce (10 buyers, 4 products) and shifted (values below list).
 */
const MARKET_SEED = 9;
const MARKET_CONFIGS = MARKET_PRESETS.filter((c) => ['small', 'scarce', 'shifted'].includes(c.name));
const MARKET_SELLERS = MARKET_STRATEGIES.seller.map((s) => s.name);
const MARKET_BUYERS = MARKET_STRATEGIES.buyer.map((s) => s.name);

function marketMove(move: MarketMove): string {
  if ('response' in move) {
    const r = move.response;
    const answer = r.type === 'counter' ? `counter ${r.price}` : r.type;
    return move.message === undefined ? answer : `${answer} ${quote(move.message)}`;
  }
  return `offer ${move.price} for ${move.product} to ${move.buyer} ${quote(move.message)}`;
}

function marketPlaythrough(r: MarketTournamentResult): string {
  const s = r.scenario;
  const head = [
    `## ${r.id}: seller ${r.seller}, buyers ${r.buyer}`,
    `# ${s.id}: ${s.valuation} values, budget ${s.budget} seller turns, ${s.allowBelowCost ? 'prices below cost allowed' : 'no price below cost'}, optimal welfare ${r.optimalWelfare}`,
    ...s.products.map((p) => `# product ${p.id} ${quote(p.name)}: cost ${p.cost}, list ${p.listPrice}, stock ${p.stock}`),
    ...s.buyers.map((b) => `# buyer ${b.id} values ${b.values.join(' ')}`),
  ];
  return [...head, ...r.events.map((e) => eventLine(e, marketMove, (o: MarketOutcome) => o.kind))].join('\n') + '\n';
}

async function playMarkets(buyer: string): Promise<string> {
  const shown: string[] = [];
  await runTournament(
    marketGame,
    { sellers: [...MARKET_SELLERS], buyer, configs: [...MARKET_CONFIGS], marketsPerConfig: 1, seed: MARKET_SEED },
    makeMarketAgent,
    { onResult: (r) => void shown.push(marketPlaythrough(r)) },
  );
  const title = `# Market playthroughs: buyers ${buyer}; sellers ${MARKET_SELLERS.join(', ')}; presets ${MARKET_CONFIGS.map((c) => c.name).join(', ')}, one market each; seed ${MARKET_SEED}.\n# Written by test/agents/playthroughs.test.ts (UPDATE_PLAYTHROUGHS=1 rewrites it); each line after a header is one event: t<turn> <actor> <move>, and the end.\n`;
  return [title, ...shown].join('\n');
}

/** The stored text of a fixture, or (with UPDATE_PLAYTHROUGHS=1) the text now, written first. */
function golden(file: URL, now: string): string {
  if (UPDATE) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, now);
  }
  if (!existsSync(file)) throw new Error(`${file.pathname} is missing: write it with UPDATE_PLAYTHROUGHS=1 (see this test's header)`);
  return readFileSync(file, 'utf8');
}

describe('event logs stay the same', () => {
  const played = new Map<string, Played>();
  beforeAll(async () => {
    for (const preset of PRESETS) for (const [name, deadline] of Object.entries(DEADLINES)) played.set(`${preset}-${name}`, await play(preset, name, deadline));
  });

  for (const preset of PRESETS)
    for (const name of Object.keys(DEADLINES))
      it(`plays ${preset} with a ${name} deadline as ${preset}-${name}.txt says`, () => {
        const { text } = played.get(`${preset}-${name}`) as Played;
        expect(text).toBe(golden(new URL(`${preset}-${name}.txt`, DIR), text));
      });

  it('hashes every negotiation of all eight tournaments to the recorded fingerprints', () => {
    const now = Object.fromEntries([...played].map(([key, p]) => [key.replace('-', '/'), p.fingerprint]));
    expect(now).toEqual(JSON.parse(golden(FINGERPRINTS, JSON.stringify(now, null, 2) + '\n')));
  });
});

describe('market event logs stay the same', () => {
  it.each(MARKET_BUYERS)('plays every seller against %s buyers as its market-<buyer>.txt says', async (buyer) => {
    const text = await playMarkets(buyer);
    expect(text).toBe(golden(new URL(`market-${buyer}.txt`, DIR), text));
  });
});
