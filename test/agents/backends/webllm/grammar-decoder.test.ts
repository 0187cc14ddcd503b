/**
 * What WebLLM's grammar lets a model write, the decoder plays: every one of the twelve formats a
 * WebLLM seat sends (both games, json or tools, with or without thinking) is built by the real
 * xgrammar WebLLM runs, and a corpus of answers, good and bad, is put to it with no tokenizer
 * (xgrammar's own string matcher). Each answer the grammar takes goes through the backend's reading
 * (tool calls out of the text) and the game's decoder, which must make a move of it. So the
 * answers the grammar refuses include every one the decoder refuses: no constrained answer is a
 * retry. The few it takes and the decoder refuses are named below, each with its reason, and
 * the test fails if one of them stops being one (a newer xgrammar, a changed decoder).
 */
import type { ChatCompletion, ResponseFormat } from '@mlc-ai/web-llm';
import type { Grammar, StructuralTagLike } from '@mlc-ai/web-xgrammar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromWebLlmResponse } from '../../../../src/agents/backends/webllm/backend';
import { moveFormats, type MoveFormat } from '../../../../src/cli/bench-grammar';
import { decodeMove } from '../../../../src/games/bilateral/llm/decoder';
import { decodeMarketMove } from '../../../../src/games/market/llm/schema';
import type { MarketRole } from '../../../../src/games/market/moves';
import { loadXgrammar } from './xgrammar';

const xgr = loadXgrammar();
const MODEL = 'Qwen3-1.7B-q4f16_1-MLC';
const THOUGHT = '<think>\nThey asked 90; my value is 75.\n</think>\n\n';

/** Why a grammar takes an answer the decoder refuses: xgrammar's, or the schema's, known gaps. */
const HOLE = {
  /** xgrammar 0.1.27 writes the "." of a fractional minimum (0.01) as any character: "0,01" passes. */
  minimumDot: 'xgrammar writes the dot of the minimum 0.01 as any character',
  /** The pattern's "a character other than a space" takes U+00A0, which the decoder trims away. */
  unicodeBlank: 'a no-break space says something to the pattern, nothing to the decoder',
  /** An id's 100 characters are left out of the grammar (100 states would cost seconds a compile). */
  longId: 'an id over 100 characters: the length is the decoder’s',
} as const;
type Hole = (typeof HOLE)[keyof typeof HOLE];

interface Answer {
  text: string;
  /** A move the grammar must take (and the decoder play): the corpus is not all refusals. */
  good?: boolean;
  /** A known hole in one of its parts: the decoder may refuse it though the grammar takes it. */
  hole?: Hole;
  /** Its other parts good, so the hole must show: the grammar takes it and the decoder refuses it. */
  shows?: boolean;
}

/** JSON text of a value, with its fate: good, or a known hole. */
type Part = [json: string, good: boolean, hole?: Hole];

const NBSP = '\u00a0';
const PRICES: Part[] = [
  ['60', true],
  ['60.5', true],
  ['0.01', true],
  ['0.5', true],
  ['999999999.99', true],
  ['1000000000', true],
  ['1000000000.5', false],
  ['0.015', false],
  ['0.005', false],
  ['0', false],
  ['0.0', false],
  ['-5', false],
  ['-0.01', false],
  ['1e12', false],
  ['1000000000000', false],
  ['1e3', false],
  ['1e400', false],
  [`1${'0'.repeat(400)}`, false],
  ['"60"', false],
  ['null', false],
  ['0,01', false, HOLE.minimumDot],
  ['0a01', false, HOLE.minimumDot],
];
/** Messages where a message is all a move may hold. */
const SPOKEN: Part[] = [
  ['"I can do 60."', true],
  ['" Deal."', true],
  ['"Deal at €60? 👍"', true],
  [`"${'Sixty is fair. '.repeat(50)}"`, true],
  ['""', false],
  ['" "', false],
  ['"   "', false],
  ['null', false],
  ['"say \\"deal\\""', false],
  ['"two\\nlines"', false],
  ['"tab\there"', false],
  ['"\\u00e9t\\u00e9"', false],
  [`"${NBSP}"`, false, HOLE.unicodeBlank],
  ['42', false],
  ['{}', false],
];
/** Messages beside an action, which may be left out. */
const ASIDE: Part[] = [
  ['"Sixty, then."', true],
  ['null', true],
  ['""', true],
  ['" "', true],
  ['"say \\"deal\\""', true],
  ['"two\\nlines"', true],
  ['"tab\there"', false],
  ['42', false],
];

