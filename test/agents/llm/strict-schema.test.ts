/**
 * Every schema a model is given (each game's move as `responseFormat`, and each tool's parameters)
 * is one OpenAI's strict mode takes, by a checker written from its documented rules
 * (strict-schema.ts); the checker is shown to refuse each rule's breach first.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_MODEL_PRICE, modelJsonSchema } from '../../../src/agents/llm/model-schema';
import { toAnthropicSchema } from '../../../src/agents/backends/json-schema';
import { moveJsonSchema, moveTools } from '../../../src/games/bilateral/llm/schema';
import { marketJsonSchema, marketTools } from '../../../src/games/market/llm/schema';
import { MoveSchema } from '../../../src/games/bilateral/moves';
import { strictModeProblems } from './strict-schema';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

/** Every schema Parley hands a model, by name. */
const SCHEMAS: [string, unknown][] = [
  ['bilateral move', moveJsonSchema()],
  ...moveTools().map((t): [string, unknown] => [`bilateral tool ${t.name}`, t.parameters]),
  ['market seller', marketJsonSchema('seller')],
  ['market buyer', marketJsonSchema('buyer')],
  ...[...marketTools('seller'), ...marketTools('buyer')].map((t): [string, unknown] => [`market tool ${t.name}`, t.parameters]),
];

describe('the strict-mode checker refuses each documented breach', () => {
  it('takes a schema that keeps every rule', () => {
    expect(
      strictModeProblems(object({ a: { type: ['string', 'null'] }, b: { anyOf: [object({ c: { type: 'number', minimum: 0 } }), { type: 'null' }] } })),
    ).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    ['a root that is no object', { type: 'string' }, /root must be an object/],
    ['a root anyOf', { anyOf: [object({}), object({ a: { type: 'string' } })] }, /root must not be anyOf/],
    ['a property left out of required', { ...object({ a: { type: 'string' }, b: { type: 'string' } }), required: ['a'] }, /b not in required/],
    ['an object open to more properties', object({ inner: { type: 'object', properties: {}, required: [] } }), /\$\.inner: additionalProperties must be false/],
    ['oneOf', object({ a: { oneOf: [{ type: 'string' }, { type: 'number' }] } }), /keyword oneOf/],
    ['allOf', object({ a: { allOf: [{ type: 'string' }] } }), /keyword allOf/],
    ['a default', object({ a: { type: 'string', default: 'x' } }), /keyword default/],
    ['minLength', object({ a: { type: 'string', minLength: 1 } }), /keyword minLength/],
    ['a number bound on a string', object({ a: { type: 'string', minimum: 1 } }), /keyword minimum/],
    ['an unknown format', object({ a: { type: 'string', format: 'money' } }), /format money/],
    ['an unknown type', object({ a: { type: 'decimal' } }), /unsupported type "decimal"/],
    ['eleven levels of objects', Array.from({ length: 11 }).reduce<unknown>((inner) => object({ a: inner }), { type: 'string' }), /nested more than 10/],
  ])('refuses %s', (_, schema, problem) => {
    expect(strictModeProblems(schema).join('\n')).toMatch(problem);
  });

  it('refuses the move schema as it was, with the message and action left out of required', () => {
    const optional = modelJsonSchema(MoveSchema);
    expect(strictModeProblems(optional).join('\n')).toMatch(/message, action not in required/);
  });
});

describe('every schema a model is given keeps strict mode’s rules', () => {
  it.each(SCHEMAS)('%s', (_, schema) => {
    expect(strictModeProblems(schema)).toEqual([]);
  });

  it('each price is bounded, from a cent to MAX_MODEL_PRICE, with the keywords strict mode lists', () => {
    const prices = SCHEMAS.flatMap(([name, schema]) => pricesIn(schema).map((p) => [name, p] as const));
    expect(prices.map(([name]) => name)).toEqual([
      'bilateral move',
      'bilateral tool make_offer',
      'market seller',
      'market buyer',
      'market tool offer_product',
      'market tool counter_offer',
    ]);
    for (const [, price] of prices) expect(price).toMatchObject({ type: 'number', minimum: 0.01, maximum: MAX_MODEL_PRICE });
  });
});

describe('a schema in the subset Anthropic takes, whose strict decoding refuses value bounds', () => {
  it('keeps the shape and moves every bound it refuses into the description, wherever it is', () => {
    const sent = SCHEMAS.map(([, s]) => toAnthropicSchema(s));
    expect(JSON.stringify(sent)).not.toMatch(/"(minimum|maximum|pattern|minLength|maxLength|multipleOf)"/);
    for (const schema of sent) expect(strictModeProblems(schema)).toEqual([]);
  });

  it('keeps a property whose name is a keyword', () => {
    const schema = modelJsonSchema(z.object({ minimum: z.number().min(1), pattern: z.string() }));
    expect(toAnthropicSchema(schema)).toEqual({
      type: 'object',
      properties: { minimum: { type: 'number', description: '{minimum: 1}' }, pattern: { type: 'string' } },
      required: ['minimum', 'pattern'],
      additionalProperties: false,
    });
  });
});

/** The schemas of every property named price, anywhere in a schema. */
function pricesIn(schema: unknown): unknown[] {
  if (Array.isArray(schema)) return schema.flatMap(pricesIn);
  if (typeof schema !== 'object' || schema === null) return [];
  const own = (schema as { properties?: { price?: unknown } }).properties?.price;
  return [...(own === undefined ? [] : [own]), ...Object.values(schema).flatMap(pricesIn)];
}
