import { describe, expect, it } from 'vitest';
import { MoveSchema, type Move } from '../../../src/games/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../src/engine/message';
import { decodeMove } from '../../../src/games/bilateral/llm/decoder';
import { MAX_RAW_LENGTH, renderRaw } from '../../../src/agents/llm/answer';
import { MOVE_PROBLEMS } from '../../../src/games/bilateral/llm/problems';
import { toolCallToMove } from '../../../src/games/bilateral/llm/schema';

const offer = (price: number, message?: string): Move =>
  message === undefined ? { action: { type: 'offer', price } } : { message, action: { type: 'offer', price } };
const accept = (message?: string): Move => (message === undefined ? { action: { type: 'accept' } } : { message, action: { type: 'accept' } });
const reject: Move = { action: { type: 'reject' } };
const walk = (message?: string): Move => (message === undefined ? { action: { type: 'walk_away' } } : { message, action: { type: 'walk_away' } });

/** What models really write, and the move each must become. */
const GOOD: [string, string, Move][] = [
  ['constrained JSON', '{"message":"Deal?","action":{"type":"offer","price":120}}', offer(120, 'Deal?')],
  ['JSON with whitespace', '\n  { "action" : { "type" : "accept" } }\n', accept()],
  ['message only', '{"message":"Tell me more about its condition."}', { message: 'Tell me more about its condition.' }],
  ['fenced json', '```json\n{"action":{"type":"offer","price":95.5}}\n```', offer(95.5)],
  ['fence without a language', 'Here:\n```\n{"action":{"type":"reject"}}\n```\nDone.', reject],
  ['prose around JSON', 'I think this is fair. {"message":"My best.","action":{"type":"offer","price":80}} Let me know!', offer(80, 'My best.')],
  ['prose before JSON with a brace in it', 'Thinking {out loud} here: {"action":{"type":"accept"}}', accept()],
  ['think block', '<think>\nThe seller asks 130; I value it at 150. Counter at 110.\n</think>\n{"action":{"type":"offer","price":110}}', offer(110)],
  ['empty think block (thinking off)', '<think>\n\n</think>\n\n{"action":{"type":"walk_away"}}', walk()],
  ['closing tag only (template opened it)', 'I should accept.</think>{"action":{"type":"accept"}}', accept()],
  ['<thinking> tags', '<thinking>hmm</thinking>{"action":{"type":"reject"}}', reject],
  ['price as a string', '{"action":{"type":"offer","price":"120"}}', offer(120)],
  ['dollars and thousands', '{"action":{"type":"offer","price":"$1,200.50"}}', offer(1200.5)],
  ['currency code after', '{"action":{"type":"offer","price":"120 USD"}}', offer(120)],
  ['currency code before', '{"action":{"type":"offer","price":"USD 75"}}', offer(75)],
  ['euro sign', '{"action":{"type":"offer","price":"€99"}}', offer(99)],
  ['dollars as a word', '{"action":{"type":"offer","price":"45 dollars"}}', offer(45)],
  ['rounded to cents', '{"action":{"type":"offer","price":99.999}}', offer(100)],
  ['rounded to cents, string', '{"action":{"type":"offer","price":"12.344"}}', offer(12.34)],
  ['upper-case type', '{"action":{"type":"OFFER","price":50}}', offer(50)],
  ['counter', '{"action":{"type":"counter","price":60}}', offer(60)],
  ['counter-offer', '{"action":{"type":"Counter-Offer","price":61}}', offer(61)],
  ['accept_offer', '{"action":{"type":"accept_offer"}}', accept()],
  ['walk away with a space', '{"action":{"type":"walk away"}}', walk()],
  ['walkaway', '{"action":{"type":"walkaway"},"message":"Goodbye."}', walk('Goodbye.')],
  ['deny is reject', '{"action":{"type":"deny"}}', reject],
  ['decline is reject', '{"action":{"type":"Decline"}}', reject],
  ['action as a string', '{"action":"accept","message":"Deal."}', accept('Deal.')],
  ['action as a string, price beside it', '{"action":"offer","price":"$70"}', offer(70)],
  ['flat type and price', '{"type":"offer","price":42,"message":"hi"}', offer(42, 'hi')],
  ['shorthand offer', '{"offer": 120}', offer(120)],
  ['shorthand offer as text', '{"offer": "$130", "message": "Final."}', offer(130, 'Final.')],
  ['shorthand counter', '{"counter": 88}', offer(88)],
  ['shorthand accept flag', '{"accept": true}', accept()],
  ['price as amount', '{"action":{"type":"offer","amount":77}}', offer(77)],
  ['price as value', '{"action":{"type":"offer","value":"78.25"}}', offer(78.25)],
  ['offer nested in the action', '{"action":{"offer":{"price":66}}}', offer(66)],
  ['price without a type is an offer', '{"action":{"price":55}}', offer(55)],
  ['null action, a message', '{"message":"Hmm.","action":null}', { message: 'Hmm.' }],
  ['type none, a message', '{"message":"Let me think.","action":{"type":"none"}}', { message: 'Let me think.' }],
  ['message inside the action', '{"action":{"type":"accept","message":"Deal!"}}', accept('Deal!')],
  ['message trimmed', '{"message":"  ok  ","action":{"type":"accept"}}', accept('ok')],
  ['blank message dropped', '{"message":"","action":{"type":"reject"}}', reject],
  ['decision key', '{"decision":"accept"}', accept()],
  ['respond with a decision', '{"type":"respond_to_offer","decision":"reject"}', reject],
  ['wrapped in "move"', '{"move":{"action":{"type":"offer","price":10}}}', offer(10)],
  ['wrapped in the schema name', '{"negotiation_move":{"action":{"type":"accept"}}}', accept()],
  ['extra keys ignored', '{"reasoning":"cheap","action":{"type":"offer","price":9},"confidence":0.8}', offer(9)],
  ['trailing commas', '{"action":{"type":"offer","price":100,},}', offer(100)],
  ['bare keys', '{action: {type: "offer", price: 101}}', offer(101)],
  ['a tool call written as text (Qwen)', '<tool_call>\n{"name": "make_offer", "arguments": {"price": 140}}\n</tool_call>', offer(140)],
  ['a move in a one-element array', '[{"action":{"type":"accept"}}]', accept()],
  ['one bare action word', 'ACCEPT', accept()],
  ['bare walk away', '"Walk away."', walk()],
  ['first of two objects', '{"action":{"type":"offer","price":1}} {"action":{"type":"offer","price":2}}', offer(1)],
  ['a refused object, then a move', 'Draft: {"note":"x"} final: {"action":{"type":"accept"}}', accept()],
  ['braces inside strings', '{"message":"a } tricky { one","action":{"type":"offer","price":3}}', offer(3, 'a } tricky { one')],
  ['unicode message', '{"message":"très bien 👍","action":{"type":"accept"}}', accept('très bien 👍')],
  ['message at the limit', JSON.stringify({ message: 'x'.repeat(MAX_MESSAGE_LENGTH) }), { message: 'x'.repeat(MAX_MESSAGE_LENGTH) }],
];

