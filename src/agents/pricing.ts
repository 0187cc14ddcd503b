// What an agent's model calls cost: prices are keyed by model spec text (`openai:gpt-4o-mini`).
import { estimateCost, formatUsd, type Price } from '../engine/cost';
import { problems, type ProblemOf } from '../engine/errors';
import { err, ok, type Result } from '../engine/result';
import { parseRemoteSpec, REMOTE_PROVIDERS } from './remote-spec';
import { THINK_SUFFIX, WEBLLM_PREFIX } from './specs';

/** A model that runs on this device: its calls cost nothing. */
export const isLocalModel = (agent: string): boolean => agent.startsWith(WEBLLM_PREFIX);

/** The model an agent's price is kept under: the spec without `+think` (thinking is billed as tokens). */
const modelOf = (agent: string): string => (agent.endsWith(THINK_SUFFIX) ? agent.slice(0, -THINK_SUFFIX.length).trimEnd() : agent);

export type Prices = ReadonlyMap<string, Price>;

/** An agent's own price, else its model's. */
export const priceOf = (agent: string, prices: Prices): Price | undefined => prices.get(agent) ?? prices.get(modelOf(agent));

export type AgentCost = { kind: 'local' } | { kind: 'priced'; usd: number } | { kind: 'unpriced' };

export function agentCost(agent: string, usage: { tokensIn: number; tokensOut: number }, prices: Prices): AgentCost {
  if (isLocalModel(agent)) return { kind: 'local' };
  const price = priceOf(agent, prices);
  return price ? { kind: 'priced', usd: estimateCost(usage, price) } : { kind: 'unpriced' };
}

/** The run's cost: the sum over agents with a price, and which agents have none. */
export interface RunCost {
  usd: number;
  priced: number;
  local: number;
  unpriced: string[];
}

export function runCost(rows: readonly { agent: string; tokensIn: number; tokensOut: number }[], prices: Prices): RunCost {
  const total: RunCost = { usd: 0, priced: 0, local: 0, unpriced: [] };
  for (const row of rows) {
    const cost = agentCost(row.agent, row, prices);
    if (cost.kind === 'priced') {
      total.usd += cost.usd;
      total.priced++;
    } else if (cost.kind === 'local') total.local++;
    else total.unpriced.push(row.agent);
  }
  return total;
}

/** `$0.0123`, `local (free)`, or `—` where no price is set. */
export function describeCost(cost: AgentCost): string {
  return cost.kind === 'local' ? 'local (free)' : cost.kind === 'priced' ? formatUsd(cost.usd) : '—';
}

/** A sum that leaves out unpriced agents is a lower bound, and says so: `≥ $0.0123`. */
export function describeRunCost(cost: RunCost): string {
  if (cost.priced === 0) return cost.unpriced.length === 0 && cost.local > 0 ? 'local (free)' : '—';
  return `${cost.unpriced.length > 0 ? '≥ ' : ''}${formatUsd(cost.usd)}`;
}

/** The longest model spec a price is kept under, in characters. */
export const MAX_PRICE_SPEC_LENGTH = 200;

/** Why a model typed for a price is refused (engine/errors.ts). */
export const PRICE_SPEC_PROBLEMS = {
  'no-model': () => 'enter a model as PROVIDER:MODEL, e.g. openai:gpt-4o-mini',
  'local-model': () => 'WebLLM models run on this device and cost nothing; they need no price',
  /** `spec`: the text as typed, trimmed. */
  'not-remote': (d: { spec: string; providers: readonly string[] }) =>
    `"${d.spec}" is not a remote model; write PROVIDER:MODEL with PROVIDER one of ${d.providers.join(', ')}`,
  'spec-too-long': (d: { length: number; max: number }) => `a model spec has at most ${d.max} characters`,
} as const;

export type PriceSpecProblem = ProblemOf<typeof PRICE_SPEC_PROBLEMS>;
const priceSpecProblem = problems(PRICE_SPEC_PROBLEMS);

/**
 * The model spec a price is kept under, from what a person typed: a remote model as
 * PROVIDER:MODEL (`+think` dropped). WebLLM models and scripted strategies need no price.
 */
export function priceSpec(text: string): Result<string, PriceSpecProblem> {
  const trimmed = text.trim();
  if (trimmed === '') return err(priceSpecProblem('no-model'));
  const model = modelOf(trimmed);
  if (isLocalModel(model)) return err(priceSpecProblem('local-model'));
  const remote = parseRemoteSpec(model);
  if (!remote) return err(priceSpecProblem('not-remote', { spec: trimmed, providers: REMOTE_PROVIDERS }));
  const spec = `${remote.provider}:${remote.model}`;
  if (spec.length > MAX_PRICE_SPEC_LENGTH) return err(priceSpecProblem('spec-too-long', { length: spec.length, max: MAX_PRICE_SPEC_LENGTH }));
  return ok(spec);
}
