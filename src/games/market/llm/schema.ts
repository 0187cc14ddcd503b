/**
 * What a model seat of the market is asked to produce, derived from the core's move schemas (the
 * four-part seller message; the buyer's answer): a JSON Schema for constrained decoding and tools
 * for providers that prefer tool calls. And the way back: a model's answer, as text or as a tool
 * call, to a move, or a reason it is not one. Never throws.
 */
import { z } from 'zod';
import { BuyerMoveSchema, ResponseSchema, SellerMoveSchema, type BuyerMove, type MarketRole, type SellerMove } from '../moves';
import { MIN_PRICE } from '../protocol';
import type { ToolSpec } from '../../../agents/backends/types';
import { problems, type CodeOf, type DataArgs, type ProblemOf } from '../../../engine/errors';
import { err, ok, type Result } from '../../../engine/result';
import { withThinking, type Decoding } from '../../../agents/llm/answer';
import { clip, eachBalancedObject, fencedBlocks, MAX_SCAN, parseLoose, splitThinking } from '../../../agents/llm/json-text';
import { fieldsOf, first, isPlainObject, kindOf, parsePrice, show, type Fields } from '../../../agents/llm/fields';
import { ANSWER_PROBLEMS } from '../../../agents/llm/problems';
import { modelJsonSchema, modelPrice, saysSomething, type NullAsAbsent } from '../../../agents/llm/model-schema';
import type { Same } from '../../../engine/types';

/**
 * Each schema here is valid under OpenAI's strict mode (every field required, an optional one as
 * null) and lets through no answer the decoder refuses: ids that say something, prices from the
 * protocol's least to MAX_MODEL_PRICE (docs/models.md, "The move schema").
 */
const message = SellerMoveSchema.shape.message;
const price = (what: string) => modelPrice(MIN_PRICE).describe(what);

export const MODEL_SELLER_SCHEMA = z.object({
  buyer: saysSomething(SellerMoveSchema.shape.buyer).describe('The id of the buyer you make the offer to, e.g. "b3": one who has not bought yet.'),
  product: saysSomething(SellerMoveSchema.shape.product).describe('The id of the product you offer, e.g. "p2": one still in stock.'),
  price: price("Your price in dollars, not below the product's cost."),
  message: message.describe('Your pitch to this buyer (it may be empty). Only the price binds.'),
});

const [acceptResponse, rejectResponse, counterResponse] = ResponseSchema.options;
const optionalMessage = BuyerMoveSchema.shape.message.unwrap().nullable().describe('What you say to the seller, or null.');

/**
 * The buyer's answer as the model sees it: the response a plain union (`anyOf`), not the core's
 * discriminated union (`oneOf`), which OpenAI's strict mode and Anthropic refuse.
 */
export const MODEL_BUYER_SCHEMA = z.object({
  response: z
    .union([acceptResponse, rejectResponse, counterResponse.extend({ price: price('The lower price you would pay, in dollars.') })])
    .describe('accept buys at the offered price; reject turns it down; counter names a lower price you would pay.'),
  message: optionalMessage,
});

// The model's schemas and the core's must describe the same values (a null message is an absent one).
const sameSeller: Same<NullAsAbsent<z.infer<typeof MODEL_SELLER_SCHEMA>>, SellerMove> = true;
const sameBuyer: Same<NullAsAbsent<z.infer<typeof MODEL_BUYER_SCHEMA>>, BuyerMove> = true;
void sameSeller;
void sameBuyer;

/**
 * The model's JSON Schema, without string lengths (modelJsonSchema): with them WebLLM's grammar
 * took 15–31 s to compile each market format with Qwen3's vocabulary, about 0.06 s without. The
 * decoder holds the limits: a message is cut to its 600 characters, an id over 100 is no id.
 */
const jsonSchemaOf = modelJsonSchema;

export const MARKET_SCHEMA_NAMES: Record<MarketRole, string> = { seller: 'market_offer', buyer: 'market_answer' };
const JSON_SCHEMAS: Record<MarketRole, string> = {
  seller: JSON.stringify(jsonSchemaOf(MODEL_SELLER_SCHEMA)),
  buyer: JSON.stringify(jsonSchemaOf(MODEL_BUYER_SCHEMA)),
};
/** The seat's JSON Schema for `responseFormat`; a fresh copy each call. */
export const marketJsonSchema = (role: MarketRole): Record<string, unknown> => JSON.parse(JSON_SCHEMAS[role]) as Record<string, unknown>;

export const MARKET_TOOL_SCHEMAS = {
  seller: {
    offer_product: MODEL_SELLER_SCHEMA,
  },
  buyer: {
    accept_offer: z.object({ message: optionalMessage }),
    reject_offer: z.object({ message: optionalMessage }),
    counter_offer: z.object({ price: price('The lower price you would pay, in dollars.'), message: optionalMessage }),
  },
} as const;

