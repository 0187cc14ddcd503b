/**
 * Share links: the Arena's and the Tournament page's setup written into the hash's query
 * (`#/arena?you=buyer&seller=linear&preset=standard&seed=3&turns=16-24&limit=19&first=seller`), so
 * every student who opens the link gets the same scenarios. Each field is read on its own through
 * zod: a malformed or unknown one is left out and named in `ignored`, never an error. Opening a link
 * only fills the form; nothing starts until the user presses Play or Run.
 */
import { z } from 'zod';
import { CATALOG } from '../games/bilateral/catalog';
import { MAX_OFFER_LIST_MULTIPLE } from '../games/bilateral/protocol';
import { createRng, deriveSeed, hashString } from '../engine/rng';
import {
  DEFAULT_DEADLINE,
  DeadlineSchema,
  FirstMoverSchema,
  PresetSchema,
  RoleSchema,
  generateScenarios,
  makeScenario,
  type Deadline,
  type Scenario,
} from '../games/bilateral/scenario';
import { HUMAN_SPEC } from '../agents/specs';
import { parseAgentSpec } from '../games/bilateral/specs';
import { DEFAULT_LLM_SETTINGS, LlmSettingsSchema, MoveInterfaceSchema, temperatureProblem, type MoveInterface } from '../agents/llm/settings';
import { LESSON_IDS, type ArenaSetup, type ModelSetup, type ScenarioSource, type TournamentSetup } from './lessons';
import { TOURNAMENT_LIMITS, type Bounds } from './state/limits';

export { lessonHref, writeArenaSetup, writeTournamentSetup } from './share-link-write';
export type { ArenaSetup, ModelSetup, ScenarioSource, TournamentSetup } from './lessons';

/** A link read: the setup it carries and, in words, every field that was left out and why. */
export interface ReadSetup<T> {
  setup: T;
  ignored: string[];
}

// Every limit is the schemas' own (state/limits.ts), so a form's link opens the form it was written from.
const { agents: AGENTS, agentSpec: AGENT_SPEC, scenariosPerPair: PER_PAIR, seed: SEED, turns: TURNS, name: NAME } = TOURNAMENT_LIMITS;

const whole = ({ min, max }: Bounds) =>
  z
    .string()
    .regex(/^\d{1,10}$/, 'not a whole number')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `below ${min}`)
        .max(max, `above ${max.toLocaleString('en-US')}`),
    );
const dollars = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, 'not an amount in dollars')
  .transform(Number);
const agentText = z
  .string()
  .min(1)
  .max(AGENT_SPEC.max, 'too long')
  .refine((text) => text !== HUMAN_SPEC && parseAgentSpec(text).ok, 'not an agent Parley knows');
const turnsText = z
  .string()
  .regex(/^\d{1,10}(-\d{1,10})?$/, 'not a turn limit (20) or range (16-24)')
  .transform((text): unknown => {
    const [low, high] = text.split('-').map(Number);
    return high === undefined ? { kind: 'fixed', turns: low } : { kind: 'uncertain', min: low, max: high };
  })
  .pipe(DeadlineSchema);
const lessonText = z.enum(LESSON_IDS, 'no such lesson');
const FIELDS = {
  lesson: lessonText,
  you: z.enum(['none', 'buyer', 'seller', 'both'], 'not buyer, seller, both or none'),
  buyer: agentText,
  seller: agentText,
  agent: agentText,
  preset: PresetSchema,
  seed: whole(SEED),
  item: z.enum(CATALOG.map((i) => i.id) as [string, ...string[]], 'not an item of the catalog'),
  value: dollars,
  cost: dollars,
  turns: turnsText,
  limit: whole(TURNS),
  first: RoleSchema,
  mover: FirstMoverSchema,
  per: whole(PER_PAIR),
  self: z.enum(['0', '1'], 'not 0 or 1').transform((t) => t === '1'),
  name: z.string().max(NAME.max, `longer than ${NAME.max} characters`),
  moves: MoveInterfaceSchema,
  temp: z
    .string()
    .regex(/^\d{1,2}(\.\d{1,3})?$/, 'not a temperature')
    .transform(Number)
    .pipe(LlmSettingsSchema.shape.temperature),
} as const;
type Field = keyof typeof FIELDS;
type Value<F extends Field> = z.output<(typeof FIELDS)[F]>;

