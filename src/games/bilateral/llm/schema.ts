/**
 * What the model is asked to produce, derived from the core's MoveSchema so there is one source:
 * a JSON Schema for constrained decoding (`response_format`) and four tools for providers that
 * prefer tool calls. Tool calls are turned back into a Move here, text by the decoder.
 *
 * Each schema is valid under OpenAI's strict mode (every field required, an optional one as null)
 * and lets through no answer the decoder refuses: a price from the protocol's least to
 * MAX_MODEL_PRICE, and a message that says something wherever the message is all the move holds
 * (docs/models.md, "The move schema").
 */
import { z } from 'zod';
import { ActionSchema, MoveSchema, type ActionType, type Move } from '../moves';
import { MAX_MESSAGE_LENGTH } from '../../../engine/message';
import { MIN_OFFER_PRICE } from '../protocol';
import type { ToolSpec } from '../../../agents/backends/types';
import { parseLoose } from '../../../agents/llm/json-text';
import { modelJsonSchema, modelPrice, saysSomething, type Fits, type NullAsAbsent } from '../../../agents/llm/model-schema';
import { err } from '../../../engine/result';
import { moveProblem } from './problems';
import { fieldsOf, first, isPlainObject, kindOf, readMessage, readPrice, show } from '../../../agents/llm/fields';
import { finishMove, offerAt, PRICE_KEYS, typedAction, type Decoded } from './normalize';
import type { Same } from '../../../engine/types';

/** The message's limit as the model reads it: its JSON Schema leaves the length out (modelJsonSchema). */
const LENGTH_NOTE = `at most ${MAX_MESSAGE_LENGTH} characters`;
const text = MoveSchema.shape.message.unwrap();
/** A message beside an action: it may be null, or blank (the decoder then leaves it out). */
const optionalMessage = text.nullable().describe(`What you say to the other side (${LENGTH_NOTE}). A price named here is not an offer.`);
/** A message that may be all the move holds: one line that says something, without double quotes. */
const spokenMessage = saysSomething(text);
const priceField = modelPrice(MIN_OFFER_PRICE).describe('Your price in dollars.');

const [offerAction, ...otherActions] = ActionSchema.options;
/** The core's actions, the offer's price bounded. */
const MODEL_ACTIONS = [offerAction.extend({ price: priceField }), ...otherActions] as const;

/**
 * The move as the model sees it: a message always (strict mode has no way to require "a message
 * or an action", so the message is the part every move has), and one action or null. The action
 * is a plain union (`anyOf`) rather than the core's discriminated union, which becomes `oneOf`:
 * OpenAI's strict mode and Anthropic refuse `oneOf`.
 */
export const MODEL_MOVE_SCHEMA = z.object({
  message: spokenMessage.describe(`What you say to the other side (${LENGTH_NOTE}, one line, no double quotes). A price named here is not an offer.`),
  action: z.union([...MODEL_ACTIONS, z.null()]).describe('At most one binding action, or null to only talk.'),
});

// Every value of the model's schema is a move of the core's.
const fitsMove: Fits<NullAsAbsent<z.infer<typeof MODEL_MOVE_SCHEMA>>, Move> = true;
// ...and the model can make every action.
const everyAction: Same<NonNullable<z.infer<typeof MODEL_MOVE_SCHEMA>['action']>, NonNullable<Move['action']>> = true;
void fitsMove;
void everyAction;

const MOVE_JSON_SCHEMA = JSON.stringify(modelJsonSchema(MODEL_MOVE_SCHEMA));

/** The move's JSON Schema for `responseFormat`; a fresh copy each call, free to adapt. */
export const moveJsonSchema = (): Record<string, unknown> => JSON.parse(MOVE_JSON_SCHEMA) as Record<string, unknown>;

export const MOVE_SCHEMA_NAME = 'negotiation_move';

const decisions = ['accept', 'reject'] as const satisfies readonly ActionType[];

/** One zod schema per tool; the tools' JSON Schemas are made from these. */
export const TOOL_SCHEMAS = {
  make_offer: z.object({ price: priceField, message: optionalMessage }),
  respond_to_offer: z.object({
    decision: z.enum(decisions).describe("accept closes the deal at the other side's price; reject turns it down"),
    message: optionalMessage,
  }),
  send_message: z.object({ message: spokenMessage.describe(`What you say to the other side (${LENGTH_NOTE}, one line, no double quotes).`) }),
  walk_away: z.object({ message: optionalMessage }),
} as const;

