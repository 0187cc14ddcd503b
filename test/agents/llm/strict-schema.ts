/**
 * A checker for OpenAI's strict mode (Structured Outputs, "Supported schemas":
 * https://platform.openai.com/docs/guides/structured-outputs#supported-schemas, as the page read
 * in 2026), written from its rules, not from our schemas:
 * - the root is an object, not an `anyOf`;
 * - every object lists each of its properties in `required` and sets `additionalProperties: false`
 *   (an optional field is a union with null);
 * - types are string, number, boolean, integer, object, array and null (in a union), and `anyOf`
 *   nests them; `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`/`then`/`else` are not
 *   supported, nor is anything the page does not list (`oneOf`, `default`, `minLength`, …);
 * - the constraints it lists: `pattern` and `format` for strings; `multipleOf`, `maximum`,
 *   `exclusiveMaximum`, `minimum`, `exclusiveMinimum` for numbers; `minItems`, `maxItems` for arrays;
 * - at most 5,000 object properties, 10 levels of nesting, 1,000 enum values, and 120,000 characters
 *   of property names, definition names, enum and const values.
 */

const STRUCTURE = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$defs',
  '$ref',
  'description',
  'title',
]);
const BY_TYPE: Record<string, ReadonlySet<string>> = {
  string: new Set(['pattern', 'format']),
  number: new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']),
  integer: new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']),
  array: new Set(['minItems', 'maxItems']),
  object: new Set(),
  boolean: new Set(),
  null: new Set(),
};
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const LIMITS = { properties: 5000, depth: 10, enumValues: 1000, characters: 120_000 };

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Why `schema` would be refused by OpenAI's strict mode; empty when it would not. */
export function strictModeProblems(schema: unknown): string[] {
  const problems: string[] = [];
  const totals = { properties: 0, enumValues: 0, characters: 0 };
  if (!isObject(schema) || schema.type !== 'object') problems.push('$: the root must be an object');
  if (isObject(schema) && 'anyOf' in schema) problems.push('$: the root must not be anyOf');
  if (isObject(schema) && isObject(schema.$defs)) {
    for (const [name, def] of Object.entries(schema.$defs)) {
      totals.characters += name.length;
      walk(def, `$defs.${name}`, 0);
    }
  }
  walk(schema, '$', 0);
  if (totals.properties > LIMITS.properties) problems.push(`$: ${totals.properties} object properties, over ${LIMITS.properties}`);
  if (totals.enumValues > LIMITS.enumValues) problems.push(`$: ${totals.enumValues} enum values, over ${LIMITS.enumValues}`);
  if (totals.characters > LIMITS.characters) problems.push(`$: ${totals.characters} characters of names and values, over ${LIMITS.characters}`);
  return problems;

  function walk(node: unknown, path: string, depth: number): void {
    if (!isObject(node)) {
      problems.push(`${path}: a schema must be an object`);
      return;
    }
    const types = (Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]) as unknown[];
    for (const t of types) if (typeof t !== 'string' || !(t in BY_TYPE)) problems.push(`${path}: unsupported type ${JSON.stringify(t)}`);
    if (types.length === 0 && !('anyOf' in node) && !('$ref' in node) && !('enum' in node) && !('const' in node)) problems.push(`${path}: no type`);
    const allowed = new Set([...STRUCTURE, ...types.flatMap((t) => [...(BY_TYPE[t as string] ?? [])])]);
    for (const key of Object.keys(node)) if (!allowed.has(key)) problems.push(`${path}: keyword ${key} is not supported here`);
    if (typeof node.format === 'string' && !FORMATS.has(node.format)) problems.push(`${path}: format ${node.format} is not supported`);
    if (Array.isArray(node.enum)) {
      totals.enumValues += node.enum.length;
      for (const v of node.enum) if (typeof v === 'string') totals.characters += v.length;
    }
    if (typeof node.const === 'string') totals.characters += node.const.length;

    if (types.includes('object') || 'properties' in node) {
      if (depth >= LIMITS.depth) problems.push(`${path}: nested more than ${LIMITS.depth} objects deep`);
      const properties = isObject(node.properties) ? node.properties : {};
      const keys = Object.keys(properties);
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = keys.filter((k) => !required.includes(k));
      if (missing.length > 0) problems.push(`${path}: ${missing.join(', ')} not in required (every property is required; an optional one is nullable)`);
      for (const r of required) if (!keys.includes(r as string)) problems.push(`${path}: required ${String(r)} is not a property`);
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
      totals.properties += keys.length;
      for (const [key, value] of Object.entries(properties)) {
        totals.characters += key.length;
        walk(value, `${path}.${key}`, depth + 1);
      }
    }
    if ('items' in node) walk(node.items, `${path}[]`, depth);
    if ('anyOf' in node) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) problems.push(`${path}: anyOf must be a list of schemas`);
      else node.anyOf.forEach((option, i) => walk(option, `${path}.anyOf[${i}]`, depth));
    }
  }
}
