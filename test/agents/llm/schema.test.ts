import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, MoveSchema, type Move } from '../../../src/games/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../src/engine/message';
import { MAX_MODEL_PRICE, SAYS_SOMETHING } from '../../../src/agents/llm/model-schema';
import { MIN_OFFER_PRICE } from '../../../src/games/bilateral/protocol';
import { decodeMove } from '../../../src/games/bilateral/llm/decoder';
import { MODEL_MOVE_SCHEMA, MOVE_TOOL_NAMES, MOVE_TOOLS, moveJsonSchema, TOOL_SCHEMAS, toolCallToMove } from '../../../src/games/bilateral/llm/schema';

/** Model answers under the schema, and the move each one is. */
const ANSWERS: [object, Move][] = [
  [{ message: 'hi', action: null }, { message: 'hi' }],
  [
    { message: 'Sixty.', action: { type: 'offer', price: 60 } },
    { message: 'Sixty.', action: { type: 'offer', price: 60 } },
  ],
  [
    { message: 'ok', action: { type: 'accept' } },
    { message: 'ok', action: { type: 'accept' } },
  ],
  [
    { message: 'No.', action: { type: 'reject' } },
    { message: 'No.', action: { type: 'reject' } },
  ],
  [
    { message: ' bye', action: { type: 'walk_away' } },
    { message: 'bye', action: { type: 'walk_away' } },
  ],
  [
    { message: 'A cent.', action: { type: 'offer', price: MIN_OFFER_PRICE } },
    { message: 'A cent.', action: { type: 'offer', price: MIN_OFFER_PRICE } },
  ],
];

/** Every key anywhere in a JSON value. */
const keysIn = (x: unknown): string[] => (typeof x === 'object' && x !== null ? Object.entries(x).flatMap(([k, v]) => [k, ...keysIn(v)]) : []);

describe('the model-facing move schema', () => {
  it('every answer it takes is a move of the core’s, and the decoder reads it as that move', () => {
    for (const [answer, move] of ANSWERS) {
      expect(MODEL_MOVE_SCHEMA.safeParse(answer).success).toBe(true);
      expect(MoveSchema.safeParse(move).success).toBe(true);
      expect(decodeMove(JSON.stringify(answer))).toEqual({ ok: true, value: move });
    }
  });

  it.each<[string, object]>([
    ['an empty object', {}],
    ['a move without its action field', { message: 'hi' }],
    ['a move without its message field', { action: { type: 'accept' } }],
    ['an empty message', { message: '', action: null }],
    ['a blank message', { message: '   ', action: null }],
    ['a null message', { message: null, action: null }],
    ['a message over the limit', { message: 'x'.repeat(MAX_MESSAGE_LENGTH + 1), action: null }],
    ['a price of zero', { message: 'Free?', action: { type: 'offer', price: 0 } }],
    ['a negative price', { message: 'Pay me.', action: { type: 'offer', price: -5 } }],
    ['a price under a cent', { message: 'Almost free.', action: { type: 'offer', price: 0.005 } }],
    ['a price over MAX_MODEL_PRICE', { message: 'A lot.', action: { type: 'offer', price: MAX_MODEL_PRICE + 1 } }],
    ['an offer without a price', { message: 'This.', action: { type: 'offer' } }],
    ['an unknown action', { message: 'Hm.', action: { type: 'haggle' } }],
  ])('refuses %s', (_, answer) => {
    expect(MODEL_MOVE_SCHEMA.safeParse(answer).success).toBe(false);
  });

  it('a message that says something: a character other than a space, on one line, without double quotes or backslashes', () => {
    for (const said of ['a', ' I can do 60.', 'Deal at €60? 👍', "it's fine", '  x  ']) expect(SAYS_SOMETHING.test(said), said).toBe(true);
    for (const blank of ['', ' ', '    ', 'a\nb', 'say "deal"', 'back\\slash', 'tab\there']) expect(SAYS_SOMETHING.test(blank), blank).toBe(false);
  });

  it('becomes a strict JSON Schema: both fields required, one alternative per action and null, as anyOf', () => {
    const schema = moveJsonSchema() as {
      type: string;
      properties: {
        message: { type: string; pattern: string; description: string };
        action: { anyOf: { type: string; properties?: { type: { const: string } } }[] };
      };
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema).toMatchObject({ type: 'object', required: ['message', 'action'], additionalProperties: false });
    // The length is the decoder's (it cuts a longer message); the model reads it in the description.
    expect(schema.properties.message).toEqual({
      type: 'string',
      pattern: SAYS_SOMETHING.source,
      description: expect.stringContaining(`at most ${MAX_MESSAGE_LENGTH} characters`),
    });
    expect(schema.properties.action.anyOf.map((o) => o.properties?.type.const ?? o.type)).toEqual([...ACTION_TYPES, 'null']);
    for (const banned of ['maxLength', 'minLength', 'oneOf', '$schema']) expect(keysIn(schema)).not.toContain(banned);
  });

  it('hands out a fresh copy each time', () => {
    const a = moveJsonSchema();
    a.type = 'changed';
    expect(moveJsonSchema().type).toBe('object');
  });
});

