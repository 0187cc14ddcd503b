import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, MoveSchema, type Move } from '../../../src/games/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../src/engine/message';
import { MODEL_MOVE_SCHEMA, MOVE_TOOL_NAMES, MOVE_TOOLS, moveJsonSchema, TOOL_SCHEMAS, toolCallToMove } from '../../../src/games/bilateral/llm/schema';

const MOVES: Move[] = [
  { message: 'hi' },
  { action: { type: 'offer', price: 12.5 } },
  { message: 'ok', action: { type: 'accept' } },
  { action: { type: 'reject' } },
  { message: 'bye', action: { type: 'walk_away' } },
];

/** Every key anywhere in a JSON value. */
const keysIn = (x: unknown): string[] => (typeof x === 'object' && x !== null ? Object.entries(x).flatMap(([k, v]) => [k, ...keysIn(v)]) : []);

describe('the model-facing move schema', () => {
  it("accepts and refuses what the core's MoveSchema does", () => {
    for (const move of MOVES) expect(MODEL_MOVE_SCHEMA.parse(move)).toEqual(MoveSchema.parse(move));
    for (const bad of [{ message: 'x'.repeat(MAX_MESSAGE_LENGTH + 1) }, { action: { type: 'haggle' } }, { action: { type: 'offer' } }])
      expect([MODEL_MOVE_SCHEMA.safeParse(bad).success, MoveSchema.safeParse(bad).success]).toEqual([false, false]);
  });

  it('becomes a JSON Schema with one alternative per action, as anyOf, without $schema', () => {
    const schema = moveJsonSchema() as {
      type: string;
      properties: { message: { type: string; description: string }; action: { anyOf: { properties: { type: { const: string } } }[] } };
      additionalProperties: boolean;
    };
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    // The length is the decoder's (it cuts a longer message); the model reads it in the description.
    expect(schema.properties.message).toEqual({ type: 'string', description: expect.stringContaining(`at most ${MAX_MESSAGE_LENGTH} characters`) });
    expect(keysIn(schema)).not.toContain('maxLength');
    expect(schema.properties.action.anyOf.map((o) => o.properties.type.const)).toEqual(ACTION_TYPES);
    expect(keysIn(schema)).not.toContain('oneOf');
    expect(keysIn(schema)).not.toContain('$schema');
  });

  it('hands out a fresh copy each time', () => {
    const a = moveJsonSchema();
    a.type = 'changed';
    expect(moveJsonSchema().type).toBe('object');
  });
});

describe('the move tools', () => {
  it('are the four tools, each with an object JSON Schema made from its zod schema', () => {
    expect(MOVE_TOOLS.map((t) => t.name)).toEqual(['make_offer', 'respond_to_offer', 'send_message', 'walk_away']);
    expect(MOVE_TOOL_NAMES).toEqual(MOVE_TOOLS.map((t) => t.name));
    for (const tool of MOVE_TOOLS) {
      expect(tool.description.length).toBeGreaterThan(10);
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(keysIn(tool.parameters)).not.toContain('$schema');
    }
    expect(MOVE_TOOLS[0]?.parameters).toMatchObject({ required: ['price'] });
    expect(MOVE_TOOLS[1]?.parameters).toMatchObject({ properties: { decision: { enum: ['accept', 'reject'] } }, required: ['decision'] });
    expect(MOVE_TOOLS[2]?.parameters).toMatchObject({ properties: { message: { type: 'string' } }, required: ['message'] });
    for (const tool of MOVE_TOOLS) expect(keysIn(tool.parameters)).not.toContain('maxLength');
    expect(Object.isFrozen(MOVE_TOOLS[0]?.parameters)).toBe(true);
  });

  it('every argument object a tool schema accepts becomes the matching move', () => {
    const cases: [keyof typeof TOOL_SCHEMAS, object, Move][] = [
      ['make_offer', { price: 99.5, message: 'ok' }, { message: 'ok', action: { type: 'offer', price: 99.5 } }],
      ['respond_to_offer', { decision: 'accept' }, { action: { type: 'accept' } }],
      ['respond_to_offer', { decision: 'reject', message: 'no' }, { message: 'no', action: { type: 'reject' } }],
      ['send_message', { message: 'hello' }, { message: 'hello' }],
      ['walk_away', {}, { action: { type: 'walk_away' } }],
    ];
    for (const [name, args, move] of cases) {
      expect(TOOL_SCHEMAS[name].safeParse(args).success).toBe(true);
      expect(toolCallToMove(name, JSON.stringify(args))).toEqual({ ok: true, value: move });
    }
  });
});