const ARENA_FIELDS = ['lesson', 'you', 'buyer', 'seller', 'preset', 'seed', 'item', 'value', 'cost', 'turns', 'limit', 'first', 'moves', 'temp'] as const;
const TOURNAMENT_FIELDS = ['lesson', 'agent', 'per', 'preset', 'seed', 'self', 'turns', 'mover', 'name', 'moves', 'temp'] as const;

const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** Reads each field of `allowed` through its schema; anything else in the query is named and left out. */
class QueryReader {
  readonly ignored: string[] = [];
  private readonly params: URLSearchParams;

  constructor(search: string, allowed: readonly Field[]) {
    this.params = new URLSearchParams(search);
    const unknown = [...new Set(this.params.keys())].filter((key) => !(allowed as readonly string[]).includes(key));
    for (const key of unknown) this.ignored.push(`“${shown(key)}” (not a setting of this page)`);
  }

  one<F extends Field>(field: F): Value<F> | undefined {
    const text = this.params.get(field);
    return text === null ? undefined : this.read(field, text);
  }

  all<F extends Field>(field: F): Value<F>[] {
    return this.params.getAll(field).flatMap((text) => {
      const value = this.read(field, text);
      return value === undefined ? [] : [value];
    });
  }

  has(field: Field): boolean {
    return this.params.has(field);
  }

  note(text: string): void {
    this.ignored.push(text);
  }

  private read<F extends Field>(field: F, text: string): Value<F> | undefined {
    const parsed = FIELDS[field].safeParse(text);
    if (parsed.success) return parsed.data as Value<F>;
    this.ignored.push(`${field}=“${shown(text)}” (${parsed.error.issues[0]?.message ?? 'malformed'})`);
    return undefined;
  }
}

/** A hand-written scenario's hidden limit, drawn from its id: the same inputs give the same limit. */
export const drawnForId = (scenarioId: string, min: number, max: number): number =>
  min + createRng(deriveSeed(hashString(scenarioId), 'turns')).int(max - min + 1);

/** The scenario a source describes, as the Arena's scenario picker makes it. */
export function scenarioOf(source: ScenarioSource): Scenario | null {
  const { deadline, firstMover } = source;
  const picked =
    deadline.kind === 'uncertain' && source.limit !== undefined && source.limit >= deadline.min && source.limit <= deadline.max ? source.limit : null;
  if ('preset' in source) {
    const drawn = generateScenarios({ preset: source.preset, seed: source.seed, count: 1, deadline, firstMover })[0];
    return drawn && picked !== null ? { ...drawn, turnLimit: picked } : (drawn ?? null);
  }
  const item = CATALOG.find((i) => i.id === source.itemId);
  if (!item) return null;
  const id = `custom-${item.id}-${source.value}-${source.cost}`;
  if (deadline.kind === 'fixed') return makeScenario(id, item, source.value, source.cost, { turnLimit: deadline.turns, firstMover });
  const turnRange = { min: deadline.min, max: deadline.max };
  return makeScenario(id, item, source.value, source.cost, { turnLimit: picked ?? drawnForId(id, deadline.min, deadline.max), turnRange, firstMover });
}

/** Where a scenario on the Arena's form came from, read back from its id. */
export function sourceOf(scenario: Scenario): ScenarioSource {
  const drawn = scenario.preset ? new RegExp(`^${scenario.preset}-(\\d+)-0$`).exec(scenario.id) : null;
  const deadline: Deadline = scenario.turnRange
    ? { kind: 'uncertain', min: scenario.turnRange.min, max: scenario.turnRange.max }
    : { kind: 'fixed', turns: scenario.turnLimit };
  const timing = { deadline, firstMover: scenario.firstMover, ...(scenario.turnRange ? { limit: scenario.turnLimit } : {}) };
  if (drawn && scenario.preset) return { preset: scenario.preset, seed: Number(drawn[1]), ...timing };
  return { itemId: scenario.item.id, value: scenario.buyerValue, cost: scenario.sellerCost, ...timing };
}

