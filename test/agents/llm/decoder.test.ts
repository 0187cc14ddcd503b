import { describe, expect, it } from 'vitest';
import { MoveSchema, type Move } from '../../../src/core/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../src/core/message';
import { decodeMove, MAX_RAW_LENGTH } from '../../../src/agents/llm/decoder';
import { toolCallToMove } from '../../../src/agents/llm/schema';

const offer = (price: number, message?: string): Move =>
  message === undefined ? { action: { type: 'offer', price } } : { message, action: { type: 'offer', price } };
const accept = (message?: string): Move => (message === undefined ? { action: { type: 'accept' } } : { message, action: { type: 'accept' } });
const reject: Move = { action: { type: 'reject' } };
const walk = (message?: string): Move =>
  message === undefined ? { action: { type: 'walk_away' } } : { message, action: { type: 'walk_away' } };

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

/** Output no move can be made of, and a word the reason must contain. */
const BAD: [string, unknown, RegExp][] = [
  ['empty', '', /empty/],
  ['only whitespace', '   \n ', /empty/],
  ['prose only', 'I would like to buy this for about a hundred dollars.', /no JSON move/],
  ['unfinished thinking', '<think>Let me consider the price', /inside <think>/],
  ['truncated JSON', '{"action":{"type":"offer","price":1', /does not parse/],
  ['offer without a price', '{"action":{"type":"offer"}}', /needs a "price"/],
  ['unknown action', '{"action":{"type":"haggle","price":5}}', /unknown action "haggle"/],
  ['price not a number', '{"action":{"type":"offer","price":"cheap"}}', /"cheap" is not a number/],
  ['price in words', '{"action":{"type":"offer","price":"around 120"}}', /not a number/],
  ['decimal comma', '{"action":{"type":"offer","price":"1.200,50"}}', /not a number/],
  ['price as an array', '{"action":{"type":"offer","price":[120]}}', /must be a number/],
  ['negative price', '{"action":{"type":"offer","price":-5}}', /must be positive/],
  ['zero price', '{"offer": 0}', /must be positive/],
  ['a fraction of a cent', '{"offer": 0.004}', /must be at least \$0\.01 \(got 0\.004\)/],
  ['price too large to be finite', '{"offer": 1e308}', /finite/],
  ['nothing in the move', '{}', /no "action" and no "message"/],
  ['empty action and no message', '{"action":{}}', /needs a message or an action/],
  ['action without a type', '{"action":{"mood":"happy"}}', /no "type"/],
  ['action is a number', '{"action":5}', /"action" must be an object/],
  ['type is a number', '{"action":{"type":3}}', /must be text/],
  ['message not text', '{"message":{"text":"hi"}}', /must be text/],
  ['bare "offer" has no price', 'offer', /no JSON move/],
  ['a bare yes is not an accept', 'yes', /no JSON move/],
  ['non-string input', 12345, /no JSON move/],
  ['null input', null, /empty/],
  ['an object as input', { action: { type: 'accept' } }, /./],
];