/** Output no move can be made of, and the problem's code (with its data, where the test names it). */
const BAD: [string, unknown, string, object?][] = [
  ['empty', '', 'answer-empty'],
  ['only whitespace', '   \n ', 'answer-empty'],
  ['prose only', 'I would like to buy this for about a hundred dollars.', 'no-json-move'],
  ['unfinished thinking', '<think>Let me consider the price', 'unclosed-thinking'],
  ['truncated JSON', '{"action":{"type":"offer","price":1', 'json-unparsable'],
  ['offer without a price', '{"action":{"type":"offer"}}', 'offer-needs-price'],
  ['unknown action', '{"action":{"type":"haggle","price":5}}', 'unknown-action', { name: 'haggle' }],
  ['price not a number', '{"action":{"type":"offer","price":"cheap"}}', 'price-unreadable', { value: 'cheap' }],
  ['price in words', '{"action":{"type":"offer","price":"around 120"}}', 'price-unreadable'],
  ['decimal comma', '{"action":{"type":"offer","price":"1.200,50"}}', 'price-unreadable'],
  ['price as an array', '{"action":{"type":"offer","price":[120]}}', 'price-not-number', { value: '[120]' }],
  ['negative price', '{"action":{"type":"offer","price":-5}}', 'price-not-positive', { field: 'offer price', price: '-5' }],
  ['zero price', '{"offer": 0}', 'price-not-positive'],
  ['a fraction of a cent', '{"offer": 0.004}', 'price-below-minimum', { field: 'offer price', price: '0.004', min: 0.01 }],
  ['price too large to be finite', '{"offer": 1e308}', 'price-infinite'],
  ['nothing in the move', '{}', 'no-action-or-message'],
  ['empty action and no message', '{"action":{}}', 'empty-move'],
  ['action without a type', '{"action":{"mood":"happy"}}', 'action-without-type'],
  ['action is a number', '{"action":5}', 'action-not-object', { value: '5' }],
  ['type is a number', '{"action":{"type":3}}', 'action-type-not-text'],
  ['message not text', '{"message":{"text":"hi"}}', 'field-not-text', { field: 'message', value: '{"text":"hi"}' }],
  ['bare "offer" has no price', 'offer', 'no-json-move'],
  ['a bare yes is not an accept', 'yes', 'no-json-move'],
  ['non-string input', 12345, 'no-json-move'],
  ['null input', null, 'answer-empty'],
  ['an object as input', { action: { type: 'accept' } }, 'json-unparsable'],
];

