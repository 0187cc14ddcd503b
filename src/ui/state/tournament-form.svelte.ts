import { CONFIRM_PLANS_OVER, plannedCount } from '../../games/bilateral/tournament';
import { DEFAULT_DEADLINE, DEFAULT_FIRST_MOVER, type Deadline, type FirstMoverChoice, type Preset } from '../../games/bilateral/scenario';
import { DEFAULT_LLM_SETTINGS, type MoveInterface } from '../../agents/llm/settings';
import { parseAgentSpec, parseAgentSpecs } from '../../games/bilateral/specs';
import { TournamentConfigSchema } from '../../storage/schema';
import type { TournamentSettings } from '../../worker/messages';
import { modelSetupOf, type TournamentSetup } from '../share-link';
import { rangeText, TOURNAMENT_LIMITS } from './limits';
import { ScenarioFileChoice } from './scenario-file.svelte';

export const DEFAULT_AGENTS: readonly string[] = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator'];

/** What the form's inputs may hold: a number input reads null while it is empty or unreadable. */
type NumberInput = number | null;

/** The form's problems, each in words for the field it belongs to; null where the field is fine. */
export interface TournamentFormErrors {
  agents: string | null;
  scenariosPerPair: string | null;
  seed: string | null;
  deadline: string | null;
}

const turnsRange = `a whole number ${rangeText(TOURNAMENT_LIMITS.turns)}`;

/** The deadline's problem in words, from the issues its schema found (a field's own first, then the range's order). */
function deadlineProblem(
  deadline: { kind: Deadline['kind']; min?: NumberInput; max?: NumberInput },
  issues: readonly { path: readonly PropertyKey[] }[],
): string | null {
  if (issues.length === 0) return null;
  if (deadline.kind === 'fixed') return `The turn limit must be ${turnsRange}.`;
  const at = (end: 'min' | 'max') => issues.some((i) => i.path[1] === end);
  if (at('min')) return `The fewest turns must be ${turnsRange}.`;
  if (at('max')) return `The most turns must be ${turnsRange}.`;
  return `The fewest turns (${deadline.min}) must not be above the most (${deadline.max}).`;
}

/**
 * The Tournament page's form: every field, and the run it describes, checked by parsing it with the
 * stored tournament config's own schema (TournamentConfigSchema), so the page, the worker and the
 * share link hold one set of limits (limits.ts reads them from there).
 */
export class TournamentForm {
  agents = $state<string[]>([...DEFAULT_AGENTS]);
  /** The agent the picker holds, not yet added. */
  candidate = $state('random');
  scenariosPerPair = $state<NumberInput>(20);
  preset = $state<Preset>('standard');
  seed = $state<NumberInput>(1);
  selfPlay = $state(false);
  name = $state('');
  // Both kinds keep their numbers, so switching back and forth loses nothing.
  deadlineKind = $state<Deadline['kind']>(DEFAULT_DEADLINE.kind);
  fixedTurns = $state<NumberInput>(DEFAULT_DEADLINE.kind === 'fixed' ? DEFAULT_DEADLINE.turns : 20);
  minTurns = $state<NumberInput>(DEFAULT_DEADLINE.kind === 'uncertain' ? DEFAULT_DEADLINE.min : 16);
  maxTurns = $state<NumberInput>(DEFAULT_DEADLINE.kind === 'uncertain' ? DEFAULT_DEADLINE.max : 24);
  firstMover = $state<FirstMoverChoice>(DEFAULT_FIRST_MOVER);
  // Choosing a file keeps everything typed for generated scenarios, and the other way round.
  scenarioSource = $state<'generated' | 'file'>('generated');
  readonly scenarioFile = new ScenarioFileChoice();
  moveInterface = $state<MoveInterface>(DEFAULT_LLM_SETTINGS.interface);
  temperature = $state<number>(DEFAULT_LLM_SETTINGS.temperature);
  /** A plan this large plays for a long time and fills storage: it runs only once the user says so. */
  confirmedLarge = $state(false);

  readonly fileScenarios = $derived(this.scenarioSource === 'file' ? this.scenarioFile.scenarios : null);

