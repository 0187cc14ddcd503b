// Agent specs as text: parsed here without loading any backend, so the page can check them cheaply.
import { err, ok, type Result } from '../core/result';
import { canThink, parseRemoteSpec, PROVIDERS, REMOTE_PROVIDERS, type RemoteModel } from './remote-spec';
import { QUANTIZATIONS, QWEN3_SIZES, qwen3ModelId } from './backends/webllm/models';
import { customModel, customModels } from './backends/webllm/custom';
import { STRATEGIES } from './scripted';
import type { StrategyDef } from './scripted/types';

export interface AgentSpec {
  /** Strategy name, e.g. `boulware`. */
  name: string;
  /** Every parameter, defaults filled in. */
  params: Record<string, number>;
  /** Canonical text: the name and the parameters given, in definition order. */
  label: string;
  /** Set for a remote model (`provider:model`); its params are empty. */
  remote?: RemoteModel;
  /** Set for a model run by WebLLM on this device (`webllm:Qwen3-1.7B-q4f16_1-MLC`): its model id. */
  webllm?: string;
  /** A language model told to think before it answers (the spec ends in `+think`). */
  thinking?: boolean;
  /** The user in person (`human`), who moves through the Arena's form. */
  human?: true;
}

/** The spec of the seat the user plays in person. */
export const HUMAN_SPEC = 'human';
/** Why a human seat is refused outside the Arena: one line, ready to show. */
export const HUMAN_ONLY_IN_ARENA =
  'a human seat ("human") only plays in the browser app\'s Arena, where you take it in person; tournaments and the command line play agents';

export interface SpecOptions {
  /** Accept `human` (the Arena's own games); everywhere else it is refused with HUMAN_ONLY_IN_ARENA. */
  allowHuman?: boolean;
}

/** Every WebLLM build an agent spec may name; which of them this GPU can run is the page's question. */
export const WEBLLM_MODEL_IDS: readonly string[] = QWEN3_SIZES.flatMap((size) => QUANTIZATIONS.map((q) => qwen3ModelId(size, q)));
export const WEBLLM_PREFIX = 'webllm:';
/** Appended to a model's spec, it asks the model to think first: `webllm:Qwen3-4B-q4f16_1-MLC+think`. */
export const THINK_SUFFIX = '+think';

/** A spec that names a language model (remote or WebLLM) rather than a scripted strategy. */
export const isModelSpec = (spec: AgentSpec): boolean => spec.remote !== undefined || spec.webllm !== undefined;

export const STRATEGY_NAMES: readonly string[] = STRATEGIES.map((s) => s.name);
export const strategyByName = new Map<string, StrategyDef>(STRATEGIES.map((s) => [s.name, s]));
const CHOICES = `${STRATEGY_NAMES.join(', ')}, a model as PROVIDER:MODEL (${REMOTE_PROVIDERS.join(', ')}), or webllm:MODEL`;

/** A plain decimal number: digits with an optional fraction and exponent; no hex, octal, binary, Infinity or NaN. */
const DECIMAL = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Whether a parameter's text is a number a spec takes: plain decimal, and finite once read. */
const isDecimalNumber = (text: string): boolean => DECIMAL.test(text) && Number.isFinite(Number(text));