describe('decodeMove: what models really emit', () => {
  it.each(GOOD)('%s', (_, text, expected) => {
    const result = decodeMove(text);
    expect(result).toMatchObject({ ok: true, value: expected });
    if (result.ok) {
      expect(result.value).toStrictEqual(expected);
      expect(MoveSchema.safeParse(result.value).success).toBe(true);
    }
  });

  it.each(BAD)('refuses %s with its code', (_, text, code, data) => {
    const result = decodeMove(text as string);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(code);
      if (data) expect(result.error.data).toEqual(data);
    }
  });

  it('says each problem in English, as the model is told it on its retry', () => {
    const reason = (text: string, toolCalls?: unknown) => {
      const result = decodeMove(text, toolCalls);
      return result.ok ? null : result.error.message;
    };
    expect(reason('')).toBe('the answer is empty');
    expect(reason('{"action":{"type":"haggle","price":5}}')).toBe('unknown action "haggle"; use offer, accept, reject or walk_away');
    expect(reason('{"action":{"type":"offer","price":"cheap"}}')).toBe('price "cheap" is not a number');
    expect(reason('{"offer": 0.004}')).toBe('offer price must be at least $0.01 (got 0.004)');
    expect(reason('{"message":{"text":"hi"}}')).toBe('"message" must be text, not {"text":"hi"}');
    expect(reason('{"action":5}')).toBe('"action" must be an object such as {"type":"accept"}, not 5');
    expect(reason('[1, 2]')).toBe('expected a JSON object for the move, got an array');
    expect(reason('no idea')).toBe('no JSON move in the answer; answer with one JSON object such as {"action":{"type":"accept"}}');
    expect(reason('', [{ name: 'make_offer', arguments: '{}' }])).toBe('tool call make_offer: make_offer needs a "price", a number in dollars');
    expect(reason('', [{ name: 'haggle', arguments: '{}' }])).toBe(
      'tool call haggle: unknown tool "haggle"; use make_offer, respond_to_offer, send_message, walk_away',
    );
    expect(
      reason('', [
        { name: 'make_offer', arguments: '{"price":1}' },
        { name: 'walk_away', arguments: '{}' },
      ]),
    ).toBe('one action per turn, but the answer called 2 action tools');
    // Every message is the table's, from the problem's data.
    const problem = decodeMove('{"action":{"type":"offer"}}');
    if (!problem.ok) expect(problem.error.message).toBe(MOVE_PROBLEMS[problem.error.code as 'offer-needs-price']());
  });

  it('renders the raw output for the record: the text as given, then each tool call', () => {
    for (const [, text] of BAD) expect(renderRaw(text)).toBe(typeof text === 'string' ? text : text === null ? '' : String(text));
    expect(renderRaw('no idea', [{ name: 'make_offer', arguments: '{}' }])).toBe('no idea\n[tool call] make_offer({})');
  });

  it('returns the stripped thinking separately, joining several blocks', () => {
    const result = decodeMove('<think>first</think>\n<think>second</think>{"action":{"type":"accept"}}');
    expect(result).toStrictEqual({ ok: true, value: accept(), thinking: 'first\n\nsecond' });
    const refused = decodeMove('<think>why not</think>{"action":{"type":"dance"}}');
    expect(refused).toMatchObject({ ok: false, thinking: 'why not', error: { code: 'unknown-action' } });
    expect(decodeMove('<think>  </think>{"action":{"type":"accept"}}')).not.toHaveProperty('thinking');
  });

  it('finds the move after a thinking block longer than the scanned part', () => {
    const text = `<think>${'ponder '.repeat(10_000)}</think>{"action":{"type":"offer","price":5}}`;
    expect(decodeMove(text)).toMatchObject({ ok: true, value: offer(5) });
  });

  it('does not take a fragment of a refused move for a move', () => {
    // the inner {"message":…} alone would be a valid message-only move
    const result = decodeMove('{"action":"haggle","meta":{"message":"hello"}}');
    expect(result).toMatchObject({ ok: false, error: { code: 'unknown-action', data: { name: 'haggle' } } });
  });

  it('cuts a message over the limit to it, saying how much was left out, and plays the move', () => {
    const long = 'y'.repeat(MAX_MESSAGE_LENGTH + 212);
    const text = JSON.stringify({ message: long, action: { type: 'offer', price: 60 } });
    const result = decodeMove(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.action).toEqual({ type: 'offer', price: 60 });
    expect(result.value.message?.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(result.value.message).toBe(`${long.slice(0, MAX_MESSAGE_LENGTH - 40)}… [252 more characters]`);
    expect(MoveSchema.safeParse(result.value).success).toBe(true);
    // The same in a tool call, and never half an emoji.
    const emoji = decodeMove('', [
      { name: 'send_message', arguments: JSON.stringify({ message: `${'a'.repeat(MAX_MESSAGE_LENGTH - 41)}${'👍'.repeat(300)}` }) },
    ]);
    expect(emoji.ok && emoji.value.message).toMatch(/^a+… \[\d+ more characters\]$/);
  });

  it('caps the raw output it keeps', () => {
    const huge = 'x'.repeat(MAX_RAW_LENGTH + 5_000);
    expect(decodeMove(huge).ok).toBe(false);
    expect(renderRaw(huge).length).toBeLessThanOrEqual(MAX_RAW_LENGTH);
  });
});

