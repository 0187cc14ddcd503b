/**
 * The spec grammar every game's seats share, as text: a language model (`webllm:MODEL`,
 * `provider:model`, either with `+think`), or a scripted strategy's parameters (`key=value`).
 * Each game adds its own strategies and the words around them (games/<game>/specs.ts). Parsed
 * here without loading any backend, so the page can check specs cheaply.
 */
import { problems, type CodeOf, type DataArgs, type ProblemOf } from '../engine/errors';
import { err, ok, type Result } from '../engine/result';
import { canThink, parseRemoteSpec, PROVIDERS, REMOTE_PROVIDERS, type RemoteModel } from './remote-spec';
import { QUANTIZATIONS, QWEN3_SIZES, qwen3ModelId } from './backends/webllm/models';
import { customModel, customModels } from './backends/webllm/custom';

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

/** A spec that names a language model: what parseModelSpec reads. */
export type ModelSpec = Omit<AgentSpec, 'human'>;

/** One parameter of a scripted strategy, in any game. */
export interface ParamInfo {
  default: number;
  min: number;
  max: number;
  doc: string;
}

/** The spec of the seat the user plays in person. */
export const HUMAN_SPEC = 'human';

/** Every WebLLM build an agent spec may name; which of them this GPU can run is the page's question. */
export const WEBLLM_MODEL_IDS: readonly string[] = QWEN3_SIZES.flatMap((size) => QUANTIZATIONS.map((q) => qwen3ModelId(size, q)));
export const WEBLLM_PREFIX = 'webllm:';
/** Appended to a model's spec, it asks the model to think first: `webllm:Qwen3-4B-q4f16_1-MLC+think`. */
export const THINK_SUFFIX = '+think';

/** A spec that names a language model (remote or WebLLM) rather than a scripted strategy. */
export const isModelSpec = (spec: Pick<AgentSpec, 'remote' | 'webllm'>): boolean => spec.remote !== undefined || spec.webllm !== undefined;

/** How the choices of a game's spec end: the models any seat may name. */
export const MODEL_CHOICES = `a model as PROVIDER:MODEL (${REMOTE_PROVIDERS.join(', ')}), or webllm:MODEL`;

/** A plain decimal number: digits with an optional fraction and exponent; no hex, octal, binary, Infinity or NaN. */
const DECIMAL = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Whether a parameter's text is a number a spec takes: plain decimal, and finite once read. */
const isDecimalNumber = (text: string): boolean => DECIMAL.test(text) && Number.isFinite(Number(text));

/** User text inside a one-line message: quoted, escaped (no line breaks), and clipped. */
export function show(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

/** What the parameter checks read of a strategy, in any game: its name and parameters. */
export interface ParamOwner {
  name: string;
  params: Readonly<Record<string, ParamInfo>>;
}

/** A strategy's parameters with their ranges, as a problem's data holds them. */
export type ParamRanges = readonly { key: string; min: number; max: number }[];
const rangesOf = (def: ParamOwner): ParamRanges => Object.entries(def.params).map(([key, p]) => ({ key, min: p.min, max: p.max }));

/** `beta (0.01 to 100), kappa (0 to 0.99)`. */
const describeParams = (params: ParamRanges): string =>
  params.length === 0 ? 'no parameters' : params.map((p) => `${p.key} (${p.min} to ${p.max})`).join(', ');

/** Why a spec is refused, for any game's specs: the strategy grammar and its parameters. */
const STRATEGY_SPEC_PROBLEMS = {
  'not-a-model': (d: { spec: string }) => `"${THINK_SUFFIX}" asks a language model to think; ${show(d.spec)} is not one`,
  'not-key-value': (d: { part: string; spec: string; strategy: string; params: ParamRanges }) =>
    `${show(d.part)} in ${show(d.spec)} is not key=value; ${d.strategy} takes: ${describeParams(d.params)}`,
  'unknown-parameter': (d: { key: string; strategy: string; params: ParamRanges }) =>
    `unknown parameter ${show(d.key)} for ${d.strategy}; ${d.strategy} takes: ${describeParams(d.params)}`,
  'parameter-not-decimal': (d: { key: string; value: string; example: number; strategy: string; params: ParamRanges }) =>
    `${d.strategy} parameter ${d.key}=${show(d.value)} is not a decimal number (such as ${d.example}); ${d.strategy} takes: ${describeParams(d.params)}`,
  'parameter-out-of-range': (d: { key: string; value: number; min: number; max: number; strategy: string; params: ParamRanges }) =>
    `${d.strategy} parameter ${d.key}=${d.value} is out of range ${d.min} to ${d.max}; ${d.strategy} takes: ${describeParams(d.params)}`,
  'parameter-twice': (d: { key: string; spec: string }) => `parameter ${show(d.key)} given twice in ${show(d.spec)}`,
} as const;

/** Why a model's spec is refused, in any game. */
const MODEL_SPEC_PROBLEMS = {
  /** `choices`: the built-in builds and the user's own models when the spec was read. */
  'unknown-webllm-model': (d: { model: string; choices: readonly string[] }) =>
    `unknown WebLLM model ${show(d.model)}; choose one of: ${d.choices.join(', ')} (your own are added on the Models page)`,
  'cannot-think': (d: RemoteModel) =>
    `"${THINK_SUFFIX}": ${PROVIDERS[d.provider].label} has no setting that turns thinking on and off for all its models, so ${d.provider}:${d.model} cannot be told to think; providers that can: ${REMOTE_PROVIDERS.filter(canThink).join(', ')}`,
} as const;

/** Why a seat's spec is refused in any game, its strategy's parameters or its model: each game adds its own codes. */
export const SEAT_SPEC_PROBLEMS = { ...STRATEGY_SPEC_PROBLEMS, ...MODEL_SPEC_PROBLEMS } as const;
export type StrategySpecProblem = ProblemOf<typeof STRATEGY_SPEC_PROBLEMS>;
export type ModelSpecProblem = ProblemOf<typeof SEAT_SPEC_PROBLEMS>;
const seatSpecProblem = problems(SEAT_SPEC_PROBLEMS);
const refuse = <C extends CodeOf<typeof SEAT_SPEC_PROBLEMS>>(code: C, ...data: DataArgs<typeof SEAT_SPEC_PROBLEMS, C>) => err(seatSpecProblem(code, ...data));

/**
 * One parameter's value from its text: a plain decimal number inside the parameter's range.
 * `key` must be one of the strategy's own parameters (never an inherited name such as
 * `__proto__` or `toString`); the problem names every parameter the strategy takes.
 */
function parseParamValue(def: ParamOwner, key: string, raw: string): Result<number, StrategySpecProblem> {
  const strategy = def.name;
  const params = rangesOf(def);
  const info = Object.hasOwn(def.params, key) ? def.params[key] : undefined;
  if (info === undefined) return refuse('unknown-parameter', { key, strategy, params });
  const value = Number(raw);
  if (!isDecimalNumber(raw)) return refuse('parameter-not-decimal', { key, value: raw, example: info.default, strategy, params });
  if (value < info.min || value > info.max) return refuse('parameter-out-of-range', { key, value, min: info.min, max: info.max, strategy, params });
  return ok(value);
}

/**
 * The parameters of `parts` (`key=value` each) for a strategy, in a spec: each checked, none twice.
 * Both games' specs read their parameters so.
 */
function parseParams(def: ParamOwner, parts: readonly string[], spec: string): Result<Map<string, number>, StrategySpecProblem> {
  const given = new Map<string, number>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq < 0) return refuse('not-key-value', { part, spec, strategy: def.name, params: rangesOf(def) });
    const key = part.slice(0, eq);
    const value = parseParamValue(def, key, part.slice(eq + 1));
    if (!value.ok) return value;
    if (given.has(key)) return refuse('parameter-twice', { key, spec });
    given.set(key, value.value);
  }
  return ok(given);
}

