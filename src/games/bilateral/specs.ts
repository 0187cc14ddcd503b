/** The bilateral game's agent specs: its scripted strategies, a model (agents/specs.ts), or `human` in the Arena. */
import { problems, type CodeOf, type DataArgs, type ProblemOf } from '../../engine/errors';
import { err, ok, type Result } from '../../engine/result';
import { HUMAN_SPEC, isModelSpec, MODEL_CHOICES, parseModelSpec, show, SEAT_SPEC_PROBLEMS, strategySpec, type AgentSpec } from '../../agents/specs';
import { STRATEGIES } from './strategies';
import type { StrategyDef } from './strategies/types';

export interface SpecOptions {
  /** Accept `human` (the Arena's own games); everywhere else it is refused (`human-only-in-arena`). */
  allowHuman?: boolean;
}

export const STRATEGY_NAMES: readonly string[] = STRATEGIES.map((s) => s.name);
export const strategyByName = new Map<string, StrategyDef>(STRATEGIES.map((s) => [s.name, s]));
const CHOICES = `${STRATEGY_NAMES.join(', ')}, ${MODEL_CHOICES}`;

/** Why a bilateral agent spec is refused: one line that names the valid choices, ready to show a user. */
export const SPEC_PROBLEMS = {
  ...SEAT_SPEC_PROBLEMS,
  'empty-spec': () => `empty agent spec; choose one of: ${CHOICES}`,
  'human-only-in-arena': () =>
    'a human seat ("human") only plays in the browser app\'s Arena, where you take it in person; tournaments and the command line play agents',
  'unknown-strategy': (d: { name: string }) => `unknown strategy ${show(d.name)}; choose one of: ${CHOICES}`,
  'listed-twice': (d: { label: string }) => `agent "${d.label}" is listed twice`,
} as const;

export type SpecProblem = ProblemOf<typeof SPEC_PROBLEMS>;
export const specProblem = problems(SPEC_PROBLEMS);
const refuse = <C extends CodeOf<typeof SPEC_PROBLEMS>>(code: C, ...data: DataArgs<typeof SPEC_PROBLEMS, C>) => err(specProblem(code, ...data));

/** Parses `name` or `name:key=value:key=value`, or a model's spec; a refused spec's problem names the valid choices. */
export function parseAgentSpec(text: string, opts: SpecOptions = {}): Result<AgentSpec, SpecProblem> {
  const trimmed = text.trim();
  if (trimmed === '') return refuse('empty-spec');
  if (trimmed === HUMAN_SPEC) return opts.allowHuman ? ok({ name: HUMAN_SPEC, params: {}, label: HUMAN_SPEC, human: true }) : refuse('human-only-in-arena');
  const model = parseModelSpec(trimmed);
  if (model !== null) return model;
  const [name = '', ...parts] = trimmed.split(':');
  const def = strategyByName.get(name);
  if (!def) return refuse('unknown-strategy', { name });
  const read = strategySpec(def, parts, trimmed);
  return read.ok ? ok({ name, ...read.value }) : read;
}

/** Parses a list of specs; the first bad one, or a duplicate, is the problem. */
export function parseAgentSpecs(texts: readonly string[], opts: SpecOptions = {}): Result<AgentSpec[], SpecProblem> {
  const specs: AgentSpec[] = [];
  const seen = new Set<string>();
  for (const text of texts) {
    const parsed = parseAgentSpec(text, opts);
    if (!parsed.ok) return parsed;
    if (seen.has(parsed.value.label)) return refuse('listed-twice', { label: parsed.value.label });
    seen.add(parsed.value.label);
    specs.push(parsed.value);
  }
  return ok(specs);
}

export const isDeterministic = (spec: AgentSpec): boolean => !isModelSpec(spec) && (strategyByName.get(spec.name)?.deterministic ?? false);