describe('decodeMove: tool calls', () => {
  const call = (name: string, args: string) => ({ name, arguments: args });

  it.each([
    ['make_offer', call('make_offer', '{"price":120,"message":"Fair?"}'), offer(120, 'Fair?')],
    ['make_offer, price as text', call('make_offer', '{"price":"$1,050"}'), offer(1050)],
    ['respond_to_offer accept', call('respond_to_offer', '{"decision":"accept"}'), accept()],
    ['respond_to_offer reject, any case', call('respond_to_offer', '{"decision":"REJECT","message":"No."}'), { message: 'No.', action: { type: 'reject' } }],
    ['send_message', call('send_message', '{"message":"Is it new?"}'), { message: 'Is it new?' }],
    ['walk_away without arguments', call('walk_away', ''), walk()],
    ['walk_away with a message', call('walk_away', '{"message":"Bye."}'), walk('Bye.')],
    ['a provider prefix', call('functions.make_offer', '{"price":5}'), offer(5)],
    ['a tool named after an action', call('accept', '{}'), accept()],
  ] as const)('%s', (_, toolCall, expected) => {
    expect(decodeMove('', [toolCall])).toStrictEqual({ ok: true, value: expected });
  });

  it('takes tool calls before the text, and merges a message call with an action call', () => {
    expect(decodeMove('{"action":{"type":"reject"}}', [call('respond_to_offer', '{"decision":"accept"}')])).toMatchObject({
      value: accept(),
    });
    expect(decodeMove('', [call('send_message', '{"message":"Here."}'), call('make_offer', '{"price":9}')])).toStrictEqual({
      ok: true,
      value: offer(9, 'Here.'),
    });
  });

  it('falls back to the text when the tool call is bad, and reports the tool call if both fail', () => {
    expect(decodeMove('{"action":{"type":"accept"}}', [call('make_offer', '{}')])).toMatchObject({ ok: true, value: accept() });
    const both = decodeMove('no idea', [call('make_offer', '{}')]);
    expect(both).toMatchObject({ ok: false, error: { code: 'in-tool-call', data: { tool: 'make_offer', problem: { code: 'tool-needs-price' } } } });
  });

  it.each([
    ['two actions', [call('make_offer', '{"price":1}'), call('walk_away', '{}')], { code: 'too-many-actions', data: { count: 2 } }],
    ['unknown tool', [call('haggle', '{}')], { code: 'in-tool-call', data: { problem: { code: 'unknown-tool', data: { tool: 'haggle' } } } }],
    ['arguments not JSON', [call('make_offer', '{"price":')], { data: { problem: { code: 'tool-arguments-not-json' } } }],
    [
      'arguments not an object',
      [call('make_offer', '[1]')],
      { data: { problem: { code: 'tool-arguments-not-object', data: { tool: 'make_offer', value: '[1]' } } } },
    ],
    [
      'respond without a decision',
      [call('respond_to_offer', '{"decision":"maybe"}')],
      { data: { problem: { code: 'tool-needs-decision', data: { value: 'maybe' } } } },
    ],
    ['send_message without a message', [call('send_message', '{}')], { data: { problem: { code: 'tool-needs-message' } } }],
    ['no name', [{ arguments: '{}' }], { data: { problem: { code: 'tool-without-name' } } }],
  ])('refuses %s', (_, calls, problem) => {
    expect(decodeMove('', calls)).toMatchObject({ ok: false, error: problem });
  });

  it('toolCallToMove takes arguments already parsed, as some providers send them', () => {
    expect(toolCallToMove('make_offer', { price: 10 })).toStrictEqual({ ok: true, value: offer(10) });
    expect(toolCallToMove('make_offer', 'nope')).toMatchObject({ ok: false, error: { code: 'tool-arguments-not-json' } });
  });
});