const TOOL_DESCRIPTIONS: Record<string, string> = {
  offer_product: 'Offer one product to one buyer at a price, with a pitch. Spends one of your turns.',
  accept_offer: 'Buy the product on offer at the offered price.',
  reject_offer: 'Turn the offer down.',
  counter_offer: 'Name a lower price you would pay for the product on offer. It binds you: an offer at or below it you must accept.',
};

const TOOLS_JSON: Record<MarketRole, string> = {
  seller: JSON.stringify(toolSpecs(MARKET_TOOL_SCHEMAS.seller)),
  buyer: JSON.stringify(toolSpecs(MARKET_TOOL_SCHEMAS.buyer)),
};
function toolSpecs(schemas: Record<string, z.ZodType>): ToolSpec[] {
  return Object.entries(schemas).map(([name, schema]) => ({ name, description: TOOL_DESCRIPTIONS[name] as string, parameters: jsonSchemaOf(schema) }));
}
/** The seat's tools, one call per turn; a fresh copy each time. */
export const marketTools = (role: MarketRole): ToolSpec[] => JSON.parse(TOOLS_JSON[role]) as ToolSpec[];

/** Why a model's answer is not a market move, by code (the bilateral decoder's reading problems, and the market's own). */
export const MARKET_ANSWER_PROBLEMS = {
  ...ANSWER_PROBLEMS,
  'offer-not-object': (d: { value: string }) => `the move must be a JSON object, not ${d.value}`,
  'offer-needs-buyer': () => 'the offer needs a "buyer": the id of a buyer, such as "b1"',
  'offer-needs-product': () => 'the offer needs a "product": the id of a product, such as "p1"',
  'offer-needs-price': () => 'the offer needs a "price", a number in dollars',
  'not-an-offer': (d: { value: string }) => `not an offer: ${d.value}`,
  'answer-not-object': (d: { value: string }) => `the answer must be a JSON object, not ${d.value}`,
  'counter-needs-price': () => 'a counter needs a "price", a number in dollars',
  'unknown-response': (d: { value: string }) => `the response must be accept, reject or counter, not ${d.value}`,
  'unclosed-thinking': () => 'the answer ended inside its thinking, with no move after it',
  'no-json-move': () => 'no JSON move in the answer; answer with one JSON object as the format says',
  /** A seat asked to play the other side: a bug in the caller, played as an invalid answer. */
  'wrong-seat': (d: { seat: MarketRole; asked: MarketRole }) => `a ${d.seat} seat was asked to play the ${d.asked}`,
} as const;

export type MarketAnswerProblem = ProblemOf<typeof MARKET_ANSWER_PROBLEMS>;
export const marketAnswerProblem = problems(MARKET_ANSWER_PROBLEMS);
type Codes = typeof MARKET_ANSWER_PROBLEMS;
const fail = <C extends CodeOf<Codes>>(code: C, ...data: DataArgs<Codes, C>) => err(marketAnswerProblem(code, ...data));

export type MarketDecoded = Result<SellerMove | BuyerMove, MarketAnswerProblem>;

const MESSAGE_KEYS = ['message', 'msg', 'pitch', 'say', 'text', 'comment'];
const PRICE_KEYS = ['price', 'amount', 'counter', 'counter_price', 'counter_offer', 'offer_price', 'bid'];
const WRAPPER_KEYS = ['move', 'offer', 'answer', 'output', 'result', 'reply', 'data'];

/** The text under one of `keys`, if any; `field` names it in the problem. */
function readText(f: Fields, keys: readonly string[], field: string): Result<string | undefined, MarketAnswerProblem> {
  const found = first(f, keys);
  if (found === undefined || found[1] === undefined || found[1] === null) return ok(undefined);
  const v = found[1];
  if (typeof v === 'string') return ok(v.trim());
  if (typeof v === 'number') return ok(String(v));
  return fail('field-not-text', { field, value: show(v) });
}

function sellerMoveFrom(value: unknown, depth = 0): MarketDecoded {
  if (!isPlainObject(value)) return fail('offer-not-object', { value: show(value) });
  const f = fieldsOf(value);
  const wrapped = first(f, WRAPPER_KEYS);
  if (wrapped && isPlainObject(wrapped[1]) && depth < 2 && !f.has('buyer')) return sellerMoveFrom(wrapped[1], depth + 1);
  const buyer = readText(f, ['buyer', 'buyer_id', 'to', 'customer'], 'buyer');
  if (!buyer.ok) return buyer;
  const product = readText(f, ['product', 'product_id', 'item'], 'product');
  if (!product.ok) return product;
  const said = readText(f, MESSAGE_KEYS, 'message');
  if (!said.ok) return said;
  if (!buyer.value) return fail('offer-needs-buyer');
  if (!product.value) return fail('offer-needs-product');
  const rawPrice = first(f, PRICE_KEYS)?.[1];
  if (rawPrice === undefined) return fail('offer-needs-price');
  const price = parsePrice(rawPrice);
  if (!price.ok) return price;
  const move = { buyer: buyer.value, product: product.value, price: price.value, message: clip(said.value ?? '', 600) };
  return SellerMoveSchema.safeParse(move).success ? ok(move) : fail('not-an-offer', { value: show(move) });
}

