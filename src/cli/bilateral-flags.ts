// What the bilateral commands (run, tournament) share: the scenario flags, --price and the model flags.
import { agentCost, priceSpec, runCost, type Prices } from '../agents/pricing';
import { MOVE_TOKENS, THINKING_MAX_TOKENS } from '../agents/backends/types';
import type { LlmSettings } from '../agents/llm/settings';
import { parseDollars, type Price } from '../engine/cost';
import type { RunUsage } from '../games/bilateral/usage';
import { SeedSchema } from '../engine/rng';
import {
  DEADLINE_KINDS,
  deadlineLabel,
  DEFAULT_DEADLINE,
  DEFAULT_FIRST_MOVER,
  DEFAULT_TURN_LIMIT,
  FIRST_MOVERS,
  PRESETS,
  ScenarioSchema,
  uncertainAround,
  type Deadline,
} from '../games/bilateral/scenario';
import { choiceFlag, intFlag, rangeOf, usageError, wholeNumber, type FlagTable, type ParsedArgs } from './args';
import { LLM_FLAGS, REMOTE_FLAGS } from './model-flags';

const TURNS = rangeOf(ScenarioSchema.shape.turnLimit);

/** How the scenarios are drawn; read by `scenarioFlags`. */
export const SCENARIO_FLAGS = {
  preset: { kind: 'choice', choices: PRESETS, default: 'standard', help: 'the scenario preset (price ranges and zones)' },
  seed: { kind: 'int', value: 'N', ...rangeOf(SeedSchema), default: 1, help: 'the seed the scenarios are drawn from' },
  deadline: {
    kind: 'choice',
    choices: DEADLINE_KINDS,
    default: deadlineLabel(DEFAULT_DEADLINE),
    help: 'fixed: both sides know the turn limit; uncertain: they know only a range',
  },
  turns: {
    kind: 'text',
    value: 'N|MIN-MAX',
    help: `the turn limit (${TURNS.min} to ${TURNS.max}), or the range it is drawn from; with --deadline uncertain, N draws it around N`,
  },
  first: { kind: 'choice', choices: FIRST_MOVERS, default: DEFAULT_FIRST_MOVER, help: 'who opens: alternate scenarios, or always one side' },
} as const satisfies FlagTable;

/** Every flag for model seats: how they are asked, where they are played and their prices. */
export const BILATERAL_MODEL_FLAGS = {
  ...LLM_FLAGS,
  ...REMOTE_FLAGS,
  price: {
    kind: 'text',
    value: 'SPEC=IN,OUT',
    repeat: true,
    help: "a model's US dollars per million input and output tokens, for a cost estimate (e.g. openai:gpt-4o-mini=0.15,0.6)",
  },
} as const satisfies FlagTable;

/** Every `--price SPEC=IN,OUT`, by model spec. */
export function priceFlags(args: ParsedArgs): Map<string, Price> {
  const prices = new Map<string, Price>();
  for (const raw of args.lists.get('price') ?? []) {
    const eq = raw.lastIndexOf('=');
    const amounts = eq < 0 ? [] : raw.slice(eq + 1).split(',');
    if (amounts.length !== 2) throw usageError('price-form', { value: raw });
    const spec = priceSpec(raw.slice(0, eq));
    if (!spec.ok) throw usageError('bad-value', { flag: '--price', problem: spec.error });
    const input = parseDollars(amounts[0] as string);
    const output = parseDollars(amounts[1] as string);
    if (!input.ok) throw usageError('bad-price', { spec: spec.value, side: 'input', problem: input.error });
    if (!output.ok) throw usageError('bad-price', { spec: spec.value, side: 'output', problem: output.error });
    if (prices.has(spec.value)) throw usageError('price-twice', { spec: spec.value });
    prices.set(spec.value, { inputPerMTok: input.value, outputPerMTok: output.value });
  }
  return prices;
}

/** US dollars for JSON: 0 for a local model, null without a price. */
export function usd(agent: string, usage: { tokensIn: number; tokensOut: number }, prices: Prices): number | null {
  const cost = agentCost(agent, usage, prices);
  return cost.kind === 'priced' ? cost.usd : cost.kind === 'local' ? 0 : null;
}

/** What a tournament's --json adds when prices were given: each usage row's cost and the priced total. */
export function costJson(usage: RunUsage, prices: Prices) {
  const overall = runCost(
    usage.byAgent.filter((r) => r.role === 'all'),
    prices,
  );
  return {
    byAgent: usage.byAgent.map((r) => ({ agent: r.agent, role: r.role, usd: usd(r.agent, r, prices) })),
    totalUsd: overall.usd,
    unpriced: overall.unpriced,
  };
}

/** "interface tools, temperature 0.7, token limit 512 (2048 thinking), thinking off" */
export function describeLlm(llm: LlmSettings): string {
  const limit = llm.maxTokens === null ? `default token limit (${MOVE_TOKENS}; ${THINKING_MAX_TOKENS} thinking)` : `token limit ${llm.maxTokens}`;
  return `interface ${llm.interface}, temperature ${llm.temperature}, ${limit}, ${llm.thinking ? 'every model thinks' : 'thinking only where +think'}`;
}

/** `--deadline fixed|uncertain` with `--turns N` or `--turns MIN-MAX`. */
function deadlineFlags(args: ParsedArgs): Deadline {
  const kind = args.values.has('deadline') ? choiceFlag(args, 'deadline', DEADLINE_KINDS, 'uncertain') : null;
  const raw = args.values.get('turns');
  if (raw === undefined) return kind === 'fixed' ? { kind: 'fixed', turns: DEFAULT_TURN_LIMIT } : DEFAULT_DEADLINE;
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(raw);
  if (range) {
    const [min, max] = [Number(range[1]), Number(range[2])];
    if (kind === 'fixed') throw usageError('turns-range-fixed', { value: raw });
    if (min < TURNS.min || max > TURNS.max || min > max) throw usageError('turns-range', { value: raw, min: TURNS.min, max: TURNS.max });
    return { kind: 'uncertain', min, max };
  }
  const turns = wholeNumber('turns', raw, TURNS.min, TURNS.max);
  return kind === 'uncertain' ? uncertainAround(turns) : { kind: 'fixed', turns };
}

/** The scenario flags' values (SCENARIO_FLAGS). */
export function scenarioFlags(args: ParsedArgs) {
  return {
    preset: choiceFlag(args, 'preset', PRESETS, 'standard'),
    seed: intFlag(args, 'seed'),
    deadline: deadlineFlags(args),
    firstMover: choiceFlag(args, 'first', FIRST_MOVERS, DEFAULT_FIRST_MOVER),
  };
}
