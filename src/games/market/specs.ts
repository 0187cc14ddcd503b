/**
 * Market agent specs as text, `name` or `name:key=value:key=value`, parsed per seat as the
 * bilateral specs are (src/agents/specs.ts): errors are one line that names the valid choices.
 */
import type { MarketRole } from './moves';
import type { MarketAgent, MarketAgentFactory } from './tournament';
import { problems, type CodeOf, type DataArgs, type ProblemOf } from '../../engine/errors';
import { err, ok, type Result } from '../../engine/result';
import type { ChatBackend } from '../../agents/backends/types';
import { llmSettings, type LlmSettings } from '../../agents/llm/settings';
import { RemoteBackends, type RemoteSettings } from '../../agents/remote';
import { isModelSpec, MODEL_CHOICES, parseModelSpec, show, SEAT_SPEC_PROBLEMS, strategySpec, type ModelSpec } from '../../agents/specs';
import { marginBuyer, randomBuyer } from './strategies/buyers';
import { marketLlmAgent } from './llm/agent';
import { catalogSeller, exploreSeller, greedySeller, randomSeller } from './strategies/sellers';
import type { MarketStrategyDef } from './strategies/types';
import type { SeatInfo } from '../../engine/seat';

/** Every scripted market strategy, by seat, in the order the CLI lists them. */
export const MARKET_STRATEGIES: Readonly<Record<MarketRole, readonly MarketStrategyDef[]>> = {
  seller: [catalogSeller, greedySeller, exploreSeller, randomSeller],
  buyer: [marginBuyer, randomBuyer],
};

export const DEFAULT_MARKET_SPECS: Readonly<Record<MarketRole, string>> = { seller: 'explore', buyer: 'margin' };

/** A market seat's spec: a scripted strategy for its role, or a model (agents/specs.ts). */
export type MarketAgentSpec = ModelSpec & { role: MarketRole };

export const marketStrategy = (role: MarketRole, name: string): MarketStrategyDef | undefined => MARKET_STRATEGIES[role].find((d) => d.name === name);

const choices = (role: MarketRole): string => `${MARKET_STRATEGIES[role].map((d) => d.name).join(', ')}, ${MODEL_CHOICES}`;

/** Why a market spec is refused (a model's spec as in every game, agents/specs.ts). */
export const MARKET_SPEC_PROBLEMS = {
  ...SEAT_SPEC_PROBLEMS,
  'empty-spec': (d: { role: MarketRole }) => `empty ${d.role} spec; choose one of: ${choices(d.role)}`,
  'unknown-strategy': (d: { role: MarketRole; name: string }) => `unknown market ${d.role} ${show(d.name)}; choose one of: ${choices(d.role)}`,
  'listed-twice': (d: { role: MarketRole; label: string }) => `${d.role} "${d.label}" is listed twice`,
} as const;

export type MarketSpecProblem = ProblemOf<typeof MARKET_SPEC_PROBLEMS>;
const marketSpecProblem = problems(MARKET_SPEC_PROBLEMS);
const refuse = <C extends CodeOf<typeof MARKET_SPEC_PROBLEMS>>(code: C, ...data: DataArgs<typeof MARKET_SPEC_PROBLEMS, C>) =>
  err(marketSpecProblem(code, ...data));

export function parseMarketSpec(text: string, role: MarketRole): Result<MarketAgentSpec, MarketSpecProblem> {
  const trimmed = text.trim();
  if (trimmed === '') return refuse('empty-spec', { role });
  const model = parseModelSpec(trimmed);
  if (model !== null) return model.ok ? ok({ ...model.value, role }) : model;
  const [name = '', ...parts] = trimmed.split(':');
  const def = marketStrategy(role, name);
  if (!def) return refuse('unknown-strategy', { role, name });
  const read = strategySpec(def, parts, trimmed);
  return read.ok ? ok({ name, role, ...read.value }) : read;
}

/** A list of seller or buyer specs; the first bad one, or a duplicate, is the problem. */
export function parseMarketSpecs(texts: readonly string[], role: MarketRole): Result<MarketAgentSpec[], MarketSpecProblem> {
  const specs: MarketAgentSpec[] = [];
  for (const text of texts) {
    const parsed = parseMarketSpec(text, role);
    if (!parsed.ok) return parsed;
    if (specs.some((s) => s.label === parsed.value.label)) return refuse('listed-twice', { role, label: parsed.value.label });
    specs.push(parsed.value);
  }
  return ok(specs);
}

/**
 * Market agents from specs: scripted strategies, and remote models through backends made from
 * `remote` (one per provider and model, shared by every seat), each asked as `llm` says.
 * Deterministic strategies hold no state, so one instance per spec and seat serves every market;
 * the others get the seat's random stream. `backendFor` may supply a backend of its own for a
 * model spec (a test's scripted backend, the page's WebLLM engines).
 */
export function createMarketAgentFactory(
  remote: RemoteSettings = {},
  llm: Partial<LlmSettings> = {},
  backendFor?: (spec: MarketAgentSpec) => ChatBackend | undefined,
): MarketAgentFactory {
  const shared = new Map<string, MarketAgent>();
  const settings = llmSettings(llm);
  const backends = new RemoteBackends(remote);
  return (text: string, role: MarketRole, ctx: SeatInfo): MarketAgent => {
    const key = `${role}|${text}`;
    const cached = shared.get(key);
    if (cached) return cached;
    const parsed = parseMarketSpec(text, role);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const spec = parsed.value;
    if (spec.remote || spec.webllm !== undefined) {
      const backend = backendFor?.(spec) ?? (spec.remote ? backends.get(spec.remote) : undefined);
      if (!backend) throw new Error(`${spec.label}: WebLLM models run in the browser app, on this device's GPU`);
      return marketLlmAgent(backend, role, {
        interface: settings.interface,
        temperature: settings.temperature,
        ...(settings.maxTokens !== null && { maxTokens: settings.maxTokens }),
        ...((spec.thinking || settings.thinking) && { thinking: true }),
        seed: ctx.seed,
      });
    }
    const def = marketStrategy(role, spec.name) as MarketStrategyDef;
    if (!def.deterministic) return def.create(spec.params, { rng: ctx.rng });
    const agent = def.create(spec.params, {
      get rng(): never {
        throw new Error(`${def.name} is deterministic and has no random stream`);
      },
    });
    shared.set(key, agent);
    return agent;
  };
}

/** Scripted strategies, and remote models at their providers' default addresses without keys. */
export const makeMarketAgent: MarketAgentFactory = createMarketAgentFactory();

/** Whether a spec names a language model rather than a scripted strategy. */
export const isMarketModelSpec = (spec: MarketAgentSpec): boolean => isModelSpec(spec);