const offer = (price: string) => `{"type": "offer", "price": ${price}}`;
const ACTIONS: Part[] = [
  ['{"type": "accept"}', true],
  ['{"type": "reject"}', true],
  ['{"type": "walk_away"}', true],
  ...PRICES.map(([p, good, hole]): Part => [offer(p), good, hole]),
  ['{"type": "offer"}', false],
  ['{"type": "bribe"}', false],
  ['{"type": "accept", "price": 5}', false],
  ['{}', false],
  ['"accept"', false],
];

/** An answer made of parts: good if every part is, with the hole of any part, shown if every other part is good. */
function answer(text: string, ...parts: Part[]): Answer {
  const holed = parts.filter(([, , hole]) => hole !== undefined);
  if (holed.length === 0) return { text, good: parts.every(([, good]) => good) };
  const hole = holed[0]?.[2] as Hole;
  return { text, hole, shows: holed.length === 1 && parts.every((p) => p === holed[0] || p[1]) };
}
/** A one-part answer: the rest of it good. */
const tagged = (text: string, good: boolean, hole?: Hole): Answer => answer(text, ['', good, hole]);

function bilateralJson(): Answer[] {
  const answers: Answer[] = [];
  // The JSON move's message is always there, and always says something (it may be all the move holds).
  // A message that says nothing to the decoder is a hole only where it is all the move holds.
  const beside = ([json, good]: Part): Part => [json, good];
  for (const m of SPOKEN)
    answers.push(answer(`{"message": ${m[0]}, "action": null}`, m), answer(`{"message": ${m[0]}, "action": {"type": "accept"}}`, beside(m)));
  const some = SPOKEN.filter(([json]) => ['"I can do 60."', '" Deal."', '""', `"${NBSP}"`].includes(json));
  for (const m of some) for (const a of ACTIONS) answers.push(answer(`{"message": ${m[0]}, "action": ${a[0]}}`, beside(m), a));
  answers.push(
    { text: '{"message":"Fine.","action":null}', good: true },
    { text: '{\n  "message": "Fine.",\n  "action": {"type": "accept"}\n}', good: true },
    { text: '{}' },
    { text: '{"message": ""}' },
    { text: '{"message": "hi"}' },
    { text: '{"action": {"type": "accept"}}' },
    { text: '{"action": {"type": "accept"}, "message": "Fine."}' },
    { text: '{"message": "Fine.", "action": null, "mood": "happy"}' },
    { text: '{"move": {"message": "Fine.", "action": null}}' },
    { text: '[]' },
    { text: 'null' },
    { text: 'I accept.' },
    { text: 'ACCEPT' },
  );
  return answers;
}

const call = (name: string, args: string) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;

function bilateralTools(): Answer[] {
  const answers: Answer[] = [];
  for (const [price, good, hole] of PRICES) answers.push(tagged(call('make_offer', `{"price": ${price}, "message": "Sixty."}`), good, hole));
  for (const [message, good] of ASIDE) {
    answers.push(tagged(call('make_offer', `{"price": 60, "message": ${message}}`), good));
    answers.push(tagged(call('respond_to_offer', `{"decision": "accept", "message": ${message}}`), good));
    answers.push(tagged(call('walk_away', `{"message": ${message}}`), good));
  }
  for (const [message, good, hole] of SPOKEN) answers.push(tagged(call('send_message', `{"message": ${message}}`), good, hole));
  for (const decision of ['"reject"', '"ACCEPT"', '"maybe"', 'null'])
    answers.push(tagged(call('respond_to_offer', `{"decision": ${decision}, "message": null}`), decision === '"reject"'));
  answers.push(
    { text: call('walk_away', '{}') },
    { text: call('make_offer', '{"message": "Sixty."}') },
    { text: call('make_offer', '{"price": 60}') },
    { text: call('respond_to_offer', '{"decision": "accept"}') },
    { text: call('send_message', '{}') },
    { text: call('fly_away', '{"message": null}') },
    { text: `${call('walk_away', '{"message": null}')}\n${call('walk_away', '{"message": null}')}` },
    { text: '{"message": "Sixty.", "action": null}' },
  );
  return answers;
}