/** The model settings of a form, for its link: only where they differ from the defaults (and are valid). */
export const modelSetupOf = (moveInterface: MoveInterface, temperature: number): ModelSetup => ({
  ...(moveInterface !== DEFAULT_LLM_SETTINGS.interface ? { moveInterface } : {}),
  ...(temperature !== DEFAULT_LLM_SETTINGS.temperature && temperatureProblem(temperature) === null ? { temperature } : {}),
});

function readModels(q: QueryReader, setup: ModelSetup): void {
  const moves = q.one('moves');
  if (moves) setup.moveInterface = moves;
  const temp = q.one('temp');
  if (temp !== undefined) setup.temperature = temp;
}

export function readArenaSetup(search: string): ReadSetup<ArenaSetup> {
  const q = new QueryReader(search, ARENA_FIELDS);
  const setup: ArenaSetup = {};
  const lesson = q.one('lesson');
  if (lesson) setup.lesson = lesson;
  const you = q.one('you');
  if (you) setup.you = you;
  const buyer = q.one('buyer');
  if (buyer) setup.buyer = buyer;
  const seller = q.one('seller');
  if (seller) setup.seller = seller;

  const scenarioFields = ['preset', 'seed', 'item', 'value', 'cost', 'turns', 'limit', 'first'] as const;
  if (scenarioFields.some((f) => q.has(f))) {
    const preset = q.one('preset');
    const seed = q.one('seed');
    const itemId = q.one('item');
    const value = q.one('value');
    const cost = q.one('cost');
    const deadline = q.one('turns') ?? DEFAULT_DEADLINE;
    const limit = q.one('limit');
    const firstMover = q.one('first') ?? 'seller';
    const timing = { deadline, firstMover, ...(limit !== undefined ? { limit } : {}) };
    let source: ScenarioSource = { preset: preset ?? 'standard', seed: seed ?? 1, ...timing };
    if (itemId !== undefined || q.has('value') || q.has('cost')) {
      const item = CATALOG.find((i) => i.id === itemId);
      const ceiling = item ? MAX_OFFER_LIST_MULTIPLE * item.listPrice : 0;
      if (item && value !== undefined && cost !== undefined && value <= ceiling && cost <= ceiling) source = { itemId: item.id, value, cost, ...timing };
      else q.note(`the item, value and cost (a scenario of your own needs all three, each at most ${MAX_OFFER_LIST_MULTIPLE} times the list price)`);
    }
    if (limit !== undefined && (deadline.kind === 'fixed' || limit < deadline.min || limit > deadline.max))
      q.note(`limit=“${limit}” (not within an uncertain deadline's range)`);
    setup.scenario = source;
  }
  readModels(q, setup);
  return { setup, ignored: q.ignored };
}

export function readTournamentSetup(search: string): ReadSetup<TournamentSetup> {
  const q = new QueryReader(search, TOURNAMENT_FIELDS);
  const setup: TournamentSetup = {};
  const lesson = q.one('lesson');
  if (lesson) setup.lesson = lesson;
  if (q.has('agent')) {
    const agents = [...new Set(q.all('agent'))];
    if (agents.length > AGENTS.max) q.note(`agents after the first ${AGENTS.max}`);
    if (agents.length > 0) setup.agents = agents.slice(0, AGENTS.max);
  }
  const per = q.one('per');
  if (per !== undefined) setup.scenariosPerPair = per;
  const preset = q.one('preset');
  if (preset) setup.preset = preset;
  const seed = q.one('seed');
  if (seed !== undefined) setup.seed = seed;
  const self = q.one('self');
  if (self !== undefined) setup.selfPlay = self;
  const deadline = q.one('turns');
  if (deadline) setup.deadline = deadline;
  const mover = q.one('mover');
  if (mover) setup.firstMover = mover;
  const name = q.one('name');
  if (name) setup.name = name;
  readModels(q, setup);
  return { setup, ignored: q.ignored };
}

/** The full address of a page's hash on this site, for a "Copy link" button. */
export const absoluteLink = (hash: string, at: Pick<Location, 'href'> = location): string => `${at.href.split('#')[0]}${hash}`;
