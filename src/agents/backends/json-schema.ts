/**
 * A move's JSON Schema as two providers' strict decoders want it: whether OpenAI's strict mode
 * takes it as it is, and the subset Anthropic's structured outputs accept.
 */
import { isRecord } from './wire';

/** The subschemas of a schema, wherever JSON Schema nests them. */
function children(schema: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  if (isRecord(schema.properties)) out.push(...Object.values(schema.properties));
  if (schema.items !== undefined) out.push(schema.items);
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) if (Array.isArray(schema[key])) out.push(...(schema[key] as unknown[]));
  for (const key of ['$defs', 'definitions'] as const) if (isRecord(schema[key])) out.push(...Object.values(schema[key]));
  return out;
}

/**
 * Whether OpenAI's strict mode takes the schema: an object at the top, and every object in it
 * with `additionalProperties: false` and each of its properties required. A schema with an
 * optional property is sent without `strict`, rather than refused with a 400.
 */
export function strictReady(schema: unknown): boolean {
  if (!isRecord(schema) || schema.type !== 'object') return false;
  const walk = (s: unknown): boolean => {
    if (!isRecord(s)) return true;
    if (isRecord(s.properties)) {
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      if (s.additionalProperties !== false || !Object.keys(s.properties).every((k) => required.has(k))) return false;
    }
    return children(s).every(walk);
  };
  return walk(schema);
}

/**
 * Keywords Anthropic's structured outputs take (its JSON Schema limits); `minItems` only as 0 or 1,
 * `format` only from its list. `pattern` is not among them: Anthropic's own SDK moves it into the
 * description (`transformJSONSchema` in anthropic-sdk-typescript), as it does the value bounds.
 */
const ANTHROPIC_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'items',
  'default',
  '$ref',
  '$defs',
  'definitions',
]);
const ANTHROPIC_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/**
 * A JSON Schema in the subset Anthropic's `output_config.format` and strict tools accept (it
 * answers anything else with a 400): every object closed (`additionalProperties: false`), `oneOf`
 * as `anyOf`, and the constraints it cannot hold (`minimum`, `maxLength`, …) taken out of the
 * schema and written into the description instead, as its own SDK does, so the model still reads them.
 */
export function toAnthropicSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAnthropicSchema);
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isRecord(value)) out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toAnthropicSchema(v)]));
    else if (key === '$defs' || key === 'definitions')
      out[key] = isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toAnthropicSchema(v)])) : value;
    else if (key === 'items' || key === 'anyOf' || key === 'allOf') out[key] = toAnthropicSchema(value);
    else if (key === 'oneOf') out.anyOf = toAnthropicSchema(value);
    else if (key === 'additionalProperties') continue;
    else if ((key === 'minItems' && (value === 0 || value === 1)) || (key === 'format' && ANTHROPIC_FORMATS.has(String(value)))) out[key] = value;
    else if (ANTHROPIC_KEYWORDS.has(key)) out[key] = value;
    else if (key !== '$schema') dropped.push(`${key}: ${JSON.stringify(value)}`);
  }
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.includes('object')) || isRecord(schema.properties)) out.additionalProperties = false;
  if (dropped.length > 0)
    out.description = [typeof out.description === 'string' ? out.description : '', `{${dropped.join(', ')}}`].filter((d) => d !== '').join('\n\n');
  return out;
}
