// `parley market`: one multi-product market, printed as a transcript or as JSON. Metrics: docs/market-metrics.md.
import { DEFAULT_MARKET_SPECS, MARKET_STRATEGIES } from '../../games/market';
import { optimalAllocation } from '../../games/market/matching';
import { salesOf } from '../../games/market/metrics';
import { ALL_MARKET_CONFIGS, generateMarket, HELD_OUT_VALUATIONS, MarketConfigSchema, VALUATIONS } from '../../games/market/scenario';
import { playMarket } from '../../games/market/tournament';
import { Seat } from '../../engine/seat';
import { SeedSchema } from '../../engine/rng';
import { intFlag, parseFlags, rangeOf, type Command } from '../args';
import { EXIT_INTERRUPTED, type Io } from '../io';
import { agentFactory, formatMarket, marketFlags, namedMetrics, seatSpec } from '../market';
import { LLM_FLAGS, REMOTE_FLAGS } from '../model-flags';

async function run(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, marketCommand);
  const { name, config } = marketFlags(args);
  const sellerSpec = seatSpec(args, 'seller');
  const buyerSpec = seatSpec(args, 'buyer');
  const makeMarketAgent = agentFactory(args, io, [sellerSpec, buyerSpec]);
  const seller = sellerSpec.label;
  const buyer = buyerSpec.label;
  const seed = intFlag(args, 'seed');
  const scenario = generateMarket(config, seed, 0, name);
  const id = `market-${seed}`;
  const seat = (role: 'seller' | 'buyer', spec: string) => makeMarketAgent(spec, role, new Seat(seed, id, role));
  const played = await playMarket(scenario, { seller: seat('seller', seller), buyer: seat('buyer', buyer) }, io.signal ? { signal: io.signal } : {});
  const { events, outcome, metrics } = played;
  if (args.switches.has('json')) {
    const optimal = optimalAllocation(scenario);
    const doc = {
      scenario,
      agents: { seller, buyer },
      seed,
      events,
      outcome,
      allocation: { sales: salesOf(events), optimal: optimal.assignments },
      metrics: namedMetrics(metrics),
      seats: { seller: metrics.seller, buyer: metrics.buyer },
    };
    io.out(JSON.stringify(doc, null, 2) + '\n');
  } else io.out(formatMarket(scenario, { seller, buyer }, events, metrics, seed));
  return outcome.kind === 'cancelled' ? EXIT_INTERRUPTED : 0;
}

const limits = MarketConfigSchema.shape;
const names = (list: readonly { name: string }[]) => list.map((d) => d.name).join(', ');

export const marketCommand: Command = {
  name: 'market',
  summary:
    'One market: one seller, M products, N buyers with unit demand, T seller turns; the transcript, the sales, the optimal allocation and the nine measures (docs/market-metrics.md).',
  flags: {
    buyers: { required: 'without --preset', kind: 'int', value: 'N', ...rangeOf(limits.buyers), default: "the preset's", help: 'buyers' },
    products: { required: 'without --preset', kind: 'int', value: 'M', ...rangeOf(limits.products), default: "the preset's", help: 'products' },
    budget: { kind: 'int', value: 'T', ...rangeOf(limits.budget.unwrap()), default: "the preset's, else two per buyer", help: 'seller turns' },
    valuation: {
      kind: 'choice',
      choices: VALUATIONS,
      default: "the preset's, else independent",
      help: `how buyers value products (${HELD_OUT_VALUATIONS.join(', ')}: only the held-out configurations use them)`,
    },
    stock: { kind: 'int', value: 'K', ...rangeOf(limits.stock), default: "the preset's, else 1", help: 'units of each product' },
    preset: { kind: 'text', value: 'NAME', help: `a configuration to start from: ${names(ALL_MARKET_CONFIGS)}` },
    seller: { kind: 'text', value: 'SPEC', default: DEFAULT_MARKET_SPECS.seller, help: `the seller: ${names(MARKET_STRATEGIES.seller)}, or PROVIDER:MODEL` },
    buyer: { kind: 'text', value: 'SPEC', default: DEFAULT_MARKET_SPECS.buyer, help: `every buyer: ${names(MARKET_STRATEGIES.buyer)}, or PROVIDER:MODEL` },
    seed: { kind: 'int', value: 'S', ...rangeOf(SeedSchema), default: 1, help: 'the seed the market is drawn from' },
    json: { kind: 'switch', help: 'print the scenario, events, outcome, allocation and metrics as JSON' },
    ...LLM_FLAGS,
    ...REMOTE_FLAGS,
  },
  example: 'npm run parley -- market --buyers 4 --products 3 --seller greedy --seed 2',
  run,
};
