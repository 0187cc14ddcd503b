/**
 * The decoder meets thousands of random and adversarial answers: it never throws, and every
 * result is a move the core's schema accepts or a refusal with a reason and the raw text.
 */
import { describe, expect, it } from 'vitest';
import { MoveSchema } from '../../../src/games/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../src/engine/message';
import { createRng, type Rng } from '../../../src/engine/rng';
import { decodeMove, type DecodeResult } from '../../../src/games/bilateral/llm/decoder';
import { MAX_RAW_LENGTH } from '../../../src/agents/llm/answer';
import { MOVE_PROBLEMS } from '../../../src/games/bilateral/llm/problems';

const KEYS = [
  'action',
  'type',
  'price',
  'message',
  'offer',
  'amount',
  'value',
  'decision',
  'move',
  'name',
  'arguments',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'counter',
  'accept',
  'msg',
  '',
];
const WORDS = [
  'offer',
  'OFFER',
  'accept',
  'reject',
  'walk_away',
  'walk away',
  'counter',
  'deny',
  'none',
  'respond',
  'make_offer',
  '$1,200.50',
  '120 USD',
  '€99',
  '-5',
  '0',
  '1e308',
  'NaN',
  'Infinity',
  '',
  ' ',
  '\u0000',
  '👍',
  '\ud800',
];
const JSONISH = '{}[]":,.-+0123456789eE \n\t\\abtnrufl$€<>/`*';

function randomString(rng: Rng, alphabet: string | null, max: number): string {
  const n = rng.int(max + 1);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet === null ? String.fromCharCode(rng.int(0x10000)) : alphabet[rng.int(alphabet.length)];
  return s;
}

