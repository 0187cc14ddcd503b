import { z } from 'zod';

/**
 * A zod schema as the JSON Schema a model is given, the same for every backend: without the
 * `$schema` tag, which some providers refuse inside a request, and without string lengths.
 * A `maxLength` costs a grammar one state per character: with Qwen3's vocabulary WebLLM's
 * xgrammar took 8–14 s to compile the move with the message's 600 (about 0.1 s without), and
 * vLLM's and llama.cpp's grammars pay the same way. The decoder holds the limit instead: a
 * longer message is cut to it (finishMove), so nothing the grammar lets through is refused for
 * its length. The zod schema keeps the limit, for every other reader.
 */
export function modelJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    override: ({ jsonSchema }) => {
      if (jsonSchema.type === 'string') delete jsonSchema.maxLength;
    },
  }) as Record<string, unknown>;
  const { $schema: _, ...rest } = json;
  return rest;
}
