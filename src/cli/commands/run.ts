// `parley run`: one negotiation between two agents, printed as a transcript or as JSON.
import { createAgentFactory } from '../../games/bilateral/registry';
import { parseAgentSpec } from '../../games/bilateral/specs';
import { OracleScorer } from '../../games/bilateral/oracle-agents';
import { STRATEGIES } from '../../games/bilateral/strategies';
import { playNegotiation } from '../../games/bilateral/tournament';
import { Seat } from '../../engine/seat';
import { generateScenarios, type Role } from '../../games/bilateral/scenario';
import { parseFlags, requiredFlag, usageError, type Command } from '../args';
import { BILATERAL_MODEL_FLAGS, priceFlags, scenarioFlags, SCENARIO_FLAGS, usd } from '../bilateral-flags';
import { formatTranscript } from '../format';
import { EXIT_INTERRUPTED, type Io } from '../io';
import { llmFlags, remoteSettings } from '../model-flags';

async function run(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, runCommand);
  const hint = `a strategy such as ${STRATEGIES.map((s) => s.name).join(', ')}, or PROVIDER:MODEL`;
  const buyer = parseAgentSpec(requiredFlag(args, 'buyer', hint));
  if (!buyer.ok) throw usageError('bad-value', { flag: '--buyer', problem: buyer.error });
  const seller = parseAgentSpec(requiredFlag(args, 'seller', hint));
  if (!seller.ok) throw usageError('bad-value', { flag: '--seller', problem: seller.error });
  const { preset, seed, deadline, firstMover } = scenarioFlags(args);
  const [scenario] = generateScenarios({ preset, seed, count: 1, deadline, firstMover });
  if (!scenario) throw new Error('no scenario generated');
  const negotiationId = `run-${seed}`;
  const prices = priceFlags(args);
  const llm = llmFlags(args, [buyer.value, seller.value]);
  const makeAgent = createAgentFactory(remoteSettings(args, io.env ?? {}, [buyer.value, seller.value]), {}, llm);
  const seat = (role: Role, label: string) => makeAgent(label, role, new Seat(seed, negotiationId, role));
  const result = await playNegotiation(
    scenario,
    { buyer: seat('buyer', buyer.value.label), seller: seat('seller', seller.value.label) },
    io.signal ? { signal: io.signal } : {},
  );
  const agents = { buyer: buyer.value.label, seller: seller.value.label };
  new OracleScorer().score(agents.buyer, agents.seller, scenario, result.metrics);
  if (args.switches.has('json')) {
    const cost = (role: Role) => usd(agents[role], result.metrics[role], prices);
    const priced = prices.size > 0 ? { prices: Object.fromEntries(prices), cost: { buyer: cost('buyer'), seller: cost('seller') } } : {};
    io.out(JSON.stringify({ scenario, agents, ...result, ...priced }, null, 2) + '\n');
  } else {
    io.out(formatTranscript(scenario, agents, result.events, result.metrics, prices));
  }
  return result.outcome.kind === 'cancelled' ? EXIT_INTERRUPTED : 0;
}

export const runCommand: Command = {
  name: 'run',
  summary: 'One negotiation between a buyer and a seller on one drawn scenario: the transcript, the outcome and the split.',
  flags: {
    buyer: { required: true, kind: 'text', value: 'SPEC', help: 'the buyer: a strategy (boulware, boulware:beta=0.2) or a model PROVIDER:MODEL' },
    seller: { required: true, kind: 'text', value: 'SPEC', help: 'the seller, as --buyer' },
    ...SCENARIO_FLAGS,
    json: { kind: 'switch', help: 'print the scenario, events, outcome and metrics as JSON' },
    ...BILATERAL_MODEL_FLAGS,
  },
  example: 'npm run parley -- run --buyer boulware --seller conceder --seed 3',
  run,
};