function randomValue(rng: Rng, depth: number): unknown {
  switch (rng.int(depth > 3 ? 5 : 8)) {
    case 0:
      return rng.uniform(-1e6, 1e6) * (rng.next() < 0.5 ? 1 : 1e-4);
    case 1:
      return rng.pick(WORDS);
    case 2:
      return rng.next() < 0.5;
    case 3:
      return null;
    case 4:
      return randomString(rng, null, 12);
    case 5:
      return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
    default: {
      const entries: [string, unknown][] = Array.from({ length: rng.int(5) }, () => [rng.pick(KEYS), randomValue(rng, depth + 1)]);
      // Written by hand so that "__proto__" stays an ordinary key in the JSON text.
      return { json: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}` };
    }
  }
}

function toJson(v: unknown): string {
  if (typeof v === 'object' && v !== null && 'json' in v) return (v as { json: string }).json;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  return JSON.stringify(v) ?? 'null';
}

const VALID = [
  '{"message":"Deal?","action":{"type":"offer","price":120.5}}',
  '{"action":{"type":"accept"}}',
  '{"action":"walk_away","message":"bye"}',
  '{"offer":"$1,999.99"}',
  '```json\n{"action":{"type":"reject"}}\n```',
  '<think>hmm</think>{"type":"counter","amount":"90 USD"}',
];

function wrap(rng: Rng, json: string): string {
  switch (rng.int(5)) {
    case 0:
      return `Here you go: ${json} hope that helps`;
    case 1:
      return `\`\`\`json\n${json}\n\`\`\``;
    case 2:
      return `<think>${randomString(rng, JSONISH, 40)}</think>${json}`;
    case 3:
      return `${json}${json}`;
    default:
      return json;
  }
}

function mutate(rng: Rng, text: string): string {
  let s = text;
  for (let k = rng.int(4) + 1; k > 0; k--) {
    const at = rng.int(s.length + 1);
    const piece = randomString(rng, JSONISH, 3);
    s = rng.next() < 0.5 ? s.slice(0, at) + piece + s.slice(at) : s.slice(0, at) + piece + s.slice(at + piece.length);
  }
  return s;
}

const DEEP = 10_000;
const ADVERSARIAL: unknown[] = [
  '{'.repeat(DEEP),
  '}'.repeat(DEEP),
  '{'.repeat(DEEP) + '}'.repeat(DEEP),
  '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP),
  '{"action":' + '['.repeat(DEEP) + ']'.repeat(DEEP) + '}',
  '['.repeat(DEEP) + '{"action":{"type":"accept"}}' + ']'.repeat(DEEP),
  '{"message":"' + '\\'.repeat(DEEP) + '"}',
  '"'.repeat(100_000),
  '{'.repeat(300_000),
  '{"a":"'.repeat(50_000),
  'x'.repeat(1_000_000),
  '<think>'.repeat(10_000),
  '</think>'.repeat(10_000),
  '<think>' + '{"action":{"type":"accept"}}'.repeat(20_000),
  '```'.repeat(20_000),
  '```json\n' + '{'.repeat(50_000),
  `{"message":"${'é'.repeat(MAX_MESSAGE_LENGTH * 2)}"}`,
  `{"action":{"type":"offer","price":"${'9'.repeat(400)}"}}`,
  `{"action":{"type":"offer","price":${'9'.repeat(400)}}}`,
  '{"__proto__":{"action":{"type":"accept"}}}',
  '{"__proto__":{"type":"offer","price":1},"message":"x"}',
  '{"action":{"__proto__":{"type":"walk_away"}}}',
  '{"constructor":{"prototype":{"action":"accept"}}}',
  '{"toString":"offer","valueOf":5}',
  JSON.stringify({ message: 'a'.repeat(MAX_MESSAGE_LENGTH + 1) }),
  '{"action":{"type":"offer","price":5}}'.padStart(25_000, ' '),
  '\ud800{"action":{"type":"accept"}}\udfff',
  '\u0000\u0001\u0002{"action":\u0000}',
  Object.assign(Object.create(null), { a: 1 }),
  {
    toString: () => {
      throw new Error('no');
    },
  },
  new Proxy(
    {},
    {
      get: () => {
        throw new Error('trap');
      },
    },
  ),
  Symbol('s'),
  12n,
  undefined,
  [1, 2, 3],
];

function check(result: DecodeResult): void {
  if (result.ok) {
    const parsed = MoveSchema.safeParse(result.value);
    expect(parsed.success).toBe(true);
    const action = result.value.action;
    if (action?.type === 'offer') {
      expect(Number.isFinite(action.price) && action.price > 0).toBe(true);
      expect(Math.abs(action.price * 100 - Math.round(action.price * 100))).toBeLessThan(1e-6 * Math.max(1, action.price));
    }
    expect(result.value.action !== undefined || result.value.message !== undefined).toBe(true);
  } else {
    // A known code, and its message the table's English for its data.
    const { code, data, message } = result.error;
    expect(Object.hasOwn(MOVE_PROBLEMS, code)).toBe(true);
    expect(message).toBe((MOVE_PROBLEMS[code] as (d: unknown) => string)(data));
    expect(message.length).toBeGreaterThan(0);
  }
  if (result.thinking !== undefined) expect(result.thinking.length).toBeLessThanOrEqual(MAX_RAW_LENGTH);
}

function decodeSafely(text: unknown, toolCalls?: unknown): DecodeResult {
  let result: DecodeResult | undefined;
  expect(() => {
    result = decodeMove(text as string, toolCalls as undefined);
  }).not.toThrow();
  return result as DecodeResult;
}

describe('decodeMove under fuzzing', () => {
  it('never throws on 5,000 random and mutated answers, and each result is a valid move or a reason', () => {
    const rng = createRng(20_240_601);
    let moves = 0;
    for (let i = 0; i < 5_000; i++) {
      let text: string;
      switch (i % 6) {
        case 0:
          text = randomString(rng, null, 200);
          break;
        case 1:
          text = randomString(rng, JSONISH, 300);
          break;
        case 2: {
          const valid = rng.pick(VALID);
          text = valid.slice(0, rng.int(valid.length + 1));
          break;
        }
        case 3:
          text = wrap(rng, toJson(randomValue(rng, 0)));
          break;
        case 4:
          text = mutate(rng, rng.pick(VALID));
          break;
        default:
          text = wrap(
            rng,
            `{"action":{"type":${JSON.stringify(rng.pick(WORDS))},"price":${toJson(randomValue(rng, 3))}},"message":${toJson(randomValue(rng, 3))}}`,
          );
      }
      const toolCalls =
        rng.next() < 0.15
          ? Array.from({ length: rng.int(3) }, () => ({
              name: rng.pick(['make_offer', 'respond_to_offer', 'send_message', 'walk_away', rng.pick(WORDS)]),
              arguments: rng.next() < 0.5 ? toJson(randomValue(rng, 0)) : randomString(rng, JSONISH, 30),
            }))
          : undefined;
      const result = decodeSafely(text, toolCalls);
      check(result);
      if (result.ok) moves++;
    }
    // the generator is not all noise: a fair share of answers decode
    expect(moves).toBeGreaterThan(300);
  });

  // Cheap by the test's own time limit: decoding these tens of thousands of characters takes
  // milliseconds when linear and minutes when quadratic, a gap no machine's speed closes.
  it('never throws on deep, huge and hostile input', () => {
    for (const input of ADVERSARIAL) {
      check(decodeSafely(input));
      check(decodeSafely('', [{ name: 'make_offer', arguments: input }]));
    }
  });

  it('never throws on tool calls of any shape', () => {
    const shapes: unknown[] = [
      null,
      5,
      'make_offer',
      {},
      [null],
      [5],
      [{}],
      [{ name: 5 }],
      [{ name: '__proto__', arguments: '{}' }],
      [{ name: 'make_offer', arguments: { price: { price: { price: 1 } } } }],
      Array.from({ length: 10_000 }, () => ({ name: 'walk_away' })),
    ];
    for (const calls of shapes) check(decodeSafely('{"action":{"type":"accept"}}', calls));
  });

  it('__proto__ keys are data, never a prototype', () => {
    const result = decodeSafely('{"__proto__":{"action":{"type":"accept"}}}');
    // the wrapper rule reads the one object inside, as it would for any other key
    expect(result).toMatchObject({ ok: true, value: { action: { type: 'accept' } } });
    expect(({} as Record<string, unknown>).action).toBeUndefined();
  });
});