/** User text inside a one-line message: quoted, escaped (no line breaks), and clipped. */
export function show(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

/** What the parameter checks read of a strategy, bilateral or market: its name and parameters. */
export type ParamOwner = Pick<StrategyDef, 'name' | 'params'>;

/** The parameters a strategy takes with their ranges, for error messages: `beta (0.01 to 100), kappa (0 to 0.99)`. */
export function describeParams(def: ParamOwner): string {
  const entries = Object.entries(def.params);
  return entries.length === 0 ? 'no parameters' : entries.map(([key, p]) => `${key} (${p.min} to ${p.max})`).join(', ');
}

/**
 * One parameter's value from its text: a plain decimal number inside the parameter's range.
 * `key` must be one of the strategy's own parameters (never an inherited name such as
 * `__proto__` or `toString`); the error names every parameter the strategy takes.
 */
export function parseParamValue(def: ParamOwner, key: string, raw: string): Result<number, string> {
  const takes = `${def.name} takes: ${describeParams(def)}`;
  const info = Object.hasOwn(def.params, key) ? def.params[key] : undefined;
  if (info === undefined) return err(`unknown parameter ${show(key)} for ${def.name}; ${takes}`);
  const value = Number(raw);
  if (!isDecimalNumber(raw))
    return err(`${def.name} parameter ${key}=${show(raw)} is not a decimal number (such as ${info.default}); ${takes}`);
  if (value < info.min || value > info.max)
    return err(`${def.name} parameter ${key}=${value} is out of range ${info.min} to ${info.max}; ${takes}`);
  return ok(value);
}

/**
 * Parses `name` or `name:key=value:key=value`. Errors are one line that names the valid
 * choices, ready to show a user.
 */
export function parseAgentSpec(text: string, opts: SpecOptions = {}): Result<AgentSpec, string> {
  const trimmed = text.trim();
  if (trimmed === '') return err(`empty agent spec; choose one of: ${CHOICES}`);
  if (trimmed === HUMAN_SPEC)
    return opts.allowHuman ? ok({ name: HUMAN_SPEC, params: {}, label: HUMAN_SPEC, human: true }) : err(HUMAN_ONLY_IN_ARENA);
  const thinking = trimmed.endsWith(THINK_SUFFIX);
  const body = thinking ? trimmed.slice(0, -THINK_SUFFIX.length).trimEnd() : trimmed;
  const suffix = thinking ? THINK_SUFFIX : '';
  if (body.startsWith(WEBLLM_PREFIX)) {
    const model = body.slice(WEBLLM_PREFIX.length).trim();
    if (!WEBLLM_MODEL_IDS.includes(model) && customModel(model) === undefined)
      return err(`unknown WebLLM model ${show(model)}; choose one of: ${[...WEBLLM_MODEL_IDS, ...customModels().map((m) => m.name)].join(', ')} (your own are added on the Models page)`);
    return ok({ name: 'webllm', params: {}, label: `${WEBLLM_PREFIX}${model}${suffix}`, webllm: model, ...(thinking && { thinking }) });
  }
  const remote = parseRemoteSpec(body);
  if (remote && thinking && !canThink(remote.provider)) return err(noThinking(remote));
  if (remote)
    return ok({ name: remote.provider, params: {}, label: `${remote.provider}:${remote.model}${suffix}`, remote, ...(thinking && { thinking }) });
  if (thinking) return err(`"${THINK_SUFFIX}" asks a language model to think; ${show(body)} is not one`);
  const [name = '', ...parts] = trimmed.split(':');
  const def = strategyByName.get(name);
  if (!def) return err(`unknown strategy ${show(name)}; choose one of: ${CHOICES}`);
  const known = Object.keys(def.params);
  const given = new Map<string, number>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq < 0) return err(`${show(part)} in ${show(trimmed)} is not key=value; ${def.name} takes: ${describeParams(def)}`);
    const key = part.slice(0, eq);
    const value = parseParamValue(def, key, part.slice(eq + 1));
    if (!value.ok) return value;
    if (given.has(key)) return err(`parameter ${show(key)} given twice in ${show(trimmed)}`);
    given.set(key, value.value);
  }
  const params: Record<string, number> = {};
  for (const key of known) params[key] = given.get(key) ?? (def.params[key]?.default as number);
  const label = [name, ...known.filter((k) => given.has(k)).map((k) => `${k}=${given.get(k)}`)].join(':');
  return ok({ name, params, label });
}

/** Why a provider's models cannot be told to think: no setting of its reaches them. */
export function noThinking(remote: RemoteModel): string {
  const { label } = PROVIDERS[remote.provider];
  const thinkers = REMOTE_PROVIDERS.filter(canThink).join(', ');
  return `"${THINK_SUFFIX}": ${label} has no setting that turns thinking on and off for all its models, so ${remote.provider}:${remote.model} cannot be told to think; providers that can: ${thinkers}`;
}

/** Why a run in which every model thinks cannot be played with these agents (one cannot be told to think), or null. */
export function everyModelThinks(specs: readonly Pick<AgentSpec, 'remote'>[]): Result<true, string> {
  const mute = specs.find((s) => s.remote !== undefined && !canThink(s.remote.provider));
  return mute?.remote ? err(noThinking(mute.remote)) : ok(true);
}

/** Parses a list of specs; the first bad one, or a duplicate, is the error. */
export function parseAgentSpecs(texts: readonly string[], opts: SpecOptions = {}): Result<AgentSpec[], string> {
  const specs: AgentSpec[] = [];
  const seen = new Set<string>();
  for (const text of texts) {
    const parsed = parseAgentSpec(text, opts);
    if (!parsed.ok) return parsed;
    if (seen.has(parsed.value.label)) return err(`agent "${parsed.value.label}" is listed twice`);
    seen.add(parsed.value.label);
    specs.push(parsed.value);
  }
  return ok(specs);
}

/** The WebLLM model ids the agents name, each once (buyer and seller may be the same model). */
export function webllmModels(agents: readonly string[]): string[] {
  const models = new Set<string>();
  for (const text of agents) {
    const parsed = parseAgentSpec(text);
    if (parsed.ok && parsed.value.webllm !== undefined) models.add(parsed.value.webllm);
  }
  return [...models];
}

export const isDeterministic = (spec: AgentSpec): boolean =>
  !isModelSpec(spec) && (strategyByName.get(spec.name)?.deterministic ?? false);