function buyerMoveFrom(value: unknown, depth = 0): MarketDecoded {
  if (typeof value === 'string') return answerOf(value, undefined, new Map());
  if (!isPlainObject(value)) return fail('answer-not-object', { value: show(value) });
  const f = fieldsOf(value);
  const said = readText(f, MESSAGE_KEYS, 'message');
  if (!said.ok) return said;
  const response = first(f, ['response', 'decision', 'action', 'type', 'answer'])?.[1];
  if (isPlainObject(response)) {
    const inner = fieldsOf(response);
    const kind = first(inner, ['type', 'kind', 'decision', 'action', 'name'])?.[1];
    return answerOf(kind, said.value, inner, f);
  }
  if (response === undefined && depth < 2) {
    const wrapped = first(f, ['move', 'output', 'result', 'reply']);
    if (wrapped) return buyerMoveFrom(wrapped[1], depth + 1);
  }
  return answerOf(response, said.value, f);
}

/** An answer from a word (accept, reject, counter and their synonyms) and, for a counter, a price. */
function answerOf(word: unknown, message: string | undefined, own: Fields, outer?: Fields): MarketDecoded {
  const kind = kindOf(word);
  const withMessage = (move: BuyerMove): MarketDecoded => ok(message ? { ...move, message: clip(message, 600) } : move);
  switch (kind) {
    case 'accept':
      return withMessage({ response: { type: 'accept' } });
    case 'reject':
    case 'walk_away':
      return withMessage({ response: { type: 'reject' } });
    case 'offer': {
      const raw = first(own, PRICE_KEYS)?.[1] ?? (outer ? first(outer, PRICE_KEYS)?.[1] : undefined);
      if (raw === undefined) return fail('counter-needs-price');
      const price = parsePrice(raw);
      if (!price.ok) return price;
      return withMessage({ response: { type: 'counter', price: price.value } });
    }
    default:
      return fail('unknown-response', { value: show(word) });
  }
}

const moveFrom = (role: MarketRole, value: unknown): MarketDecoded => (role === 'seller' ? sellerMoveFrom(value) : buyerMoveFrom(value));

/** The move one tool call stands for. */
export function marketToolCallToMove(role: MarketRole, name: unknown, args: unknown): MarketDecoded {
  if (typeof name !== 'string' || name.trim() === '') return fail('tool-without-name');
  let value: unknown = args ?? {};
  if (typeof args === 'string') {
    const parsed = args.trim() === '' ? ok({}) : parseLoose(args.slice(0, 20_000));
    if (!parsed.ok) return fail('tool-arguments-not-json', { tool: show(name), error: parsed.error });
    value = parsed.value;
  }
  if (!isPlainObject(value)) return fail('tool-arguments-not-object', { tool: show(name) });
  if (role === 'seller') return sellerMoveFrom(value);
  const key = name
    .trim()
    .toLowerCase()
    .replace(/^functions?[.:]/, '');
  const f = fieldsOf(value);
  const said = readText(f, MESSAGE_KEYS, 'message');
  if (!said.ok) return said;
  return answerOf(key.replace(/_offer$/, ''), said.value, f);
}

export type MarketDecodeResult = Decoding<SellerMove | BuyerMove, MarketAnswerProblem>;

/**
 * A model's answer to a move: its first tool call, else the answer text as JSON, then its fenced
 * blocks, then the balanced objects in its prose, in that order; the first that makes a move wins.
 */
export function decodeMarketMove(role: MarketRole, text: unknown, toolCalls?: unknown): MarketDecodeResult {
  const raw = clip(typeof text === 'string' ? text : '', 200_000);
  const split = splitThinking(raw);
  const thinking = split.thinking;
  const done = (d: MarketDecoded): MarketDecodeResult => withThinking(d, thinking);
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    const call = toolCalls[0] as { name?: unknown; arguments?: unknown };
    return done(marketToolCallToMove(role, call?.name, call?.arguments));
  }
  if (split.unclosed) return done(fail('unclosed-thinking'));
  const answer = split.answer.slice(0, MAX_SCAN).trim();
  let firstFailure: MarketDecoded | null = null;
  const tryText = (candidate: string): MarketDecoded | null => {
    const parsed = parseLoose(candidate);
    if (!parsed.ok) return null;
    const d = moveFrom(role, parsed.value);
    if (!d.ok) firstFailure ??= d;
    return d.ok ? d : null;
  };
  const whole = tryText(answer);
  if (whole) return done(whole);
  for (const block of fencedBlocks(answer)) {
    const d = tryText(block.trim());
    if (d) return done(d);
  }
  let found: MarketDecoded | null = null;
  eachBalancedObject(answer, (json) => {
    const parsed = parseLoose(json);
    if (!parsed.ok) return false;
    const d = moveFrom(role, parsed.value);
    if (d.ok) {
      found = d;
      return true;
    }
    firstFailure ??= d;
    return 'skip';
  });
  if (found) return done(found);
  return done(firstFailure ?? fail('no-json-move'));
}