/**
 * A strategy's spec once its definition is found: `parts` (`key=value` each) read into every
 * parameter, defaults filled in, and the canonical label (the name and the parameters given, in
 * definition order). `text` is the whole spec, for the problem.
 */
export function strategySpec(
  def: ParamOwner,
  parts: readonly string[],
  text: string,
): Result<{ params: Record<string, number>; label: string }, StrategySpecProblem> {
  const read = parseParams(def, parts, text);
  if (!read.ok) return read;
  const given = read.value;
  const known = Object.keys(def.params);
  const params: Record<string, number> = {};
  for (const key of known) params[key] = given.get(key) ?? (def.params[key]?.default as number);
  const label = [def.name, ...known.filter((k) => given.has(k)).map((k) => `${k}=${given.get(k)}`)].join(':');
  return ok({ params, label });
}

/**
 * A model's spec, in any game: `webllm:MODEL` (a built-in Qwen3 build or one of the user's own),
 * `provider:model`, either with `+think`. Null when the text names no model (a strategy's spec,
 * which the game reads); `+think` after anything else is refused.
 */
export function parseModelSpec(text: string): Result<ModelSpec, ModelSpecProblem> | null {
  const trimmed = text.trim();
  const thinking = trimmed.endsWith(THINK_SUFFIX);
  const body = thinking ? trimmed.slice(0, -THINK_SUFFIX.length).trimEnd() : trimmed;
  const suffix = thinking ? THINK_SUFFIX : '';
  if (body.startsWith(WEBLLM_PREFIX)) {
    const model = body.slice(WEBLLM_PREFIX.length).trim();
    if (!WEBLLM_MODEL_IDS.includes(model) && customModel(model) === undefined)
      return refuse('unknown-webllm-model', { model, choices: [...WEBLLM_MODEL_IDS, ...customModels().map((m) => m.name)] });
    return ok({ name: 'webllm', params: {}, label: `${WEBLLM_PREFIX}${model}${suffix}`, webllm: model, ...(thinking && { thinking }) });
  }
  const remote = parseRemoteSpec(body);
  if (remote && thinking && !canThink(remote.provider)) return refuse('cannot-think', remote);
  if (remote) return ok({ name: remote.provider, params: {}, label: `${remote.provider}:${remote.model}${suffix}`, remote, ...(thinking && { thinking }) });
  if (thinking) return refuse('not-a-model', { spec: body });
  return null;
}

/** Whether a run in which every model thinks can be played with these agents: not when one cannot be told to think (its provider has no setting for it). */
export function everyModelThinks(specs: readonly Pick<AgentSpec, 'remote'>[]): Result<true, ModelSpecProblem> {
  const mute = specs.find((s) => s.remote !== undefined && !canThink(s.remote.provider));
  return mute?.remote ? refuse('cannot-think', mute.remote) : ok(true);
}

/** The WebLLM model ids the specs name, each once (buyer and seller may be the same model). */
export function webllmModels(agents: readonly string[]): string[] {
  const models = new Set<string>();
  for (const text of agents) {
    const parsed = parseModelSpec(text);
    if (parsed?.ok && parsed.value.webllm !== undefined) models.add(parsed.value.webllm);
  }
  return [...models];
}