export type MoveToolName = keyof typeof TOOL_SCHEMAS;
export const MOVE_TOOL_NAMES = Object.keys(TOOL_SCHEMAS) as MoveToolName[];

const TOOL_DESCRIPTIONS: Record<MoveToolName, string> = {
  make_offer: 'Make a binding offer at a price. It replaces your previous offer; the other side may accept it.',
  respond_to_offer: "Accept or reject the other side's pending offer.",
  send_message: 'Only talk this turn, with no binding action; a pending offer stays on the table.',
  walk_away: 'End the negotiation with no deal.',
};

const MOVE_TOOLS_JSON = JSON.stringify(
  MOVE_TOOL_NAMES.map((name): ToolSpec => ({ name, description: TOOL_DESCRIPTIONS[name], parameters: modelJsonSchema(TOOL_SCHEMAS[name]) })),
);

/** The four move tools, one call per turn; a fresh copy each time. */
export const moveTools = (): ToolSpec[] => JSON.parse(MOVE_TOOLS_JSON) as ToolSpec[];
export const MOVE_TOOLS: readonly ToolSpec[] = deepFreeze(moveTools());

function deepFreeze<T>(x: T): T {
  if (typeof x === 'object' && x !== null) {
    for (const v of Object.values(x)) deepFreeze(v);
    Object.freeze(x);
  }
  return x;
}

/** A tool name as the provider spells it: `functions.make_offer`, `Make-Offer`. */
const toolKey = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/^functions?[.:]/, '')
    .replace(/[\s\-.]+/g, '_');

/** Tool arguments beyond this are cut before parsing. */
const MAX_ARGS = 20_000;

/**
 * The move one tool call stands for; never throws. `argsJson` is the arguments as the provider
 * sent them: JSON text, or an object already parsed (Ollama, Anthropic's `input`). A tool named
 * after an action ("accept", "offer") is taken as that action.
 */
export function toolCallToMove(name: unknown, argsJson: unknown): Decoded {
  if (typeof name !== 'string' || name.trim() === '') return err(moveProblem('tool-without-name'));
  let value: unknown = argsJson;
  if (argsJson === undefined || argsJson === null) value = {};
  else if (typeof argsJson === 'string') {
    if (argsJson.trim() === '') value = {};
    else {
      const parsed = parseLoose(argsJson.length > MAX_ARGS ? argsJson.slice(0, MAX_ARGS) : argsJson);
      if (!parsed.ok) return err(moveProblem('tool-arguments-not-json', { tool: show(name), error: parsed.error }));
      value = parsed.value;
    }
  }
  if (!isPlainObject(value)) return err(moveProblem('tool-arguments-not-object', { tool: show(name), value: show(value) }));
  const f = fieldsOf(value);
  const said = readMessage(f);
  if (!said.ok) return said;
  const key = toolKey(name);
  switch (key as MoveToolName) {
    case 'make_offer': {
      const price = readPrice(f, PRICE_KEYS);
      if (price === undefined || price[1] === null) return err(moveProblem('tool-needs-price', { tool: key }));
      const offered = offerAt(price[1]);
      return offered.ok ? finishMove(said.value, offered.value) : offered;
    }
    case 'respond_to_offer': {
      const decision = first(f, ['decision', 'response', 'action', 'type', 'answer'])?.[1];
      const kind = kindOf(decision);
      if (kind !== 'accept' && kind !== 'reject') return err(moveProblem('tool-needs-decision', { tool: key, value: show(decision) }));
      return finishMove(said.value, { type: kind });
    }
    case 'send_message':
      if (said.value === undefined) return err(moveProblem('tool-needs-message', { tool: key }));
      return finishMove(said.value, undefined);
    case 'walk_away':
      return finishMove(said.value, { type: 'walk_away' });
    default: {
      const kind = kindOf(key);
      if (kind === null) return err(moveProblem('unknown-tool', { tool: show(name), tools: MOVE_TOOL_NAMES }));
      const action = typedAction(key, f);
      return action.ok ? finishMove(said.value, action.value) : action;
    }
  }
}