  readonly #deadline = $derived(
    this.deadlineKind === 'fixed' ? { kind: 'fixed' as const, turns: this.fixedTurns } : { kind: 'uncertain' as const, min: this.minTurns, max: this.maxTurns },
  );

  readonly #llm = $derived({ ...DEFAULT_LLM_SETTINGS, interface: this.moveInterface, temperature: this.temperature });

  /**
   * The config as the form states it, parsed. A file's scenarios were checked when it was read and
   * are left out of the parse (with them, `scenariosPerPair` is their number); they bring their own
   * turn limits and openers, so the rest is stored as the defaults (fullTournamentConfig).
   */
  readonly #parsed = $derived(
    TournamentConfigSchema.safeParse(
      this.fileScenarios
        ? {
            agents: this.agents,
            scenariosPerPair: this.fileScenarios.length,
            preset: 'standard',
            seed: this.seed,
            selfPlay: this.selfPlay,
            deadline: DEFAULT_DEADLINE,
            firstMover: DEFAULT_FIRST_MOVER,
            llm: this.#llm,
          }
        : {
            agents: this.agents,
            scenariosPerPair: this.scenariosPerPair,
            preset: this.preset,
            seed: this.seed,
            selfPlay: this.selfPlay,
            deadline: this.#deadline,
            firstMover: this.firstMover,
            llm: this.#llm,
          },
    ),
  );

  readonly errors = $derived.by((): TournamentFormErrors => {
    const issues = this.#parsed.success ? [] : this.#parsed.error.issues;
    const on = (field: string) => issues.filter((i) => i.path[0] === field);
    const specs = parseAgentSpecs(this.agents);
    const { agents, scenariosPerPair, seed } = TOURNAMENT_LIMITS;
    return {
      agents: !specs.ok
        ? specs.error.message
        : on('agents').length > 0
          ? `A tournament plays ${agents.min} to ${agents.max} agents, each named in at most ${TOURNAMENT_LIMITS.agentSpec.max} characters.`
          : this.agents.length < 2 && !this.selfPlay
            ? 'Add at least two agents (or one with self-play).'
            : null,
      scenariosPerPair: on('scenariosPerPair').length > 0 ? `Scenarios per pair must be a whole number ${rangeText(scenariosPerPair)}.` : null,
      seed: on('seed').length > 0 ? `The seed is a whole number ${rangeText(seed)}.` : null,
      deadline: this.fileScenarios ? null : deadlineProblem(this.#deadline, on('deadline')),
    };
  });

  /** The file chosen, where scenarios come from a file, has not been read without a problem. */
  readonly fileMissing = $derived(this.scenarioSource === 'file' && this.fileScenarios === null);
  /** Any problem at all, the model settings' too (ModelSettings words the temperature's). */
  readonly invalid = $derived(!this.#parsed.success || Object.values(this.errors).some((e) => e !== null) || this.fileMissing);

  /** The tournament to run, every setting explicit; null while the form is invalid. */
  readonly config = $derived.by((): TournamentSettings | null => {
    if (this.invalid || !this.#parsed.success) return null;
    return this.fileScenarios ? { ...this.#parsed.data, scenarios: this.fileScenarios } : this.#parsed.data;
  });
  readonly planned = $derived(this.config ? plannedCount(this.config) : 0);
  readonly needsConfirm = $derived(this.planned > CONFIRM_PLANS_OVER);
  /** Whether the form may start its run now. */
  readonly ready = $derived(this.config !== null && (!this.needsConfirm || this.confirmedLarge));

  get candidateOk(): boolean {
    return parseAgentSpec(this.candidate).ok;
  }

  /** Adds the picker's agent, once. */
  add(): void {
    if (this.candidateOk && !this.agents.includes(this.candidate)) this.agents = [...this.agents, this.candidate];
  }

  remove(index: number): void {
    this.agents = this.agents.filter((_, i) => i !== index);
  }

  /** Fills the form from a share link's setup; a link sets up generated scenarios (it cannot carry a file). */
  apply(read: TournamentSetup): void {
    this.scenarioSource = 'generated';
    if (read.agents) this.agents = read.agents;
    if (read.scenariosPerPair !== undefined) this.scenariosPerPair = read.scenariosPerPair;
    if (read.preset) this.preset = read.preset;
    if (read.seed !== undefined) this.seed = read.seed;
    if (read.selfPlay !== undefined) this.selfPlay = read.selfPlay;
    if (read.deadline?.kind === 'fixed') [this.deadlineKind, this.fixedTurns] = ['fixed', read.deadline.turns];
    if (read.deadline?.kind === 'uncertain') [this.deadlineKind, this.minTurns, this.maxTurns] = ['uncertain', read.deadline.min, read.deadline.max];
    if (read.firstMover) this.firstMover = read.firstMover;
    if (read.name !== undefined) this.name = read.name;
    if (read.moveInterface) this.moveInterface = read.moveInterface;
    if (read.temperature !== undefined) this.temperature = read.temperature;
  }

  /** The form as a share link carries it (what is valid of it; a link never carries a file). */
  get setup(): TournamentSetup {
    const deadline = this.errors.deadline === null ? this.#deadline : null;
    return {
      agents: this.agents,
      ...(this.scenariosPerPair !== null && { scenariosPerPair: this.scenariosPerPair }),
      preset: this.preset,
      ...(this.seed !== null && { seed: this.seed }),
      selfPlay: this.selfPlay,
      ...(deadline && { deadline: deadline as Deadline }),
      firstMover: this.firstMover,
      ...(this.name.trim() && { name: this.name.trim() }),
      ...modelSetupOf(this.moveInterface, this.temperature),
    };
  }

  /** The run's name: the one typed, or one that says what it plays. */
  runName(): string {
    const typed = this.name.trim();
    if (typed) return typed;
    const status = this.scenarioFile.status;
    const scenarios =
      this.fileScenarios && status.kind === 'read'
        ? `${this.fileScenarios.length} scenarios from ${status.name.slice(0, 120)}`
        : `${this.scenariosPerPair} ${this.preset} scenarios`;
    return `${this.agents.length} agents × ${scenarios}`;
  }
}