const ID = 'b1';
const IDS: Part[] = [
  [`"${ID}"`, true],
  [`" ${ID} "`, true],
  ['"buyer 1"', true],
  ['""', false],
  ['" "', false],
  ['null', false],
  ['"b\\"1"', false],
  [`"${NBSP}"`, false, HOLE.unicodeBlank],
  [`"${'b'.repeat(101)}"`, false, HOLE.longId],
];
const PITCHES: Part[] = [
  ['""', true],
  ['"Fresh stock."', true],
  ['" "', true],
  ['"say \\"yes\\""', true],
  [`"${'A fine product. '.repeat(50)}"`, true],
  ['null', false],
  ['42', false],
];
const sellerMove = (buyer: string, product: string, price: string, message: string) =>
  `{"buyer": ${buyer}, "product": ${product}, "price": ${price}, "message": ${message}}`;

function sellerAnswers(wrap: (args: string) => string): Answer[] {
  const answers: Answer[] = [];
  for (const [buyer, good, hole] of IDS) answers.push(tagged(wrap(sellerMove(buyer, '"p1"', '28', '""')), good, hole));
  for (const [product, good, hole] of IDS) answers.push(tagged(wrap(sellerMove('"b1"', product, '28', '""')), good, hole));
  for (const [price, good, hole] of PRICES) answers.push(tagged(wrap(sellerMove('"b1"', '"p1"', price, '"For you."')), good, hole));
  for (const [message, good] of PITCHES) answers.push(tagged(wrap(sellerMove('"b1"', '"p1"', '28', message)), good));
  answers.push(
    { text: wrap('{}') },
    { text: wrap('{"buyer": "b1", "product": "p1", "price": 28}') },
    { text: wrap('{"product": "p1", "buyer": "b1", "price": 28, "message": ""}') },
  );
  return answers;
}

const RESPONSES: Part[] = [
  ['{"type": "accept"}', true],
  ['{"type": "reject"}', true],
  ...PRICES.map(([p, good, hole]): Part => [`{"type": "counter", "price": ${p}}`, good, hole]),
  ['{"type": "counter"}', false],
  ['{"type": "walk_away"}', false],
  ['"accept"', false],
  ['null', false],
  ['{}', false],
];

function buyerJson(): Answer[] {
  const answers: Answer[] = [];
  for (const [response, good, hole] of RESPONSES) answers.push(tagged(`{"response": ${response}, "message": null}`, good, hole));
  for (const [message, good] of ASIDE) answers.push(tagged(`{"response": {"type": "accept"}, "message": ${message}}`, good));
  answers.push({ text: '{}' }, { text: '{"response": {"type": "accept"}}' }, { text: '{"message": "No."}' });
  return answers;
}

function buyerTools(): Answer[] {
  const answers: Answer[] = [];
  for (const [message, good] of ASIDE) {
    answers.push(tagged(call('accept_offer', `{"message": ${message}}`), good));
    answers.push(tagged(call('reject_offer', `{"message": ${message}}`), good));
  }
  for (const [price, good, hole] of PRICES) answers.push(tagged(call('counter_offer', `{"price": ${price}, "message": null}`), good, hole));
  answers.push({ text: call('accept_offer', '{}') }, { text: call('counter_offer', '{"message": null}') }, { text: call('walk_away', '{"message": null}') });
  return answers;
}

/** The corpus for one format, each answer after the thinking where the format has one. */
function corpus(format: MoveFormat): Answer[] {
  const game = format.label.startsWith('market seller') ? 'seller' : format.label.startsWith('market buyer') ? 'buyer' : 'bilateral';
  const answers = {
    bilateral: { json: bilateralJson, tools: bilateralTools },
    seller: { json: () => sellerAnswers((x) => x), tools: () => sellerAnswers((x) => call('offer_product', x)) },
    buyer: { json: buyerJson, tools: buyerTools },
  }[game][format.interface]();
  if (!format.thinking) return answers;
  // With thinking, the same answers after a think block, and a few without one.
  return [
    ...answers.map((a) => ({ ...a, text: THOUGHT + a.text })),
    ...answers
      .filter((a) => a.good)
      .slice(0, 3)
      .map((a) => ({ text: a.text })),
  ];
}