describe('the move tools', () => {
  it('are the four tools, each with a strict object JSON Schema made from its zod schema', () => {
    expect(MOVE_TOOLS.map((t) => t.name)).toEqual(['make_offer', 'respond_to_offer', 'send_message', 'walk_away']);
    expect(MOVE_TOOL_NAMES).toEqual(MOVE_TOOLS.map((t) => t.name));
    for (const tool of MOVE_TOOLS) {
      expect(tool.description.length).toBeGreaterThan(10);
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(keysIn(tool.parameters)).not.toContain('$schema');
      expect(keysIn(tool.parameters)).not.toContain('maxLength');
    }
    const nullable = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    expect(MOVE_TOOLS[0]?.parameters).toMatchObject({
      properties: { price: { minimum: MIN_OFFER_PRICE, maximum: MAX_MODEL_PRICE }, message: nullable },
      required: ['price', 'message'],
    });
    expect(MOVE_TOOLS[1]?.parameters).toMatchObject({
      properties: { decision: { enum: ['accept', 'reject'] }, message: nullable },
      required: ['decision', 'message'],
    });
    // A message is all send_message holds: it must say something.
    expect(MOVE_TOOLS[2]?.parameters).toMatchObject({ properties: { message: { type: 'string', pattern: SAYS_SOMETHING.source } }, required: ['message'] });
    expect(MOVE_TOOLS[3]?.parameters).toMatchObject({ properties: { message: nullable }, required: ['message'] });
    expect(Object.isFrozen(MOVE_TOOLS[0]?.parameters)).toBe(true);
  });

  it('every argument object a tool schema accepts becomes the matching move, a null message an absent one', () => {
    const cases: [keyof typeof TOOL_SCHEMAS, object, Move][] = [
      ['make_offer', { price: 99.5, message: 'ok' }, { message: 'ok', action: { type: 'offer', price: 99.5 } }],
      ['make_offer', { price: 99.5, message: null }, { action: { type: 'offer', price: 99.5 } }],
      ['make_offer', { price: 40, message: '' }, { action: { type: 'offer', price: 40 } }],
      ['respond_to_offer', { decision: 'accept', message: null }, { action: { type: 'accept' } }],
      ['respond_to_offer', { decision: 'reject', message: 'no' }, { message: 'no', action: { type: 'reject' } }],
      ['send_message', { message: 'hello' }, { message: 'hello' }],
      ['walk_away', { message: null }, { action: { type: 'walk_away' } }],
      ['walk_away', { message: 'Bye.' }, { message: 'Bye.', action: { type: 'walk_away' } }],
    ];
    for (const [name, args, move] of cases) {
      expect(TOOL_SCHEMAS[name].safeParse(args).success, name).toBe(true);
      expect(toolCallToMove(name, JSON.stringify(args))).toEqual({ ok: true, value: move });
    }
  });

  it.each<[keyof typeof TOOL_SCHEMAS, object]>([
    ['make_offer', { price: 0, message: null }],
    ['make_offer', { price: -1, message: null }],
    ['make_offer', { price: 2 * MAX_MODEL_PRICE, message: null }],
    ['make_offer', { price: 60 }],
    ['respond_to_offer', { decision: 'accept' }],
    ['send_message', { message: '' }],
    ['send_message', { message: ' ' }],
    ['walk_away', {}],
  ])('%s refuses %j', (name, args) => {
    expect(TOOL_SCHEMAS[name].safeParse(args).success).toBe(false);
  });
});
