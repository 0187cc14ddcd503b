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

/**
 * A zod schema as the JSON Schema a model is given, the same for every backend: without the
 * `$schema` tag, which some providers refuse inside a request, and without string lengths.
 * A `maxLength` costs a grammar one state per character: with Qwen3's vocabulary WebLLM's
 * xgrammar took 8–14 s to compile the move with the message's 600 (about 0.1 s without), and
 * vLLM's and llama.cpp's grammars pay the same way. The decoder holds the limit instead: a
 * longer message is cut to it (finishMove), so nothing the grammar lets through is refused for
 * its length. The zod schema keeps the limit, for every other reader.
 *
 * A nullable field is zod's `anyOf: [T, {"type": "null"}]`, which OpenAI's strict mode takes as
 * it takes `type: [T, "null"]`; unlike that form it keeps `type` one string everywhere, which a
 * dataset loader reading a file's tools as columns needs (pyarrow cannot read a column that is a
 * string in one row and a list in another; test/training/sft-qwen3.test.ts). The schemas given to it are written for OpenAI's strict mode
 * (every field required, an optional one nullable; test/agents/llm/strict-schema.ts checks).
 */
export function modelJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    override: ({ jsonSchema }) => {
      if (jsonSchema.type === 'string') delete jsonSchema.maxLength;
    },
  }) as Record<string, unknown>;
  const { $schema: _, ...rest } = json;
  return nullAsAnyOf(rest) as Record<string, unknown>;
}

/** zod writes a nullable primitive as `type: [T, "null"]`: written as `anyOf` instead, as its other nullables are. */
function nullAsAnyOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullAsAnyOf);
  if (typeof node !== 'object' || node === null) return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'type' || k === 'enum' || k === 'required' ? v : nullAsAnyOf(v)]));
  const type: unknown = out.type;
  if (!Array.isArray(type) || type.length !== 2 || !type.includes('null')) return out;
  const { type: _, description, ...value } = out;
  return { anyOf: [{ type: type.find((t) => t !== 'null'), ...value }, { type: 'null' }], ...(description !== undefined && { description }) };
}