/** The game's decoder over what WebLLM's backend makes of the text (tool calls read out of it). */
function decodes(format: MoveFormat, text: string): { ok: boolean; why?: string } {
  const completion = {
    choices: [{ message: { role: 'assistant', content: text }, finish_reason: 'stop', index: 0, logprobs: null }],
  } as unknown as ChatCompletion;
  const response = fromWebLlmResponse(completion, MODEL, { tools: format.interface === 'tools' });
  const role: MarketRole | undefined = format.label.startsWith('market seller') ? 'seller' : format.label.startsWith('market buyer') ? 'buyer' : undefined;
  const decoded = role ? decodeMarketMove(role, response.text, response.toolCalls) : decodeMove(response.text, response.toolCalls);
  return decoded.ok ? { ok: true } : { ok: false, why: decoded.error.code };
}

const grammars = new Map<string, Grammar>();

beforeAll(async () => {
  for (const { label, format } of moveFormats()) grammars.set(label, await grammarOf(format));
}, 60_000);

afterAll(() => {
  for (const grammar of grammars.values()) grammar.dispose();
});

/** The grammar WebLLM compiles for a format, without a vocabulary (the same schema converter, the same defaults). */
function grammarOf(format: ResponseFormat): Promise<Grammar> {
  if (format.type === 'json_object') return xgr.Grammar.fromJSONSchema(format.schema ?? '');
  if (format.type === 'structural_tag') return xgr.Grammar.fromStructuralTag(format.structural_tag as StructuralTagLike);
  throw new Error(`no grammar for ${format.type}`);
}

const accepts = (label: string, text: string): Promise<boolean> => xgr.Testings.isGrammarAcceptString(grammars.get(label) as Grammar, text);

describe('what WebLLM’s grammar lets through, the decoder plays', () => {
  it('the twelve formats: both games, json and tools, with and without thinking', () => {
    expect(moveFormats().map((f) => f.label)).toHaveLength(12);
  });

  it.each(moveFormats().map((f) => [f.label, f] as const))('%s', async (label, format) => {
    const answers = corpus(format);
    const gone: string[] = [];
    const unexpected: string[] = [];
    const goodRefused: string[] = [];
    for (const answer of answers) {
      const grammarTakes = await accepts(label, answer.text);
      const decoded = decodes(format, answer.text);
      if (answer.good && !(grammarTakes && decoded.ok)) goodRefused.push(`${answer.text} (grammar ${grammarTakes}, decoder ${decoded.why ?? 'ok'})`);
      if (grammarTakes && !decoded.ok && answer.hole === undefined) unexpected.push(`${answer.text} → ${decoded.why}`);
      if (answer.shows && !(grammarTakes && !decoded.ok)) gone.push(`${answer.text} (${answer.hole})`);
    }
    // No answer the grammar takes is refused by the decoder, but where a named hole lets it through...
    expect(unexpected).toEqual([]);
    // ...and each hole is still one (else it is to be struck off the list).
    expect(gone).toEqual([]);
    // The corpus is not all refusals: every good answer passes both.
    expect(goodRefused).toEqual([]);
    expect(answers.filter((a) => a.good).length).toBeGreaterThan(5);
  });

  it.each([
    ['json', '{}'],
    ['json', '{"message": ""}'],
    ['json', '{"message": "", "action": null}'],
    ['json', '{"message": null, "action": null}'],
    ['json', '{"message": "Pay me.", "action": {"type": "offer", "price": -5}}'],
    ['json', '{"message": "A lot.", "action": {"type": "offer", "price": 1000000000000}}'],
    ['json', '{"message": "A lot.", "action": {"type": "offer", "price": 1e12}}'],
    ['tools', call('make_offer', '{"price": -5, "message": null}')],
    ['tools', call('send_message', '{"message": ""}')],
    ['market seller: json', sellerMove('"b1"', '"p1"', '-5', '""')],
    ['market seller: json', sellerMove('""', '"p1"', '28', '""')],
    ['market buyer: json', '{"response": {"type": "counter", "price": 0}, "message": null}'],
    ['market buyer: tools', call('counter_offer', '{"price": 1e12, "message": null}')],
  ])('%s refuses an answer that cost constrained providers a retry: %s', async (label, text) => {
    expect(await accepts(label, text)).toBe(false);
  });
});
