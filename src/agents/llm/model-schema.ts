import { z } from 'zod';

/**
 * The highest price a model may name in any game, in dollars. The protocols' own ceilings are a
 * hundred list prices, a figure of each scenario, and the schema a grammar compiles is one per
 * game; this bound keeps every price the schema lets through a finite number of a few digits
 * (a grammar's number has no end of digits otherwise, and 400 of them read as Infinity), far
 * above any ceiling Parley's catalogues and presets come near (docs/models.md, "The move schema").
 */
export const MAX_MODEL_PRICE = 1_000_000_000;

/** A price a model writes: from the protocol's least price to MAX_MODEL_PRICE, the bounds as JSON Schema's minimum and maximum. */
export const modelPrice = (min: number): z.ZodNumber => z.number().min(min).max(MAX_MODEL_PRICE);

/**
 * Text that says something: a character other than a space, and no `"`, `\` or control
 * character, which keeps the pattern's meaning the same where it is read against the decoded
 * string (JSON Schema, OpenAI) and where it is read against the raw JSON text (xgrammar 0.1.27,
 * WebLLM's). A `minLength` would not do: xgrammar's rule for it admits raw tabs, which no JSON
 * parser reads, and no escape. The message it holds is one line without double quotes.
 */
export const SAYS_SOMETHING = /^ *[^ "\\\x00-\x1f][^"\\\x00-\x1f]*$/;

/** Text under SAYS_SOMETHING, keeping the schema's other checks (its length). */
export const saysSomething = (text: z.ZodString): z.ZodString => text.regex(SAYS_SOMETHING);

/**
 * A value of a model's schema as the core reads it: a field that may be null is a field that may
 * be absent (strict mode lists every field as required, an absent one as null). With Same or
 * Fits it ties a model's schema to the core type it stands for.
 */
export type NullAsAbsent<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as null extends T[K] ? never : K]: NullAsAbsent<T[K]> } & {
        [K in keyof T as null extends T[K] ? K : never]?: NullAsAbsent<Exclude<T[K], null>>;
      }
    : T;

/** Whether every value of A is a value of B: a model's schema may ask for less freedom than the core allows, never more. */
export type Fits<A, B> = [A] extends [B] ? true : false;

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * A zod schema as the JSON Schema a model is given, the same for every backend: without the
 * `$schema` tag, which some providers refuse inside a request, and without string lengths.
 * A `maxLength` costs a grammar one state per character: with Qwen3's vocabulary WebLLM's
 * xgrammar took 8–14 s to compile the move with the message's 600 (about 0.1 s without), and
 * vLLM's and llama.cpp's grammars pay the same way. The decoder holds the limit instead: a
 * longer message is cut to it (finishMove), so nothing the grammar lets through is refused for
 * its length. The zod schema keeps the limit, for every other reader.
 *
 * A nullable primitive is written `type: [T, "null"]`, as OpenAI's strict mode documents it and
 * Gemini's `nullable` reads it. The schemas given to it are written for OpenAI's strict mode
 * (every field required, an optional one nullable; test/agents/llm/strict-schema.ts checks).
 */
export function modelJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    override: ({ jsonSchema }) => {
      if (jsonSchema.type === 'string') delete jsonSchema.maxLength;
      const options = jsonSchema.anyOf;
      if (options?.length !== 2) return;
      const [value, nothing] = options as [Record<string, unknown>, Record<string, unknown>];
      if (nothing.type !== 'null' || Object.keys(nothing).length !== 1 || typeof value.type !== 'string' || !PRIMITIVES.has(value.type)) return;
      const { anyOf: _, ...outer } = jsonSchema;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      Object.assign(jsonSchema, { ...value, type: [value.type, 'null'], ...outer });
    },
  }) as Record<string, unknown>;
  const { $schema: _, ...rest } = json;
  return rest;
}

/** Keywords that bound a value rather than shape it. */
const VALUE_BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern']);

/**
 * A model's JSON Schema without its value bounds, for a provider whose strict decoding refuses
 * them (Anthropic's strict tools and JSON outputs answer 400 to a `minimum`): the shape stays
 * constrained, and the decoder and the protocol judge the values, as they do for every backend.
 */
export function withoutValueBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutValueBounds);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(VALUE_BOUNDS.has(key) && typeof value !== 'object'))
      .map(([key, value]) => [key, withoutValueBounds(value)]),
  );
}