describe('decodeMove: what models really emit', () => {
  it.each(GOOD)('%s', (_, text, expected) => {
    const result = decodeMove(text);
    expect(result).toMatchObject({ ok: true, move: expected });
    if (result.ok) {
      expect(result.move).toStrictEqual(expected);
      expect(MoveSchema.safeParse(result.move).success).toBe(true);
    }
  });

  it.each(BAD)('refuses %s with a reason and keeps the raw text', (_, text, reason) => {
    const result = decodeMove(text as string);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toMatch(reason);
      expect(result.raw).toBe(typeof text === 'string' ? text : text === null ? '' : String(text));
    }
  });

  it('returns the stripped thinking separately, joining several blocks', () => {
    const result = decodeMove('<think>first</think>\n<think>second</think>{"action":{"type":"accept"}}');
    expect(result).toStrictEqual({ ok: true, move: accept(), thinking: 'first\n\nsecond' });
    const refused = decodeMove('<think>why not</think>{"action":{"type":"dance"}}');
    expect(refused).toMatchObject({ ok: false, thinking: 'why not', raw: '<think>why not</think>{"action":{"type":"dance"}}' });
    expect(decodeMove('<think>  </think>{"action":{"type":"accept"}}')).not.toHaveProperty('thinking');
  });

  it('finds the move after a thinking block longer than the scanned part', () => {
    const text = `<think>${'ponder '.repeat(10_000)}</think>{"action":{"type":"offer","price":5}}`;
    expect(decodeMove(text)).toMatchObject({ ok: true, move: offer(5) });
  });

  it('does not take a fragment of a refused move for a move', () => {
    // the inner {"message":…} alone would be a valid message-only move
    const result = decodeMove('{"action":"haggle","meta":{"message":"hello"}}');
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/unknown action/) });
  });

  it('cuts a message over the limit to it, saying how much was left out, and plays the move', () => {
    const long = 'y'.repeat(MAX_MESSAGE_LENGTH + 212);
    const text = JSON.stringify({ message: long, action: { type: 'offer', price: 60 } });
    const result = decodeMove(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.move.action).toEqual({ type: 'offer', price: 60 });
    expect(result.move.message?.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(result.move.message).toBe(`${long.slice(0, MAX_MESSAGE_LENGTH - 40)}… [252 more characters]`);
    expect(MoveSchema.safeParse(result.move).success).toBe(true);
    // The same in a tool call, and never half an emoji.
    const emoji = decodeMove('', [{ name: 'send_message', arguments: JSON.stringify({ message: `${'a'.repeat(MAX_MESSAGE_LENGTH - 41)}${'👍'.repeat(300)}` }) }]);
    expect(emoji.ok && emoji.move.message).toMatch(/^a+… \[\d+ more characters\]$/);
  });

  it('caps the raw output it keeps', () => {
    const huge = 'x'.repeat(MAX_RAW_LENGTH + 5_000);
    const result = decodeMove(huge);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.raw.length).toBeLessThanOrEqual(MAX_RAW_LENGTH);
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
    expect(decodeMove('', [toolCall])).toStrictEqual({ ok: true, move: expected });
  });

  it('takes tool calls before the text, and merges a message call with an action call', () => {
    expect(decodeMove('{"action":{"type":"reject"}}', [call('respond_to_offer', '{"decision":"accept"}')])).toMatchObject({
      move: accept(),
    });
    expect(decodeMove('', [call('send_message', '{"message":"Here."}'), call('make_offer', '{"price":9}')])).toStrictEqual({
      ok: true,
      move: offer(9, 'Here.'),
    });
  });

  it('falls back to the text when the tool call is bad, and reports the tool call if both fail', () => {
    expect(decodeMove('{"action":{"type":"accept"}}', [call('make_offer', '{}')])).toMatchObject({ ok: true, move: accept() });
    const both = decodeMove('no idea', [call('make_offer', '{}')]);
    expect(both).toMatchObject({ ok: false, reason: expect.stringMatching(/make_offer needs a "price"/) });
    if (!both.ok) expect(both.raw).toBe('no idea\n[tool call] make_offer({})');
  });

  it.each([
    ['two actions', [call('make_offer', '{"price":1}'), call('walk_away', '{}')], /one action per turn/],
    ['unknown tool', [call('haggle', '{}')], /unknown tool "haggle"/],
    ['arguments not JSON', [call('make_offer', '{"price":')], /not JSON/],
    ['arguments not an object', [call('make_offer', '[1]')], /must be a JSON object/],
    ['respond without a decision', [call('respond_to_offer', '{"decision":"maybe"}')], /"accept" or "reject"/],
    ['send_message without a message', [call('send_message', '{}')], /needs a message/],
    ['no name', [{ arguments: '{}' }], /without a tool name/],
  ])('refuses %s', (_, calls, reason) => {
    expect(decodeMove('', calls)).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('toolCallToMove takes arguments already parsed, as some providers send them', () => {
    expect(toolCallToMove('make_offer', { price: 10 })).toStrictEqual({ ok: true, move: offer(10) });
    expect(toolCallToMove('make_offer', 'nope')).toMatchObject({ ok: false });
  });
});
